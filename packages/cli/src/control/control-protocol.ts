import type { AnyTroupeEvent, Message } from '@troupe/core';
import { z } from 'zod';

/**
 * Requests a `troupe` process sends to the one running a workspace, one JSON
 * object per line on the control socket:
 * - `ping`: who is running (pid, session, state);
 * - `looper`: a Looper command (text or JSON, as given to `-p`);
 * - `devhub`: a message for DevHub (answered when DevHub has replied);
 * - `subscribe`: stream the channels' messages (after the given `seq` per channel), and with `events`
 *   every bus event too (the dashboard's live view of a runner in another process).
 *
 * Any request may carry `trace` (W3C `traceparent` / `tracestate`): what it
 * starts in the running process (a Looper run, a DevHub turn) is traced as a
 * child of the sender's span.
 */
const base = {
  id: z.number().int(),
  /** The sender's W3C trace context: the work the request starts is traced under the sender's span. */
  trace: z.object({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
};
export const controlRequestSchema = z.discriminatedUnion('op', [
  z.object({ ...base, op: z.literal('ping') }),
  z.object({ ...base, op: z.literal('looper'), input: z.string() }),
  z.object({ ...base, op: z.literal('devhub'), input: z.string() }),
  z.object({ ...base, op: z.literal('subscribe'), after: z.record(z.string(), z.number().int().nonnegative()).optional(), events: z.boolean().optional() }),
]);

/** One control request. */
export type ControlRequest = z.infer<typeof controlRequestSchema>;

/** The answer to a request (`id` matches it). */
export type ControlResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** A message pushed to subscribers. */
export interface ControlMessageEvent {
  event: 'message';
  message: Message;
}

/** A bus event pushed to subscribers that asked for `events` (the envelope as emitted: no secrets in it). */
export interface ControlBusEvent {
  event: 'bus';
  envelope: AnyTroupeEvent;
}

/** What `ping` answers. */
export interface PingResult {
  pid: number;
  sessionId: string;
  mode: 'looper' | 'interactive';
  looperState: 'IDLE' | 'RUNNING';
  /** Whether its DevHub has a model. */
  devhub: boolean;
}

/**
 * Longest line accepted on the socket, in UTF-16 units (a command with a long
 * task fits easily): a longer one is answered with an error and its connection
 * closed, without the server ever holding more than this of it.
 */
export const MAX_CONTROL_LINE_LENGTH = 1024 * 1024;
