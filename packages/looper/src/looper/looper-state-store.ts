import { ConfigError, InvalidArgumentError } from '@troupe/core/errors';
import { MemoryStore, type Namespace, type Store, type StoreCallOptions } from '@troupe/core/store';
import type { PendingTask } from '../judge/judge-input';
import type { LooperSnapshot } from './looper-state';
import { isCanonicalLooperSnapshot } from './looper-snapshot-check';

/** One entry of a Looper's history, written with the checkpoint it belongs to. */
export interface LooperHistoryEntry {
  /** What happened. */
  kind: 'run-started' | 'coder' | 'review' | 'decision' | 'run-finished' | 'pending-added' | 'stop-requested' | 'workspace-created' | 'workspace-finished' | 'workspace-merged';
  /** Revision of the snapshot this entry produced (its key in the history). */
  revision: number;
  runId: string | null;
  iteration: number;
  /** Milliseconds since the epoch. */
  at: number;
  /** JSON details (a step result, a decision, a task). */
  data?: unknown;
}

/**
 * Where a Looper keeps its state. `save` writes the snapshot and the history
 * entries that led to it (several when changes came faster than the store
 * wrote), atomically. A durable
 * implementation (e.g. over `@troupe/store-sqlite`) lets a new process
 * `resume()` a run that was interrupted.
 */
export interface LooperStateStore {
  load(looperId: string, options?: StoreCallOptions): Promise<LooperSnapshot | undefined>;
  save(snapshot: LooperSnapshot, entries?: readonly LooperHistoryEntry[], options?: StoreCallOptions): Promise<void>;
  /** History entries in order (oldest first). */
  history(looperId: string, options?: StoreCallOptions & { limit?: number }): Promise<LooperHistoryEntry[]>;
}

/** Options for {@link createLooperStateStore}. */
export interface LooperStateStoreOptions {
  /**
   * Namespace prefix. Default `['looper']`: a Looper's checkpoint at
   * `['looper', <id>]`, its pending tasks at `['looper', <id>, 'pending']`,
   * its history at `['looper', <id>, 'history']`.
   */
  namespace?: readonly string[];
  /**
   * History entries kept per Looper (older ones are deleted in the same
   * transaction). Default 50; 0 keeps no history.
   */
  historyLimit?: number;
}

/** Keys of a checkpoint's parts in the Looper's namespace. */
const STATE_KEY = 'state';
const CURRENT_KEY = 'current';
const LAST_KEY = 'last';

/** The `state` record: the snapshot without the parts kept apart. */
type StateRecord = Omit<LooperSnapshot, 'pending' | 'current' | 'last'>;

/** What this store last wrote for a Looper, so the next checkpoint writes only what changed. */
interface Saved {
  revision: number;
  current: LooperSnapshot['current'];
  last: LooperSnapshot['last'];
  /**
   * The queue as written: its length and its first and last task. The
   * Looper appends to its queue in place, so the array itself is no record
   * of what was written.
   */
  pendingCount: number;
  firstTask: PendingTask | undefined;
  lastTask: PendingTask | undefined;
  /** Store key of each pending task written (by object: snapshots share unchanged tasks). */
  pendingKeys: Map<PendingTask, string>;
  nextOrdinal: number;
}

/** The reference for the next checkpoint, once `snapshot` (with `pendingCount` tasks read) is written. */
function savedAs(snapshot: LooperSnapshot, pendingCount: number, pendingKeys: Saved['pendingKeys'], nextOrdinal: number): Saved {
  const { pending } = snapshot;
  return {
    revision: snapshot.revision,
    current: snapshot.current,
    last: snapshot.last,
    pendingCount,
    firstTask: pending[0],
    lastTask: pendingCount > 0 ? pending[pendingCount - 1] : undefined,
    pendingKeys,
    nextOrdinal,
  };
}

/**
 * A checkpoint the plain check did not take, through the snapshot schema: loaded only then, with zod, so a
 * command that reads a well-formed checkpoint (or none) never loads them.
 *
 * @throws ConfigError naming each invalid field.
 */
async function parseSnapshot(value: unknown, namespace: Namespace): Promise<LooperSnapshot> {
  const { looperSnapshotSchema } = await import('./looper-state-schema');
  const parsed = looperSnapshotSchema.safeParse(value);
  if (!parsed.success) throw ConfigError.fromZod(`Looper checkpoint [${namespace.join(', ')}] state`, parsed.error);
  return parsed.data;
}

const pendingKey = (ordinal: number) => String(ordinal).padStart(12, '0');

function stateRecord(snapshot: LooperSnapshot): StateRecord {
  const { pending: _pending, current: _current, last: _last, ...state } = snapshot;
  return state;
}

/**
 * How the pending queue changed since the last write: tasks taken out, and
 * tasks added at its end (of the first `count` tasks of `next`). Snapshots
 * share unchanged tasks, so the usual `add_pending` is found by comparing the
 * ends of the old queue, without walking it. Undefined when the queue was reordered or a task was
 * put before a kept one: then it is rewritten whole.
 */
function pendingChange(previous: Saved, next: readonly PendingTask[], count: number): { removed: PendingTask[]; added: PendingTask[] } | undefined {
  const kept = previous.pendingCount;
  if (count >= kept && (kept === 0 || (next[0] === previous.firstTask && next[kept - 1] === previous.lastTask))) {
    return { removed: [], added: next.slice(kept, count) };
  }
  // Tasks left the queue (JUDGE consumed some), maybe with others added since.
  const added: PendingTask[] = [];
  let lastKept = '';
  for (let index = 0; index < count; index++) {
    const task = next[index] as PendingTask;
    const key = previous.pendingKeys.get(task);
    if (key === undefined) added.push(task);
    else if (added.length > 0 || key < lastKept) return undefined;
    else lastKept = key;
  }
  const present = new Set(next.slice(0, count));
  const removed = [...previous.pendingKeys.keys()].filter((task) => !present.has(task));
  return { removed, added };
}

/**
 * A {@link LooperStateStore} over core's namespaced {@link Store}. A
 * checkpoint is written incrementally, in one `transaction`: the small
 * `state` record always; the iteration's results (`current`) and the last
 * complete iteration (`last`) only when they changed; each pending task as
 * its own item, written when queued and deleted when consumed; history
 * entries keyed by revision (zero-padded, at most `historyLimit`). So a
 * command costs the same with 10 or 10,000 tasks pending. The first
 * checkpoint of a store instance (or one after a write it cannot vouch
 * for: another writer, a rolled-back outer transaction) rewrites the
 * queue whole. Reads checkpoints of the earlier single-record layout too.
 * Defaults to a `MemoryStore`.
 *
 * @example
 * ```ts
 * const looper = new Looper({ coder, review, stateStore: createLooperStateStore(sqliteStore) });
 * await looper.resume(); // continues a run a previous process left RUNNING
 * ```
 */
export function createLooperStateStore(store: Store = new MemoryStore(), options: LooperStateStoreOptions = {}): LooperStateStore {
  const prefix = options.namespace ?? ['looper'];
  if (!Array.isArray(prefix) || prefix.length === 0) throw new InvalidArgumentError('namespace', 'expected a non-empty array of strings');
  const historyLimit = options.historyLimit ?? 50;
  if (!(Number.isInteger(historyLimit) && historyLimit >= 0)) {
    throw new InvalidArgumentError('historyLimit', `expected an integer >= 0, got ${String(options.historyLimit)}`);
  }
  const historyKey = (revision: number) => String(revision).padStart(10, '0');
  const stateNamespace = (looperId: string): Namespace => [...prefix, looperId];
  const pendingNamespace = (looperId: string): Namespace => [...prefix, looperId, 'pending'];
  const historyNamespace = (looperId: string): Namespace => [...prefix, looperId, 'history'];
  const saved = new Map<string, Saved>();

  /** Rewrites the pending queue whole: deletes what is stored, writes every task. */
  async function rewritePending(tx: Store, looperId: string, pending: readonly PendingTask[], callOptions?: StoreCallOptions): Promise<Saved['pendingKeys']> {
    const namespace = pendingNamespace(looperId);
    for (const item of await tx.list(namespace, callOptions)) await tx.delete(namespace, item.key, callOptions);
    const keys = new Map<PendingTask, string>();
    for (const [ordinal, task] of pending.entries()) {
      keys.set(task, pendingKey(ordinal));
      await tx.put(namespace, pendingKey(ordinal), task, callOptions);
    }
    return keys;
  }

  return {
    async load(looperId, callOptions) {
      const namespace = stateNamespace(looperId);
      const item = await store.get<Record<string, unknown>>(namespace, STATE_KEY, callOptions);
      if (!item) return undefined;
      const legacy = item.value !== null && typeof item.value === 'object' && Array.isArray(item.value.pending);
      let value: unknown = item.value;
      let keys: string[] = [];
      if (!legacy) {
        const [current, last, pending] = await Promise.all([
          store.get(namespace, CURRENT_KEY, callOptions),
          store.get(namespace, LAST_KEY, callOptions),
          store.list<PendingTask>(pendingNamespace(looperId), callOptions),
        ]);
        keys = pending.map((entry) => entry.key);
        value = { ...item.value, current: current?.value ?? {}, last: last?.value ?? null, pending: pending.map((entry) => entry.value) };
      }
      const snapshot = isCanonicalLooperSnapshot(value) ? structuredClone(value) : await parseSnapshot(value, namespace);
      if (legacy) saved.delete(looperId);
      else {
        const pendingKeys = new Map(snapshot.pending.map((task, index) => [task, keys[index] as string]));
        const last = keys[keys.length - 1];
        saved.set(looperId, savedAs(snapshot, snapshot.pending.length, pendingKeys, last === undefined ? 0 : Number(last) + 1));
      }
      return snapshot;
    },

    async save(snapshot, entries = [], callOptions) {
      const { looperId } = snapshot;
      const namespace = stateNamespace(looperId);
      const history = historyNamespace(looperId);
      const next = await store.transaction(async (tx) => {
        const previous = saved.get(looperId);
        // Trust what this store wrote last only while the stored state is still that write.
        const stored = previous && (await tx.get<{ revision?: unknown; pending?: unknown }>(namespace, STATE_KEY, callOptions));
        const trusted = previous !== undefined && stored?.value.revision === previous.revision && stored.value.pending === undefined;
        await tx.put(namespace, STATE_KEY, stateRecord(snapshot), callOptions);
        if (!trusted || snapshot.current !== previous.current) await tx.put(namespace, CURRENT_KEY, snapshot.current, callOptions);
        if (!trusted || snapshot.last !== previous.last) await tx.put(namespace, LAST_KEY, snapshot.last, callOptions);
        const pending = pendingNamespace(looperId);
        // The tasks there are now: later ones (appended while this write runs) go with the next checkpoint.
        const count = snapshot.pending.length;
        const change = trusted ? pendingChange(previous, snapshot.pending, count) : undefined;
        let apply: () => Saved;
        if (change === undefined) {
          const tasks = snapshot.pending.slice(0, count);
          const pendingKeys = await rewritePending(tx, looperId, tasks, callOptions);
          apply = () => savedAs(snapshot, count, pendingKeys, count);
        } else {
          const base = previous as Saved;
          let nextOrdinal = base.nextOrdinal;
          const added = change.added.map((task) => [task, pendingKey(nextOrdinal++)] as const);
          for (const task of change.removed) await tx.delete(pending, base.pendingKeys.get(task) as string, callOptions);
          for (const [task, key] of added) await tx.put(pending, key, task, callOptions);
          // The key map is shared with the previous write: change it only once this one commits.
          apply = () => {
            for (const task of change.removed) base.pendingKeys.delete(task);
            for (const [task, key] of added) base.pendingKeys.set(task, key);
            return savedAs(snapshot, count, base.pendingKeys, nextOrdinal);
          };
        }
        if (historyLimit > 0) {
          for (const entry of entries) {
            await tx.put(history, historyKey(entry.revision), entry, callOptions);
            // Revisions go up by one per change, so one delete per entry keeps the history bounded.
            if (entry.revision > historyLimit) await tx.delete(history, historyKey(entry.revision - historyLimit), callOptions);
          }
        }
        return apply;
      }, callOptions);
      // Only once committed: a failed transaction leaves the previous write as the reference.
      saved.set(looperId, next());
    },

    async history(looperId, callOptions = {}) {
      const items = await store.list<LooperHistoryEntry>(historyNamespace(looperId), callOptions);
      return items.map((item) => item.value);
    },
  };
}
