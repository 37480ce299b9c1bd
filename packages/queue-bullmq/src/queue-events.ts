import { defineEventGroup } from '@troupe/core';
import { z } from 'zod';

const errorSchema = z.object({ name: z.string(), message: z.string(), code: z.string().optional() });

const ids = {
  /** The BullMQ queue name. */
  queue: z.string(),
  /** The job's id (stable across retries). */
  jobId: z.string(),
};

/**
 * Payload schemas of the queue's bus events (`queue:*`). The origin emits
 * `queue:job-submitted`; workers emit the others, and they reach the
 * origin's bus in order with the job's own events.
 */
export const queueEventSchemas = {
  /** The origin added a job to a queue. */
  'queue:job-submitted': z.object({ ...ids, kind: z.string() }),
  /** A worker started (or, after a crash, resumed) an attempt of a job. */
  'queue:job-started': z.object({ ...ids, attempt: z.number().int().positive(), workerId: z.string(), resumed: z.boolean() }),
  /** An attempt ended with a result; the job is done. */
  'queue:job-completed': z.object({ ...ids, attempt: z.number().int().positive(), workerId: z.string() }),
  /**
   * An attempt failed; `willRetry` says whether BullMQ will run it again (after its backoff). `code` names why,
   * stably and in no language: a `QueueError`'s failure code (`QUEUE_FOLDER_NOT_ALLOWED`…, with the `params` a
   * message in any language needs) or another Troupe error's code; absent for other errors (then word it from
   * `error.message`).
   */
  'queue:job-failed': z.object({
    ...ids,
    attempt: z.number().int().positive(),
    workerId: z.string(),
    willRetry: z.boolean(),
    error: errorSchema,
    code: z.string().optional(),
    params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  }),
} as const;

/** Payload types of the `queue:*` events. */
export type QueueEventPayloads = { [K in keyof typeof queueEventSchemas]: z.infer<(typeof queueEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `queue:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends QueueEventPayloads {}
}

/**
 * Registers the `queue:*` payload schemas with core's event schema registry
 * (idempotent; tolerant of another copy of this package having done it).
 */
export const registerQueueEvents: () => void = /* @__PURE__ */ defineEventGroup('queue', queueEventSchemas);
