import { defineEventGroup } from '@troupe/core';
import { z } from 'zod';

/** Payload schemas of the `acp:*` events an ACP adapter emits on its `eventBus`. */
export const acpEventSchemas = {
  /** The agent asked permission to run a tool; the `canUseTool` callback is being asked. */
  'acp:permission-requested': z.object({
    adapterId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    title: z.string().optional(),
    kind: z.string().optional(),
    /** The choices the agent offered (`allow_once`, `allow_always`, `reject_once`, `reject_always`). */
    options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() })),
  }),
  /** The answer given to the agent. */
  'acp:permission-decided': z.object({
    adapterId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    /** `allow` / `deny` as decided, or `cancelled` (no matching option, the turn ended, or the callback threw). */
    decision: z.enum(['allow', 'deny', 'cancelled']),
    /** The option chosen, when one was. */
    optionId: z.string().optional(),
    /** Why it was denied or cancelled, when known. */
    message: z.string().optional(),
  }),
} as const;

/** Payload types of the `acp:*` events. */
export type AcpEventPayloads = { [K in keyof typeof acpEventSchemas]: z.infer<(typeof acpEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `acp:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends AcpEventPayloads {}
}

/** Registers the `acp:*` schemas with core's event registry (idempotent; tolerant of another copy having done it). */
export const registerAcpEvents: () => void = /* @__PURE__ */ defineEventGroup('acp', acpEventSchemas);
