import { defineEventGroup, serializedErrorSchema } from '@troupe/core';
import { z } from 'zod';

/** One attempt's figures, as the `best-of-n:*` events and the result carry them. */
export const bestOfNScorecardSchema = z.object({
  /** The attempt: its agent and its number among that agent's attempts (`claude-1`); its role in the ledger. */
  id: z.string(),
  /** The agent it ran: a registry entry or an adapter type (`claude`, `codex`, `acp:gemini`). */
  agent: z.string(),
  /**
   * How the attempt ended: `passed` or `failed` (its turn completed and the test command passed or failed; without a
   * test command, a completed turn passes), `error` (the turn or its workspace failed), `canceled` (stopped by
   * `firstPass`, the budget or the caller's signal), `not-started` (stopped before it began).
   */
  status: z.enum(['passed', 'failed', 'error', 'canceled', 'not-started']),
  /** Its turn completed and its test command passed (or there was none). */
  passed: z.boolean(),
  /** The test command ran in its workspace. */
  tested: z.boolean(),
  /** Tokens its turn spent, from the usage ledger (input + output = total). */
  tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }),
  /** Its cost in US dollars, from the usage ledger (the CLI's reported cost, or the price table). */
  costUsd: z.number(),
  /** From the start of its workspace to the end of its test run, in ms. */
  wallTimeMs: z.number(),
  /** The size of its diff against the base: files, lines added and removed. */
  diffstat: z.object({ files: z.number(), insertions: z.number(), deletions: z.number() }),
  /** Its workspace branch (`troupe/<name>`), once the workspace was made. */
  branch: z.string().optional(),
  /** Its workspace is kept after the run (the winner's, or `keep` asked for it). */
  kept: z.boolean(),
  /** It was chosen. */
  winner: z.boolean(),
  /** What the judge said of it. */
  reasons: z.string().optional(),
  /** The test command's end: exit code, duration and the tail of its output. */
  test: z.object({ exitCode: z.number().nullable(), durationMs: z.number(), outputTail: z.string() }).optional(),
  /** Why it did not pass, when it did not complete. */
  error: serializedErrorSchema.optional(),
});

/** One attempt's figures; see {@link bestOfNScorecardSchema}. */
export type BestOfNScorecard = z.infer<typeof bestOfNScorecardSchema>;

/** Payload schemas of the `best-of-n:*` events {@link bestOfN} emits on its bus. */
export const bestOfNEventSchemas = {
  /** A run began: its attempts, how it selects, and in which mode. */
  'best-of-n:run-started': z.object({
    runId: z.string(),
    repo: z.string(),
    attempts: z.array(z.object({ id: z.string(), agent: z.string() })),
    select: z.enum(['tests', 'judge', 'function']),
    mode: z.enum(['all', 'firstPass']),
    concurrency: z.number(),
    timestamp: z.number(),
  }),
  /** An attempt's workspace is ready and its agent's turn starts. */
  'best-of-n:attempt-started': z.object({
    runId: z.string(),
    id: z.string(),
    agent: z.string(),
    workspace: z.string(),
    branch: z.string(),
    timestamp: z.number(),
  }),
  /** An attempt ended (its turn, its diff and its test run), or was stopped; its scorecard so far (before selection). */
  'best-of-n:attempt-finished': z.object({ runId: z.string(), scorecard: bestOfNScorecardSchema, timestamp: z.number() }),
  /** The run ended: the winner (or `null`), the judge's reasons, every scorecard, and why it stopped early if it did. */
  'best-of-n:run-finished': z.object({
    runId: z.string(),
    winner: z.string().nullable(),
    reasons: z.string().optional(),
    /** `firstPass` (a candidate passed and the others were stopped), `budget`, `canceled` (the caller's signal), or absent. */
    stoppedBy: z.enum(['firstPass', 'budget', 'canceled']).optional(),
    scorecards: z.array(bestOfNScorecardSchema),
    durationMs: z.number(),
    timestamp: z.number(),
  }),
} as const;

/** Payload types of the `best-of-n:*` events. */
export type BestOfNEventPayloads = { [K in keyof typeof bestOfNEventSchemas]: z.infer<(typeof bestOfNEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `best-of-n:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends BestOfNEventPayloads {}
}

/** Registers the `best-of-n:*` schemas with core's event registry (idempotent; tolerant of another copy having done it). */
export const registerBestOfNEvents: () => void = /* @__PURE__ */ defineEventGroup('best-of-n', bestOfNEventSchemas);
