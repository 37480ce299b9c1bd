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
 */
export const controlRequestSchema = z.discriminatedUnion('op', [
  z.object({ id: z.number().int(), op: z.literal('ping') }),
  z.object({ id: z.number().int(), op: z.literal('looper'), input: z.string() }),
  z.object({ id: z.number().int(), op: z.literal('devhub'), input: z.string() }),
  z.object({ id: z.number().int(), op: z.literal('subscribe'), after: z.record(z.string(), z.number().int().nonnegative()).optional(), events: z.boolean().optional() }),
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

/** Longest line accepted on the socket (a command with a long task fits easily). */
export const MAX_CONTROL_LINE_BYTES = 1024 * 1024;
