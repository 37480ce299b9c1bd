import { serializedErrorSchema, type Namespace } from '@troupe/core';
import { z } from 'zod';
import type { BatchEventType } from './pipeline-types';

/** Zero-padded so keys list in numeric order. */
export function padIndex(index: number): string {
  return String(index).padStart(8, '0');
}

/**
 * Where a thread's records live under `[...namespace, threadId]`:
 * planning progress (`planning`), batches with their tasks (`batches`),
 * batch states (`batch-states`), task outcomes (`results/<batch>`) and the
 * event log (`events/<TYPE>`).
 */
export interface ThreadLayout {
  base: Namespace;
  batches: Namespace;
  states: Namespace;
  results: (batchIndex: number) => Namespace;
  events: (type: BatchEventType) => Namespace;
}

/** @internal */
export function threadLayout(namespace: Namespace, threadId: string): ThreadLayout {
  const base = [...namespace, threadId];
  return {
    base,
    batches: [...base, 'batches'],
    states: [...base, 'batch-states'],
    results: (batchIndex) => [...base, 'results', padIndex(batchIndex)],
    events: (type) => [...base, 'events', type],
  };
}

/** Key of the planning progress record in the thread's base namespace. */
export const PLANNING_KEY = 'planning';

/** Key of a batch state (the seed's `batch-state-<n>`, zero-padded). */
export function batchStateKey(batchIndex: number): string {
  return `batch-state-${padIndex(batchIndex)}`;
}

const index = z.number().int().nonnegative();
const time = z.number();

/** @internal A batch state as stored. */
export const batchStateSchema = z.object({
  batchIndex: index,
  status: z.enum(['planning', 'planned', 'executing', 'executed', 'failed']),
  planningStartedAt: time.optional(),
  planningCompletedAt: time.optional(),
  executionStartedAt: time.optional(),
  executionCompletedAt: time.optional(),
  taskCount: index.optional(),
  executedTasks: index.optional(),
  failedTasks: index.optional(),
  skipped: z.boolean().optional(),
  error: serializedErrorSchema.optional(),
});

/** @internal A planned batch as stored: the seed's task plans. */
export const batchRecordSchema = z.object({
  batchIndex: index,
  tasks: z.array(z.object({ taskId: z.string(), input: z.unknown() })),
  plannedAt: time,
});
/** @internal */
export type BatchRecord = z.infer<typeof batchRecordSchema>;

/** @internal A task outcome as stored. */
export const taskRecordSchema = z.object({
  batchIndex: index,
  taskIndex: index,
  taskId: z.string(),
  status: z.enum(['succeeded', 'failed']),
  result: z.unknown().optional(),
  error: serializedErrorSchema.optional(),
  decision: z.enum(['continue', 'stop']).optional(),
  attempt: z.number().int().positive(),
  startedAt: time,
  finishedAt: time,
});

/** @internal An event log record as stored. */
export const batchEventRecordSchema = z.object({
  id: z.string(),
  type: z.enum(['BATCH_PLANNED', 'BATCH_EXECUTED', 'PLANNING_COMPLETED', 'EXECUTION_COMPLETED']),
  threadId: z.string(),
  batchIndex: index,
  totalBatches: index.nullable(),
  timestamp: time,
  data: z.record(z.string(), z.unknown()).optional(),
  processed: z.boolean(),
  processedAt: time.optional(),
});

/** @internal Planning progress as stored. */
export const planningProgressSchema = z.object({
  nextBatchIndex: index,
  totalBatches: index.nullable(),
  planningCompleted: z.boolean(),
  completedAt: time.optional(),
});

/** Every batch event type, in the order they happen. */
export const BATCH_EVENT_TYPES: readonly BatchEventType[] = ['BATCH_PLANNED', 'BATCH_EXECUTED', 'PLANNING_COMPLETED', 'EXECUTION_COMPLETED'];
