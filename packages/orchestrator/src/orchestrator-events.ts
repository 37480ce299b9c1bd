import { defineEventGroup, serializedErrorSchema } from '@troupe/core';
import { z } from 'zod';

const statusSchema = z.enum(['idle', 'running', 'forking', 'waiting', 'completed', 'error', 'terminated']);
const agentFields = {
  agentId: z.string(),
  parentId: z.string().optional(),
  rootId: z.string(),
  kind: z.enum(['main', 'sub']),
  strategyType: z.string(),
};

/** Payload schemas of the `orchestrator:*` bus events. */
export const orchestratorEventSchemas = {
  /** `createAgent` (or a fork, or a retry) created an agent. */
  'orchestrator:agent-created': z.object({
    ...agentFields,
    attempt: z.number().int().positive(),
    retryOf: z.string().optional(),
    task: z.string().optional(),
  }),
  /** An agent moved in the status machine (seed 004's `onAgentStatusChanged`). */
  'orchestrator:agent-status-changed': z.object({
    ...agentFields,
    from: statusSchema,
    to: statusSchema,
    reason: z.string().optional(),
    error: serializedErrorSchema.optional(),
    timestamp: z.number(),
  }),
  /** An agent answered and now waits for the user's next message (status `waiting`; see `sendMessage`). */
  'orchestrator:agent-waiting': z.object({
    agentId: z.string(),
    parentId: z.string().optional(),
    rootId: z.string(),
    /** Its answer. */
    text: z.string(),
    stopReason: z.enum(['turn-end', 'end-marker', 'task-finish', 'iteration-limit']),
    /** Messages in its conversation now. */
    messages: z.number().int().nonnegative(),
  }),
  /** A message was sent to a waiting agent (`sendMessage`); it runs its next turn once it has a slot. */
  'orchestrator:agent-input': z.object({
    agentId: z.string(),
    /** The text of the message(s) sent. */
    text: z.string(),
    /** Messages sent to it so far. */
    inputs: z.number().int().positive(),
  }),
  /** A session was resumed from its store (`resume()`). */
  'orchestrator:session-resumed': z.object({
    sessionId: z.string(),
    agents: z.number().int().nonnegative(),
    restarted: z.array(z.string()),
    waiting: z.array(z.string()),
    forks: z.array(z.string()),
  }),
  /** Storing the session failed (the agents go on; `flush()` rejects with the error). */
  'orchestrator:session-write-failed': z.object({
    sessionId: z.string(),
    operation: z.string(),
    agentId: z.string().optional(),
    error: serializedErrorSchema,
  }),
  /** An agent forked sub-agents and now waits for them. */
  'orchestrator:fork-started': z.object({ forkId: z.string(), parentId: z.string(), agentIds: z.array(z.string()) }),
  /** Every sub-agent of a fork ended; its results were merged back into the parent. */
  'orchestrator:fork-completed': z.object({
    forkId: z.string(),
    parentId: z.string(),
    succeeded: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    durationMs: z.number(),
  }),
  /** A failed sub-agent is run again under its strategy's retry policy. */
  'orchestrator:agent-retry-scheduled': z.object({
    agentId: z.string(),
    parentId: z.string(),
    attempt: z.number().int().positive(),
    maxRetries: z.number().int().nonnegative(),
    delayMs: z.number().nonnegative(),
    error: serializedErrorSchema,
  }),
  /** A piece of an agent's visible text or thinking, as it streams. */
  'orchestrator:text-delta': z.object({ agentId: z.string(), text: z.string(), section: z.enum(['none', 'thinking', 'response']) }),
  /** An agent's tool call finished (a failure is a result too). */
  'orchestrator:tool-executed': z.object({
    agentId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    source: z.enum(['native', 'tag']),
    success: z.boolean(),
    durationMs: z.number(),
  }),
  /** Malformed `<thinking>`/`<response>`/`<tool_call>` markup in an agent's text (reported, not fatal). */
  'orchestrator:markup-malformed': z.object({
    agentId: z.string(),
    reason: z.enum(['nested-section', 'unmatched-closing-tag', 'unclosed-section', 'unclosed-tool-call', 'invalid-tool-call']),
    message: z.string(),
    raw: z.string(),
    iteration: z.number().int().positive(),
  }),
} as const;

/** Payload types of the `orchestrator:*` events. */
export type OrchestratorEventPayloads = { [K in keyof typeof orchestratorEventSchemas]: z.infer<(typeof orchestratorEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `orchestrator:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends OrchestratorEventPayloads {}
}

/**
 * Registers the `orchestrator:*` payload schemas with core's event schema
 * registry (for `parseEvent` across processes). Idempotent, and tolerant of
 * another copy of this package having registered them first. Every
 * `AgentOrchestrator` calls it; importing the package has no side effect.
 */
export const registerOrchestratorEvents: () => void = /* @__PURE__ */ defineEventGroup('orchestrator', orchestratorEventSchemas);
