import { z } from 'zod';
import { TOOL_KINDS } from './tool-use-request';

/** Who or what settled a tool call. */
export const toolDecisionSourceSchema = z.enum(['policy', 'default', 'callback', 'hook', 'timeout', 'error', 'aborted', 'approval']);

/**
 * An audit record of one decision: who or what decided, when, the tool, a hash of its input (never the input: it can
 * hold secrets), and the reason, redacted. Stored and emitted as `permission:decided`.
 */
export const toolDecisionRecordSchema = z.object({
  /** The call's id. */
  id: z.string(),
  agent: z.string(),
  adapter: z.string(),
  tool: z.string(),
  kind: z.enum(TOOL_KINDS as [string, ...string[]]),
  behavior: z.enum(['allow', 'deny', 'defer']),
  decidedBy: toolDecisionSourceSchema,
  /** The policy rule that matched, if one did. */
  rule: z.string().optional(),
  /** sha256 of the input's JSON (the input as it will run, after a change). */
  inputHash: z.string(),
  /** The input was changed by the callback or a hook. */
  inputChanged: z.boolean(),
  /** Why: the deny message the model sees, or the allow reason. Secrets redacted. */
  reason: z.string().optional(),
  sessionId: z.string().optional(),
  /** Milliseconds since the epoch. */
  at: z.number(),
  /** Milliseconds from the request to the decision. */
  durationMs: z.number(),
});

/** Payload schemas of the permission events. */
export const permissionEventSchemas = {
  /** A tool call was decided (allowed, denied or deferred): the audit record. */
  'permission:decided': toolDecisionRecordSchema,
  /** An observing hook (`postToolUse`, `stop`, `subagentStart`, `subagentStop`) threw or rejected; the turn went on. */
  'permission:hook-failed': z.object({
    agent: z.string(),
    adapter: z.string(),
    hook: z.enum(['postToolUse', 'stop', 'subagentStart', 'subagentStop']),
    /** The error's message, secrets redacted. */
    message: z.string(),
    /** The call the hook was about, for `postToolUse` and the sub-agent hooks. */
    toolCallId: z.string().optional(),
    sessionId: z.string().optional(),
  }),
} as const;
