import { z } from 'zod';
import { agentStreamPartSchema, agentUsageSchema } from '../adapter/v1/agent-stream-part';
import { agentEventSchemas } from '../agents/agent-event-schemas';
import { loopEventSchemas } from '../loop/loop-event-schemas';
import { messageSchema } from '../messages/message-schema';
import { modelEventSchemas } from '../model/model-event-schemas';
import { usageEventSchemas } from '../usage/usage-event-schemas';
import { permissionEventSchemas } from '../permissions/permission-event-schemas';

/** An error as it travels in an event: plain data, JSON-serializable, secrets already redacted. */
export const serializedErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
});
/** An error as plain data. */
export type SerializedError = z.infer<typeof serializedErrorSchema>;

/**
 * Payload schema of every event in the SDK, keyed by event type. Plugins add
 * theirs with `registerEventSchema` (and widen {@link TroupeEventPayloads}
 * by declaration merging).
 */
export const coreEventSchemas = {
  /** A message was appended to a channel (seed 000 §1). `tabId` repeats `channelId` under the seed's name. */
  'message:added': z.object({
    channelId: z.string(),
    tabId: z.string(),
    message: messageSchema,
    timestamp: z.number(),
  }),
  /** A bus listener threw or rejected; the emit and the other listeners went on. */
  'bus:listener-error': z.object({ eventType: z.string(), error: serializedErrorSchema }),
  /** A child process was spawned. */
  'process:started': z.object({
    processId: z.string(),
    command: z.string(),
    pid: z.number().optional(),
  }),
  /** A child process exited (or was killed). */
  'process:exited': z.object({
    processId: z.string(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    durationMs: z.number(),
  }),
  /** An agent member was started through its adapter. */
  'agent:started': z.object({ roleId: z.string(), adapterType: z.string(), processId: z.string() }),
  /** An agent turn began (version 1 of the agent events had none). `turnId` pairs it with its parts and completion. */
  'agent:turn-started': z.object({
    roleId: z.string(),
    turnId: z.string(),
    /** The adapter (`claude`, `codex`, `gemini`…). */
    adapterType: z.string(),
    /** The session the turn resumes, if any. */
    resumeSessionId: z.string().optional(),
    timestamp: z.number(),
  }),
  /** A normalized stream part from an agent's output (v2: with its `turnId`). */
  'agent:part': z.object({ roleId: z.string(), turnId: z.string().optional(), part: agentStreamPartSchema }),
  /** An agent turn finished (v2: with its turn id, adapter, model, session and usage, for tracing and the usage ledger). */
  'agent:turn-completed': z.object({
    roleId: z.string(),
    status: z.enum(['completed', 'failed', 'canceled', 'timed-out']),
    durationMs: z.number(),
    error: serializedErrorSchema.optional(),
    turnId: z.string().optional(),
    adapterType: z.string().optional(),
    /** The model, when the CLI's stream named it. */
    model: z.string().optional(),
    sessionId: z.string().optional(),
    /** Tokens and, where the CLI reports it, cost. */
    usage: agentUsageSchema.optional(),
  }),
  /** An agent member was stopped. */
  'agent:stopped': z.object({ roleId: z.string() }),
  ...loopEventSchemas,
  ...agentEventSchemas,
  ...modelEventSchemas,
  ...usageEventSchemas,
  ...permissionEventSchemas,
} as const;

type CorePayloads = { [K in keyof typeof coreEventSchemas]: z.infer<(typeof coreEventSchemas)[K]> };

/**
 * Payload type of every event, keyed by `namespace:name`. Plugins widen it by
 * declaration merging:
 *
 * @example
 * ```ts
 * declare module '@troupe/core' {
 *   interface TroupeEventPayloads { 'looper:state-changed': { state: 'IDLE' | 'RUNNING' } }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TroupeEventPayloads extends CorePayloads {}

/** Any event type known to the SDK. */
export type TroupeEventType = keyof TroupeEventPayloads & string;

/**
 * The versioned envelope every event travels in, in process and across
 * process boundaries (logs, SSE, another process).
 */
export interface TroupeEvent<T extends TroupeEventType = TroupeEventType> {
  type: T;
  /** Version of this event type's payload schema. */
  version: number;
  /** Milliseconds since the epoch when it was emitted. */
  timestamp: number;
  /** Who emitted it (`core`, `looper`, an agent id…). */
  source: string;
  payload: TroupeEventPayloads[T];
}

/** Union of all envelopes, discriminated by `type`. */
export type AnyTroupeEvent = { [T in TroupeEventType]: TroupeEvent<T> }[TroupeEventType];
