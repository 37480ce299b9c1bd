// The Looper snapshot's schema, apart from the functions that change a snapshot (looper-state.ts): a checkpoint
// store loads it only to check a checkpoint it reads, so commands that find none never load zod.
import { serializedErrorSchema } from '@troupe/core';
import { z } from 'zod';
import { judgeDecisionSchema } from '../judge/judge-decision';
import { looperRunOutcomeSchema, looperStateSchema, looperStepSchema } from './looper-events';
import { reviewReportSchema } from './looper-review-report';

/** The Looper's state: `IDLE` or `RUNNING`. */
export type LooperState = z.infer<typeof looperStateSchema>;
/** A step of an iteration: `coder`, `review` or `judge`. */
export type LooperStep = z.infer<typeof looperStepSchema>;
/** How a run ended. */
export type LooperRunOutcome = z.infer<typeof looperRunOutcomeSchema>;

const pendingTaskSchema = z.object({ id: z.string(), task: z.string(), addedAt: z.number() });

const stepResultSchema = z.object({
  status: z.enum(['SUCCESS', 'FAILED']),
  output: z.string(),
  durationMs: z.number(),
  timedOut: z.boolean(),
  error: serializedErrorSchema.optional(),
  failureKind: z.enum(['fixable', 'environment']).optional(),
});

const reviewStepResultSchema = stepResultSchema.extend({
  report: reviewReportSchema.optional(),
  reportSource: z.enum(['parsed', 'fallback']).optional(),
});

const decisionSourceSchema = z.enum(['model', 'rules']);

const diffstatSchema = z.object({
  files: z.array(z.object({ file: z.string(), insertions: z.number(), deletions: z.number() })),
  insertions: z.number(),
  deletions: z.number(),
});

/** The workspace of a run with `isolation: 'worktree'`: where it is, what it holds at the end, and its merge. */
export const looperWorkspaceSchema = z.object({
  /** The run it belongs to. */
  runId: z.string(),
  name: z.string(),
  path: z.string(),
  branch: z.string(),
  baseCommit: z.string(),
  /** The checkout it was made from. */
  repo: z.string(),
  /** The branch that checkout was on when the run started (`''` on a detached `HEAD`): the default target of `merge`. */
  startBranch: z.string(),
  setupFiles: z.array(z.string()).optional(),
  /** Set once the run ended: the branch's head (leftovers committed) and what changed. */
  result: z.object({ headCommit: z.string(), committed: z.boolean(), diffstat: diffstatSchema }).optional(),
  /** The agent wrote outside its workspace (the parent checkout changed during the run): what changed. */
  escaped: z.string().optional(),
  /** Set once merged. */
  merged: z.object({ into: z.string(), strategy: z.enum(['merge', 'rebase', 'squash']), commit: z.string() }).optional(),
});

/** A run's workspace, as the Looper's state records it (see {@link looperWorkspaceSchema}). */
export type LooperWorkspace = z.infer<typeof looperWorkspaceSchema>;

/**
 * Everything the Looper knows, as one JSON value: what a checkpoint holds
 * and what `status` reports. A Looper on a durable store resumes a run from
 * it (`step` says where; `current` holds the results of the iteration in
 * progress).
 */
export const looperSnapshotSchema = z.object({
  version: z.literal(1),
  looperId: z.string(),
  state: looperStateSchema,
  /** Bumped on every change; orders checkpoints and history entries. */
  revision: z.number().int().nonnegative(),
  /** Id of the run in progress (RUNNING only). */
  runId: z.string().nullable(),
  /** The task the run started with. */
  task: z.string().nullable(),
  /** The task of the current iteration (JUDGE's `nextTask` after the first). */
  currentTask: z.string().nullable(),
  /** 1-based iteration in progress; 0 before the first run. */
  iteration: z.number().int().nonnegative(),
  maxIterations: z.number().int().positive(),
  /** The step running (or next to run) while RUNNING; null when IDLE. */
  step: looperStepSchema.nullable(),
  /** A stop was requested: the run ends after the current iteration (Review and JUDGE run), or now with `stopNow`. */
  stopRequested: z.boolean(),
  /** The stop requested is immediate: the step in progress is canceled. */
  stopNow: z.boolean().optional(),
  /** Tasks queued with `add_pending`, oldest first. */
  pending: z.array(pendingTaskSchema),
  /** Results of the iteration in progress. */
  current: z.object({ coder: stepResultSchema.optional(), review: reviewStepResultSchema.optional() }),
  /** The last complete iteration and JUDGE's decision on it. */
  last: z
    .object({
      iteration: z.number().int().positive(),
      coder: stepResultSchema,
      review: reviewStepResultSchema,
      decision: judgeDecisionSchema.nullable(),
      decisionSource: decisionSourceSchema.nullable(),
    })
    .nullable(),
  /** How the previous run ended. */
  lastRun: z
    .object({
      runId: z.string(),
      task: z.string(),
      outcome: looperRunOutcomeSchema,
      reason: z.string(),
      iterations: z.number().int().nonnegative(),
      endedAt: z.number(),
    })
    .nullable(),
  /** With `isolation: 'worktree'`: the workspace of the run in progress, or of the last one. */
  workspace: looperWorkspaceSchema.optional(),
  /** Milliseconds since the epoch of the last change. */
  updatedAt: z.number(),
});

/** The Looper's state as plain data (see {@link looperSnapshotSchema}). */
export type LooperSnapshot = z.infer<typeof looperSnapshotSchema>;

