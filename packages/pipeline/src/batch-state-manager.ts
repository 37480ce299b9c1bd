import { InvalidArgumentError, type Namespace, type Store, type StoreCallOptions } from '@troupe/core';
import { batchStateKey, batchStateSchema, threadLayout } from './pipeline-store-layout';
import { guardStore, parseStored } from './pipeline-store-guard';
import type { BatchState } from './pipeline-types';
import { checkNamespace, checkThreadId } from './pipeline-validation';

/** Changes to a batch state: any field but the index. */
export type BatchStateUpdate = Partial<Omit<BatchState, 'batchIndex'>>;

/** @internal Reads one batch state with `store` (a transaction's `tx` or the store). */
export async function readBatchState(store: Store, namespace: Namespace, threadId: string, batchIndex: number, options?: StoreCallOptions): Promise<BatchState | undefined> {
  const item = await store.get(threadLayout(namespace, threadId).states, batchStateKey(batchIndex), options);
  return item ? (parseStored(batchStateSchema, item, { threadId, batchIndex }) as BatchState) : undefined;
}

/**
 * @internal Merges `updates` into a batch state with `store` (dropping the
 * `remove` fields) and returns the new state. The caller holds the write
 * lock (or is inside a transaction).
 */
export async function writeBatchStateUpdate(
  store: Store,
  namespace: Namespace,
  threadId: string,
  batchIndex: number,
  updates: BatchStateUpdate,
  options?: StoreCallOptions,
  remove: readonly (keyof BatchState)[] = [],
): Promise<BatchState> {
  const existing = await readBatchState(store, namespace, threadId, batchIndex, options);
  const status = updates.status ?? existing?.status;
  if (status === undefined) throw new InvalidArgumentError('updates.status', `batch ${batchIndex} has no state yet; the first update needs a status`);
  const next: BatchState = { ...existing, ...withoutUndefined(updates), status, batchIndex };
  for (const field of remove) if (field !== 'batchIndex' && field !== 'status') delete next[field];
  await store.put(threadLayout(namespace, threadId).states, batchStateKey(batchIndex), next, options);
  return next;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Per-batch state of a pipeline thread (seed 003 §2.3.1): `planning`,
 * `planned`, `executing`, `executed` or `failed`, with timestamps and task
 * counts, stored at `[...namespace, threadId, 'batch-states']`.
 *
 * Unlike the seed's manager it never swallows a store error: every method
 * rejects with a {@link PipelineError} (kind `store`, or `corrupt-state` for
 * a record it did not write) naming the batch and the store call. Updates
 * hold the store's write lock, so concurrent updates of one batch never
 * lose each other's fields.
 *
 * @example
 * ```ts
 * const states = new BatchStateManager(store, ['pipeline']);
 * await states.updateBatchState('thread-1', 0, { status: 'planning', planningStartedAt: Date.now() });
 * for (const state of await states.getAllBatchStates('thread-1')) console.log(state.batchIndex, state.status);
 * ```
 */
export class BatchStateManager {
  private readonly namespace: Namespace;

  /**
   * @param store Where states are kept (a `MemoryStore`, `@troupe/store-sqlite`…).
   * @param namespace Prefix of every thread's records. Default `['pipeline']`.
   */
  constructor(
    private readonly store: Store,
    namespace: Namespace = ['pipeline'],
  ) {
    if (!store || typeof store.get !== 'function' || typeof store.put !== 'function') throw new InvalidArgumentError('store', 'expected a Store (get/put/delete/list/transaction)');
    this.namespace = checkNamespace(namespace);
  }

  /**
   * Merges `updates` into the batch's state (creating it; the first update
   * needs a `status`) and returns the new state.
   */
  async updateBatchState(threadId: string, batchIndex: number, updates: BatchStateUpdate, options: StoreCallOptions = {}): Promise<BatchState> {
    checkThreadId(threadId);
    checkBatchIndex(batchIndex);
    if (updates === null || typeof updates !== 'object') throw new InvalidArgumentError('updates', 'expected an object of BatchState fields');
    if (updates.status !== undefined && !batchStateSchema.shape.status.safeParse(updates.status).success) {
      throw new InvalidArgumentError('updates.status', `expected planning, planned, executing, executed or failed, got ${JSON.stringify(updates.status)}`);
    }
    return guardStore(
      this.store,
      { threadId, action: `update the state of batch ${batchIndex}`, batchIndex, ...(options.signal ? { signal: options.signal } : {}) },
      (store) => writeBatchStateUpdate(store, this.namespace, threadId, batchIndex, updates, options),
      { lock: true },
    );
  }

  /** The batch's state, or `undefined` when it has none. */
  async getBatchState(threadId: string, batchIndex: number, options: StoreCallOptions = {}): Promise<BatchState | undefined> {
    checkThreadId(threadId);
    checkBatchIndex(batchIndex);
    return guardStore(this.store, { threadId, action: `read the state of batch ${batchIndex}`, batchIndex, ...(options.signal ? { signal: options.signal } : {}) }, (store) =>
      readBatchState(store, this.namespace, threadId, batchIndex, options),
    );
  }

  /** Every batch state of the thread, sorted by batch index. */
  async getAllBatchStates(threadId: string, options: StoreCallOptions = {}): Promise<BatchState[]> {
    checkThreadId(threadId);
    return guardStore(this.store, { threadId, action: 'list the batch states', ...(options.signal ? { signal: options.signal } : {}) }, async (store) => {
      const items = await store.list(threadLayout(this.namespace, threadId).states, options);
      return items
        .filter((item) => item.key.startsWith('batch-state-'))
        .map((item) => parseStored(batchStateSchema, item, { threadId }) as BatchState)
        .sort((a, b) => a.batchIndex - b.batchIndex);
    });
  }

  /** Removes a batch's state; returns whether it existed. */
  async deleteBatchState(threadId: string, batchIndex: number, options: StoreCallOptions = {}): Promise<boolean> {
    checkThreadId(threadId);
    checkBatchIndex(batchIndex);
    return guardStore(
      this.store,
      { threadId, action: `delete the state of batch ${batchIndex}`, batchIndex, ...(options.signal ? { signal: options.signal } : {}) },
      (store) => store.delete(threadLayout(this.namespace, threadId).states, batchStateKey(batchIndex), options),
      { lock: true },
    );
  }
}

function checkBatchIndex(batchIndex: number): void {
  if (!Number.isInteger(batchIndex) || batchIndex < 0) throw new InvalidArgumentError('batchIndex', `expected a non-negative integer, got ${String(batchIndex)}`);
}
