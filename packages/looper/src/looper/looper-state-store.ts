import { ConfigError, InvalidArgumentError, MemoryStore, type Store, type StoreCallOptions } from '@troupe/core';
import { looperSnapshotSchema, type LooperSnapshot } from './looper-state';

/** One entry of a Looper's history, written with the checkpoint it belongs to. */
export interface LooperHistoryEntry {
  /** What happened. */
  kind: 'run-started' | 'coder' | 'review' | 'decision' | 'run-finished' | 'pending-added' | 'stop-requested';
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
  /** Namespace prefix. Default `['looper']`: state at `['looper', <id>]`, history at `['looper', <id>, 'history']`. */
  namespace?: readonly string[];
  /**
   * History entries kept per Looper (older ones are deleted in the same
   * transaction). Default 50; 0 keeps no history. (`MemoryStore.transaction` copies the
   * whole store, so a long history makes every checkpoint slower there.)
   */
  historyLimit?: number;
}

/**
 * A {@link LooperStateStore} over core's namespaced {@link Store}: the
 * snapshot under key `state`, history entries keyed by the snapshot's
 * revision (zero-padded, so they list in order, at most `historyLimit`),
 * all written in one `transaction`. Defaults to a `MemoryStore`.
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
  const stateNamespace = (looperId: string) => [...prefix, looperId];
  const historyNamespace = (looperId: string) => [...prefix, looperId, 'history'];
  return {
    async load(looperId, callOptions) {
      const item = await store.get(stateNamespace(looperId), 'state', callOptions);
      if (!item) return undefined;
      const parsed = looperSnapshotSchema.safeParse(item.value);
      if (!parsed.success) throw ConfigError.fromZod(`Looper checkpoint [${stateNamespace(looperId).join(', ')}] state`, parsed.error);
      return parsed.data;
    },
    async save(snapshot, entries = [], callOptions) {
      const history = historyNamespace(snapshot.looperId);
      await store.transaction(async (tx) => {
        await tx.put(stateNamespace(snapshot.looperId), 'state', snapshot, callOptions);
        if (historyLimit === 0) return;
        for (const entry of entries) {
          await tx.put(history, historyKey(entry.revision), entry, callOptions);
          // Revisions go up by one per change, so one delete per entry keeps the history bounded.
          if (entry.revision > historyLimit) await tx.delete(history, historyKey(entry.revision - historyLimit), callOptions);
        }
      }, callOptions);
    },
    async history(looperId, callOptions = {}) {
      const items = await store.list<LooperHistoryEntry>(historyNamespace(looperId), callOptions);
      return items.map((item) => item.value);
    },
  };
}
