import { z } from 'zod';

// Kept local (not imported from `events/event-map`): the event map imports
// this file, so importing back would read its schemas before they exist.
const agentErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
});

/** How a background task ended when it did not complete. */
export const taskFailureStatusSchema = z.enum(['failed', 'canceled', 'timed-out']);

const executionFields = {
  /** Unique per `execute` call. */
  executionId: z.string(),
  /** Channel the agent runs on (subscribe with `{ channelId }`). */
  channelId: z.string(),
  agentId: z.string(),
};

/**
 * Payload schemas of the runnable-agent, executor and task bus events
 * (`task:*`, `executor:*`), merged into the SDK's event map.
 */
export const agentEventSchemas = {
  /** The executor started an agent on a channel. */
  'executor:started': z.object({ ...executionFields, sourceChannelId: z.string().optional(), timestamp: z.number() }),
  /** An executed agent reported progress through its `status` sink. */
  'executor:status': z.object({ ...executionFields, status: z.string() }),
  /** An executed agent streamed a piece of its answer through its `text` sink. */
  'executor:text-delta': z.object({ ...executionFields, text: z.string() }),
  /** An executed agent completed; its output was appended to the channel. */
  'executor:completed': z.object({ ...executionFields, durationMs: z.number(), textLength: z.number().int().nonnegative() }),
  /** An executed agent failed or was canceled; an error note was appended to the channel. */
  'executor:failed': z.object({
    ...executionFields,
    status: z.enum(['failed', 'canceled']),
    durationMs: z.number(),
    error: agentErrorSchema,
  }),
  /** `TaskManager.startBackground` started a task. */
  'task:started': z.object({ taskId: z.string(), agentId: z.string(), timeoutMs: z.number().optional(), timestamp: z.number() }),
  /** A background task completed. */
  'task:completed': z.object({ taskId: z.string(), agentId: z.string(), durationMs: z.number() }),
  /** A background task failed, timed out or was canceled. */
  'task:failed': z.object({
    taskId: z.string(),
    agentId: z.string(),
    status: taskFailureStatusSchema,
    durationMs: z.number(),
    error: agentErrorSchema,
  }),
} as const;
