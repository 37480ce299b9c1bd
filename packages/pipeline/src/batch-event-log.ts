import { InvalidArgumentError, type Namespace, type Store, type StoreCallOptions } from '@troupe/core';
import { BATCH_EVENT_TYPES, batchEventRecordSchema, padIndex, threadLayout } from './pipeline-store-layout';
import { guardStore, parseStored } from './pipeline-store-guard';
import type { BatchEventRecord, BatchEventType } from './pipeline-types';
import { checkNamespace, checkThreadId } from './pipeline-validation';

/** What {@link BatchEventLog.publishEvent} takes. */
export interface BatchEventInput {
  type: BatchEventType;
  threadId: string;
  /** The batch; for `PLANNING_COMPLETED` / `EXECUTION_COMPLETED`, the batch count. One record per type and index. */
  batchIndex: number;
  /** Batch count when known. */
  totalBatches?: number | null;
  /** Default: now. */
  timestamp?: number;
  /** JSON details stored with the event. */
  data?: Record<string, unknown>;
  /** Store the event already processed (a report nobody consumes). Default false. */
  processed?: boolean;
}

/** @internal Builds and writes an event record with `store`. */
export async function writeBatchEvent(store: Store, namespace: Namespace, input: BatchEventInput, now: number, options?: StoreCallOptions): Promise<BatchEventRecord> {
  const timestamp = input.timestamp ?? now;
  const record: BatchEventRecord = {
    id: `${input.threadId}-${input.type}-${input.batchIndex}`,
    type: input.type,
    threadId: input.threadId,
    batchIndex: input.batchIndex,
    totalBatches: input.totalBatches ?? null,
    timestamp,
    ...(input.data !== undefined ? { data: input.data } : {}),
    processed: input.processed ?? false,
    ...(input.processed ? { processedAt: timestamp } : {}),
  };
  await store.put(threadLayout(namespace, input.threadId).events(input.type), padIndex(input.batchIndex), record, options);
  return record;
}

/** @internal Reads one event record with `store`. */
export async function readBatchEvent(store: Store, namespace: Namespace, threadId: string, type: BatchEventType, batchIndex: number, options?: StoreCallOptions): Promise<BatchEventRecord | undefined> {
  const item = await store.get(threadLayout(namespace, threadId).events(type), padIndex(batchIndex), options);
  return item ? (parseStored(batchEventRecordSchema, item, { threadId, batchIndex }) as BatchEventRecord) : undefined;
}

/**
 * @internal Lists the records of one type with `store`, by batch index;
 * with `afterBatch`, only those of later batches.
 */
export async function listBatchEvents(
  store: Store,
  namespace: Namespace,
  threadId: string,
  type: BatchEventType,
  options?: StoreCallOptions & { afterBatch?: number },
): Promise<BatchEventRecord[]> {
  const { afterBatch, ...callOptions } = options ?? {};
  const items = await store.list(threadLayout(namespace, threadId).events(type), afterBatch === undefined ? callOptions : { ...callOptions, after: padIndex(afterBatch) });
  return items.map((item) => parseStored(batchEventRecordSchema, item, { threadId }) as BatchEventRecord).sort((a, b) => a.batchIndex - b.batchIndex);
}

/** @internal Sets `processed` on a record with `store`; false when there is none. */
export async function markBatchEventProcessed(
  store: Store,
  namespace: Namespace,
  threadId: string,
  type: BatchEventType,
  batchIndex: number,
  now: number,
  options?: StoreCallOptions,
): Promise<boolean> {
  const existing = await readBatchEvent(store, namespace, threadId, type, batchIndex, options);
  if (!existing) return false;
  if (existing.processed) return true;
  await store.put(threadLayout(namespace, threadId).events(type), padIndex(batchIndex), { ...existing, processed: true, processedAt: now }, options);
  return true;
}

/**
 * The seed's store-backed event log (§2.2.1 `AgentEventBus`): batch events
 * (`BATCH_PLANNED`, `BATCH_EXECUTED`, `PLANNING_COMPLETED`,
 * `EXECUTION_COMPLETED`) stored with a `processed` flag at
 * `[...namespace, threadId, 'events', TYPE]`, one record per batch. A
 * restarted executor reads the unprocessed `BATCH_PLANNED` records to know
 * which batches are left.
 *
 * The log is the durable half; live notification goes over core's
 * `EventBus` (`pipeline:*` events). Unlike the seed, no method swallows a
 * store error: they reject with a {@link PipelineError}.
 *
 * @example
 * ```ts
 * const log = new BatchEventLog(store, ['pipeline']);
 * for (const event of await log.getUnprocessedEvents('thread-1', 'BATCH_PLANNED')) console.log('left to run:', event.batchIndex);
 * ```
 */
export class BatchEventLog {
  private readonly namespace: Namespace;

  /**
   * @param store Where events are kept.
   * @param namespace Prefix of every thread's records. Default `['pipeline']`.
   * @param now Clock, for tests. Default `Date.now`.
   */
  constructor(
    private readonly store: Store,
    namespace: Namespace = ['pipeline'],
    private readonly now: () => number = Date.now,
  ) {
    if (!store || typeof store.get !== 'function' || typeof store.put !== 'function') throw new InvalidArgumentError('store', 'expected a Store (get/put/delete/list/transaction)');
    this.namespace = checkNamespace(namespace);
  }

  /** Stores an event (replacing the record of the same type and batch) and returns it. */
  async publishEvent(event: BatchEventInput, options: StoreCallOptions = {}): Promise<BatchEventRecord> {
    if (event === null || typeof event !== 'object') throw new InvalidArgumentError('event', 'expected { type, threadId, batchIndex }');
    checkType(event.type);
    checkThreadId(event.threadId);
    checkIndex(event.batchIndex);
    return guardStore(
      this.store,
      { threadId: event.threadId, action: `store the ${event.type} event of batch ${event.batchIndex}`, batchIndex: event.batchIndex, ...signalOf(options) },
      (store) => writeBatchEvent(store, this.namespace, event, this.now(), options),
      { lock: true },
    );
  }

  /** Unprocessed events of one type, by batch index. */
  async getUnprocessedEvents(threadId: string, type: BatchEventType, options: StoreCallOptions = {}): Promise<BatchEventRecord[]> {
    return (await this.getEvents(threadId, type, options)).filter((event) => !event.processed);
  }

  /** Events of one type (by batch index), or of every type (in event-type order, then by batch index). */
  async getEvents(threadId: string, type?: BatchEventType, options: StoreCallOptions = {}): Promise<BatchEventRecord[]> {
    checkThreadId(threadId);
    if (type !== undefined) checkType(type);
    const types = type === undefined ? BATCH_EVENT_TYPES : [type];
    return guardStore(this.store, { threadId, action: `list the ${type ?? 'batch'} events`, ...signalOf(options) }, async (store) => {
      const out: BatchEventRecord[] = [];
      for (const t of types) out.push(...(await listBatchEvents(store, this.namespace, threadId, t, options)));
      return out;
    });
  }

  /** Marks an event processed; resolves false when no such event is stored. */
  async markEventProcessed(threadId: string, type: BatchEventType, batchIndex: number, options: StoreCallOptions = {}): Promise<boolean> {
    checkThreadId(threadId);
    checkType(type);
    checkIndex(batchIndex);
    return guardStore(
      this.store,
      { threadId, action: `mark the ${type} event of batch ${batchIndex} processed`, batchIndex, ...signalOf(options) },
      (store) => markBatchEventProcessed(store, this.namespace, threadId, type, batchIndex, this.now(), options),
      { lock: true },
    );
  }
}

function signalOf(options: StoreCallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

function checkType(type: unknown): asserts type is BatchEventType {
  if (!BATCH_EVENT_TYPES.includes(type as BatchEventType)) {
    throw new InvalidArgumentError('type', `expected one of ${BATCH_EVENT_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
  }
}

function checkIndex(batchIndex: unknown): void {
  if (!Number.isInteger(batchIndex) || (batchIndex as number) < 0) throw new InvalidArgumentError('batchIndex', `expected a non-negative integer, got ${String(batchIndex)}`);
}
