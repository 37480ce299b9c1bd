import { defineEventGroup, serializedErrorSchema } from '@troupe/core';
import { z } from 'zod';

const ids = {
  /** The pipeline thread's channel (`<namespace joined by "/">:<threadId>`), so `bus.on('pipeline:…', fn, { channelId })` filters by thread. */
  channelId: z.string(),
  threadId: z.string(),
};
const index = z.number().int().nonnegative();
const count = z.number().int().nonnegative();

/** Which role(s) a run plays. */
export const pipelineRoleSchema = z.enum(['both', 'planner', 'executor']);

/**
 * Payload schemas of the pipeline's bus events (`pipeline:*`). The four
 * seed events map to `pipeline:batch-planned` (`BATCH_PLANNED`),
 * `pipeline:batch-executed` (`BATCH_EXECUTED`), `pipeline:planning-completed`
 * (`PLANNING_COMPLETED`) and `pipeline:execution-completed`
 * (`EXECUTION_COMPLETED`); each is emitted after its record (with its
 * processed flag) is in the store. Registered by
 * {@link registerPipelineEvents}, which every pipeline calls.
 */
export const pipelineEventSchemas = {
  /** A run began. */
  'pipeline:run-started': z.object({ ...ids, runId: z.string(), mode: z.enum(['serial', 'concurrent']), role: pipelineRoleSchema }),
  /** A run ended; `failed` carries the error, `aborted` means its signal aborted, `stopped` means `stop()`. */
  'pipeline:run-finished': z.object({
    ...ids,
    runId: z.string(),
    role: pipelineRoleSchema,
    status: z.enum(['completed', 'stopped', 'aborted', 'failed']),
    durationMs: z.number(),
    plannedBatches: count,
    executedTasks: count,
    failedTasks: count,
    skippedBatches: count,
    error: serializedErrorSchema.optional(),
    /** Why a `stopped` run stopped, when it was not `stop()` (a spent budget). */
    reason: z.string().optional(),
  }),
  /** A batch moved to a new status (progress per batch). */
  'pipeline:batch-state-changed': z.object({
    ...ids,
    batchIndex: index,
    status: z.enum(['planning', 'planned', 'executing', 'executed', 'failed']),
    taskCount: count.optional(),
    executedTasks: count.optional(),
    failedTasks: count.optional(),
  }),
  /** `BATCH_PLANNED`: the batch and its tasks are stored; the executor may start it. */
  'pipeline:batch-planned': z.object({ ...ids, batchIndex: index, taskCount: count, totalBatches: count.nullable() }),
  /** `BATCH_EXECUTED`: every task of the batch ran (`skipped` for an empty batch); `failed` when a task failed. */
  'pipeline:batch-executed': z.object({
    ...ids,
    batchIndex: index,
    status: z.enum(['executed', 'failed']),
    taskCount: count,
    executedTasks: count,
    failedTasks: count,
    skipped: z.boolean(),
  }),
  /** `PLANNING_COMPLETED`: no batch follows. */
  'pipeline:planning-completed': z.object({ ...ids, totalBatches: count }),
  /** `EXECUTION_COMPLETED`: every batch of the thread was executed or skipped. Counts cover the whole thread. */
  'pipeline:execution-completed': z.object({ ...ids, totalBatches: count, executedTasks: count, failedTasks: count }),
  /** The executor found nothing to run and waits for a notification (never polls). */
  'pipeline:executor-waiting': z.object({ ...ids, waitingFor: z.enum(['batch-planned', 'planning-completed']), nextBatchIndex: index.nullable() }),
  /** A task began. */
  'pipeline:task-started': z.object({ ...ids, batchIndex: index, taskIndex: index, taskId: z.string(), attempt: z.number().int().positive() }),
  /** A task's outcome was stored (progress per task). */
  'pipeline:task-completed': z.object({
    ...ids,
    batchIndex: index,
    taskIndex: index,
    taskId: z.string(),
    attempt: z.number().int().positive(),
    status: z.enum(['succeeded', 'failed']),
    durationMs: z.number(),
    /** Tasks of the batch with a recorded outcome, this one included. */
    completedInBatch: count,
    taskCount: count,
    error: serializedErrorSchema.optional(),
    decision: z.enum(['continue', 'stop']).optional(),
  }),
} as const;

/** Payload types of the `pipeline:*` events. */
export type PipelineEventPayloads = { [K in keyof typeof pipelineEventSchemas]: z.infer<(typeof pipelineEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `pipeline:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends PipelineEventPayloads {}
}

/**
 * Registers the `pipeline:*` payload schemas with core's event schema
 * registry (so `parseEvent` accepts them from another process). Idempotent,
 * and tolerant of another copy of this package having registered them first.
 * Every pipeline calls it; the package has no import-time side effects.
 */
export const registerPipelineEvents: () => void = /* @__PURE__ */ defineEventGroup('pipeline', pipelineEventSchemas);
