import { z } from 'zod';

/** How `best-of-n` chose the attempt that was graded, kept in the trial record so a reader knows what was compared. */
export const evalSelectionSchema = z.object({
  /**
   * `check`: by the task's visible `checkCommand` (the passing attempt with the smallest diff; none passing, none
   * chosen); `smallest-diff`: the task has no visible check, so the completed attempt with the smallest non-empty
   * diff. The hidden tests never take part.
   */
  by: z.enum(['check', 'smallest-diff']),
  /** Attempts made. */
  attempts: z.number().int().positive(),
  /** The chosen attempt's id (`claude-2`), or null when none was chosen (the workspace is then graded unchanged). */
  winner: z.string().nullable(),
  /** With `by: 'check'`: how many attempts passed the visible check. */
  passedCheck: z.number().int().nonnegative().optional(),
});

/** How `best-of-n` chose the attempt that was graded: see {@link evalSelectionSchema}. */
export type EvalSelection = z.infer<typeof evalSelectionSchema>;

/**
 * One trial as the ledger keeps it and the JSON report lists it. `pass` and `fail` are the agent's result, read
 * from the grading command; `error` is a trial the eval could not judge (the task's setup failed, its grading
 * command is missing, the agent could not start) and is left out of pass rates: it is not the agent's failure.
 */
export const evalTrialRecordSchema = z.object({
  task: z.string(),
  /** The configuration's agent id. */
  agent: z.string(),
  mode: z.string(),
  /** 0-based trial number. */
  trial: z.number().int().nonnegative(),
  status: z.enum(['pass', 'fail', 'error']),
  /** Why it failed or could not be judged (the grading exit, the agent's time limit, the setup error). */
  message: z.string().optional(),
  /** How the agent's last turn ended, when it ran. */
  agentStatus: z.enum(['completed', 'failed', 'canceled', 'timed-out']).optional(),
  /** Agent turns the mode ran (a `looper` trial: Coder and Review turns; `best-of-n`: every attempt's). */
  turns: z.number().int().nonnegative(),
  /** Rounds (Coder → Review → JUDGE iterations) of a `looper` trial. */
  rounds: z.number().int().nonnegative().optional(),
  /** How a `best-of-n` trial chose the attempt that was graded (never by the hidden tests). */
  selection: evalSelectionSchema.optional(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  /** Cost in US dollars (reported by the CLI, else from the price table); null when no price was known. */
  costUsd: z.number().nonnegative().nullable(),
  /** Wall time of the whole trial: workspace, agent, grading. */
  wallMs: z.number().nonnegative(),
  /** The agent's diff against the starting commit (taken before the hidden tests were copied in). */
  diff: z.string(),
  /** The W3C trace id the trial's spans carry (`@troupe/otel`), to find its trace. */
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  /** When the trial started (ISO 8601). */
  startedAt: z.string(),
  /** The end of the grading command's output (stdout then stderr), for reading why a trial failed. */
  gradeOutput: z.string(),
});

/** One trial of an eval: see {@link evalTrialRecordSchema}. */
export type EvalTrialRecord = z.infer<typeof evalTrialRecordSchema>;

/** Which trial: the key a trial's record is kept under, so an interrupted eval resumes where it stopped. */
export interface EvalTrialKey {
  task: string;
  agent: string;
  mode: string;
  trial: number;
}

/** The store key of a trial (each part URI-encoded, so no task or agent name can collide with another). */
export function evalTrialStoreKey(key: EvalTrialKey): string {
  return [key.task, key.agent, key.mode, String(key.trial)].map(encodeURIComponent).join('/');
}
