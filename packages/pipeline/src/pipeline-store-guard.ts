import {
  AbortError,
  formatIssuePath,
  TroupeError,
  type Namespace,
  type Store,
  type StoreCallOptions,
  type StoreItem,
  type StoreListOptions,
} from '@troupe/core';
import { processSingleton, redactSecrets } from '@troupe/core/util';
import type { z } from 'zod';
import { PipelineError } from './pipeline-error';

/** Tail of the write-lock chain of each store instance (one map per process, shared by the ESM and CJS builds). */
const writeLocks = processSingleton('pipeline.write-locks.v1', () => new WeakMap<object, Promise<void>>());

/**
 * Runs `work` holding this process's write lock for `store`: every pipeline
 * (and {@link BatchStateManager}/{@link BatchEventLog}) over the same store
 * instance writes one group at a time. This keeps read-modify-write updates
 * whole, and keeps a `transaction` from overwriting writes made while it ran
 * (core's `MemoryStore` swaps its whole map at commit).
 *
 * @internal
 */
export async function withWriteLock<T>(store: Store, work: () => Promise<T>): Promise<T> {
  const previous = writeLocks.get(store) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  writeLocks.set(store, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (writeLocks.get(store) === tail) writeLocks.delete(store);
  }
}

/** Formats a store call for error messages: `put [pipeline, t1, batches] 00000003`. */
export function describeStoreCall(method: string, namespace: Namespace, key?: string): string {
  return `${method} [${namespace.join(', ')}]${key === undefined ? '' : ` ${key}`}`;
}

/** Where a {@link CallTrackingStore} notes its last call (formatted only when an error needs it). */
class CallLog {
  private method = '';
  private namespace: Namespace | undefined;
  private key: string | undefined;

  note(method: string, namespace?: Namespace, key?: string): void {
    this.method = method;
    this.namespace = namespace;
    this.key = key;
  }

  get lastCall(): string {
    if (this.method === '') return '';
    return this.namespace ? describeStoreCall(this.method, this.namespace, this.key) : this.method;
  }
}

/**
 * A store that notes its last call, so an error can name it. A
 * transaction's `tx` is wrapped too and notes on the same log.
 *
 * @internal
 */
export class CallTrackingStore implements Store {
  constructor(
    private readonly inner: Store,
    readonly log: CallLog = new CallLog(),
  ) {}

  get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    this.log.note('get', namespace, key);
    return this.inner.get<V>(namespace, key, options);
  }

  put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    this.log.note('put', namespace, key);
    return this.inner.put(namespace, key, value, options);
  }

  delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    this.log.note('delete', namespace, key);
    return this.inner.delete(namespace, key, options);
  }

  list<V = unknown>(namespace: Namespace, options?: StoreListOptions): Promise<StoreItem<V>[]> {
    this.log.note('list', namespace);
    return this.inner.list<V>(namespace, options);
  }

  transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    this.log.note('transaction');
    return this.inner.transaction((tx) => work(new CallTrackingStore(tx, this.log)), options);
  }
}

/** Context for turning a store failure into a {@link PipelineError}. */
export interface StoreFailureContext {
  threadId: string;
  /** What the pipeline was doing, e.g. `record batch 3 as planned`. */
  action: string;
  batchIndex?: number;
  taskIndex?: number;
  signal?: AbortSignal;
  /** Values to redact from the store's error message. */
  secrets?: readonly string[];
}

/**
 * Rethrows a store failure as a {@link PipelineError} of kind `store` that
 * names the action and the store call. Aborts and pipeline errors pass
 * through unchanged.
 *
 * @internal
 */
export function rethrowStoreFailure(error: unknown, context: StoreFailureContext, call: string): never {
  if (PipelineError.isInstance(error)) throw error;
  if (TroupeError.hasCode(error, 'ABORTED')) throw error;
  if (context.signal?.aborted) throw new AbortError(`Pipeline thread "${context.threadId}" was aborted while it tried to ${context.action}`, { cause: context.signal.reason });
  const reason = redactSecrets(error instanceof Error ? error.message : String(error), context.secrets ?? []);
  throw new PipelineError(`Pipeline thread "${context.threadId}" could not ${context.action}: the store failed${call ? ` on ${call}` : ''}: ${reason}`, {
    kind: 'store',
    threadId: context.threadId,
    operation: call || undefined,
    cause: error,
    ...(context.batchIndex !== undefined ? { batchIndex: context.batchIndex } : {}),
    ...(context.taskIndex !== undefined ? { taskIndex: context.taskIndex } : {}),
  });
}

/**
 * Runs store work, turning its failures into {@link PipelineError}s that
 * name what was being done. With `lock`, holds the store's write lock; with
 * `atomic`, runs the work in one `transaction`.
 *
 * @internal
 */
export async function guardStore<T>(
  store: Store,
  context: StoreFailureContext,
  work: (store: Store) => Promise<T>,
  mode: { lock?: boolean; atomic?: boolean } = {},
): Promise<T> {
  const tracker = new CallTrackingStore(store);
  const run = () => (mode.atomic ? tracker.transaction(work, context.signal ? { signal: context.signal } : undefined) : work(tracker));
  try {
    return await (mode.lock || mode.atomic ? withWriteLock(store, run) : run());
  } catch (error) {
    rethrowStoreFailure(error, context, tracker.log.lastCall);
  }
}

/**
 * Validates a stored value; a mismatch is a {@link PipelineError} of kind
 * `corrupt-state` naming the record and the bad fields.
 *
 * @internal
 */
export function parseStored<S extends z.ZodType>(schema: S, item: StoreItem, context: { threadId: string; batchIndex?: number }): z.output<S> {
  const parsed = schema.safeParse(item.value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ');
  throw new PipelineError(
    `Pipeline thread "${context.threadId}": the stored record ${describeStoreCall('at', item.namespace, item.key)} is not what the pipeline writes (${issues})`,
    { kind: 'corrupt-state', threadId: context.threadId, operation: describeStoreCall('get', item.namespace, item.key), ...(context.batchIndex !== undefined ? { batchIndex: context.batchIndex } : {}) },
  );
}
