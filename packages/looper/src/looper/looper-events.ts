import { defineEventGroup } from '@troupe/core';
import { z } from 'zod';

const errorSchema = z.object({ name: z.string(), message: z.string(), code: z.string().optional() });

/** The Looper's two states (seed 000 §2): `IDLE ↔ RUNNING`. */
export const looperStateSchema = z.enum(['IDLE', 'RUNNING']);

/** The steps of one iteration, in order. */
export const looperStepSchema = z.enum(['coder', 'review', 'judge']);

/** How a run ended. */
export const looperRunOutcomeSchema = z.enum(['terminated', 'stopped', 'max-iterations', 'failed', 'budget-exceeded']);

const ids = {
  looperId: z.string(),
  /** The Looper's channel, so `bus.on('looper:…', fn, { channelId })` filters by Looper. */
  channelId: z.string(),
};

/**
 * Payload schemas of the Looper's bus events (`looper:*`). Registered with
 * core's event schema registry by {@link registerLooperEvents} (every Looper
 * calls it), so they parse and serialize like core's events.
 */
export const looperEventSchemas = {
  /** IDLE → RUNNING on start, RUNNING → IDLE when a run ends. */
  'looper:state-changed': z.object({
    ...ids,
    from: looperStateSchema,
    to: looperStateSchema,
    runId: z.string().nullable(),
    task: z.string().nullable(),
    reason: z.string().optional(),
  }),
  /** A command was handled (or refused); `reply` is the Looper's answer. */
  'looper:command': z.object({
    ...ids,
    command: z.enum(['start', 'stop', 'status', 'add_pending', 'merge', 'invalid']),
    accepted: z.boolean(),
    reply: z.string(),
  }),
  /** A run began, or was resumed from a checkpoint (`resumed`). Its work is charged to the run `<looperId>/<runId>`. */
  'looper:run-started': z.object({ ...ids, runId: z.string(), task: z.string(), resumed: z.boolean() }),
  /** A Coder, Review or JUDGE step began (it ends with `looper:step-completed`, or `looper:decision` for JUDGE). */
  'looper:step-started': z.object({ ...ids, runId: z.string(), iteration: z.number().int().positive(), step: looperStepSchema }),
  /** An iteration began. */
  'looper:iteration-started': z.object({
    ...ids,
    runId: z.string(),
    iteration: z.number().int().positive(),
    maxIterations: z.number().int().positive(),
    task: z.string(),
  }),
  /** The Coder or Review step ended (`FAILED` includes timeouts). */
  'looper:step-completed': z.object({
    ...ids,
    runId: z.string(),
    iteration: z.number().int().positive(),
    step: z.enum(['coder', 'review']),
    status: z.enum(['SUCCESS', 'FAILED']),
    durationMs: z.number(),
    timedOut: z.boolean(),
    health: z.enum(['normal', 'warning', 'critical']).optional(),
    error: errorSchema.optional(),
  }),
  /** JUDGE decided. `source` says whether the model or the rule policy decided. */
  'looper:decision': z.object({
    ...ids,
    runId: z.string(),
    iteration: z.number().int().positive(),
    source: z.enum(['model', 'rules']),
    type: z.enum(['continue', 'terminate']),
    reason: z.string(),
    nextTask: z.string().optional(),
    consumedPending: z.number().int().nonnegative(),
    /** How long the JUDGE step took. */
    durationMs: z.number().nonnegative().optional(),
  }),
  /** A task was queued with `add_pending`. */
  'looper:pending-added': z.object({ ...ids, task: z.string(), pendingCount: z.number().int().positive() }),
  /** A run ended. */
  'looper:run-finished': z.object({
    ...ids,
    runId: z.string(),
    outcome: looperRunOutcomeSchema,
    reason: z.string(),
    iterations: z.number().int().nonnegative(),
  }),
  /**
   * A `merge` command ended: the run's workspace branch was merged into `into` (`commit` is its new head), or it
   * conflicted (`conflicts`: the files; nothing was changed). Emitted with `isolation: 'worktree'` only.
   */
  'looper:workspace-merged': z.object({
    ...ids,
    runId: z.string(),
    branch: z.string(),
    into: z.string(),
    strategy: z.enum(['merge', 'rebase', 'squash']),
    ok: z.boolean(),
    commit: z.string().optional(),
    conflicts: z.array(z.string()).optional(),
  }),
  /** Writing a checkpoint failed; the loop goes on with its in-memory state. */
  'looper:checkpoint-failed': z.object({ ...ids, error: errorSchema }),
} as const;

/** Payload types of the `looper:*` events. */
export type LooperEventPayloads = { [K in keyof typeof looperEventSchemas]: z.infer<(typeof looperEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `looper:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends LooperEventPayloads {}
}

/**
 * Registers the `looper:*` payload schemas with core's event schema registry
 * (for `parseEvent` across processes). Idempotent, and tolerant of another
 * copy of this package having registered them first. Every Looper calls it;
 * the package itself has no import-time side effects.
 */
export const registerLooperEvents: () => void = /* @__PURE__ */ defineEventGroup('looper', looperEventSchemas);
