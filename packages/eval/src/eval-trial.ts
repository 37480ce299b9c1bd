import { randomBytes } from 'node:crypto';
import { EventBus, withEventScope } from '@troupe/core';
import { AbortError } from '@troupe/core/errors';
import { UsageLedger } from '@troupe/usage';
import { runInWorkspace, workspaceResult } from '@troupe/worktree';
import { gradeTrial, type EvalGrade, type EvalHiddenTestsCopier } from './eval-grade';
import type { EvalAgent, EvalMode, EvalModeOutcome } from './eval-mode';
import type { EvalTask } from './eval-task';
import type { EvalTaskRepo } from './eval-task-repo';
import type { EvalTrialKey, EvalTrialRecord } from './eval-trial-record';

/** What one trial needs. */
export interface EvalTrialInput {
  key: EvalTrialKey;
  task: EvalTask;
  /** The task's starting repository, or why it could not be made (every trial of the task is then an error). */
  repo: EvalTaskRepo | Error;
  agent: EvalAgent;
  mode: EvalMode;
  /** Keep each trial's workspace folder afterwards (to look at what the agent did). */
  keepWorkspaces: boolean;
  /**
   * Lays the hidden tests over the workspace at grading time, instead of copying `task.hiddenDir`: a queue worker
   * holds them in memory until then, so no file of them exists on its disk while the agent works.
   */
  copyHiddenTests?: EvalHiddenTestsCopier;
  signal: AbortSignal;
}

/**
 * Runs one trial and resolves with its record (see {@link runEvalTrial}, the default): the seam `runEval({ runTrial })`
 * takes to run trials elsewhere, e.g. on queue workers (`createQueuedEvalTrialRunner` of `@troupe/queue-bullmq`).
 * It must reject only with an `AbortError` when `input.signal` aborted, or when the trial could not be run at all.
 */
export type EvalTrialRunner = (input: EvalTrialInput) => Promise<EvalTrialRecord>;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one trial: a fresh workspace from the task's starting commit (its setup command run there), the mode's
 * attempt inside a trace of its own, the agent's diff, then the hidden tests copied in and the grading command.
 * Resolves with the trial's record whatever happened to the agent; rejects only with an `AbortError` when
 * `signal` aborted (an interrupted trial has no outcome, and runs again when the eval resumes).
 */
export async function runEvalTrial(input: EvalTrialInput): Promise<EvalTrialRecord> {
  const { key, task, agent, mode, signal } = input;
  const started = Date.now();
  const traceId = randomBytes(16).toString('hex');
  const eventBus = new EventBus();
  const ledger = new UsageLedger({ eventBus });
  let outcome: EvalModeOutcome | undefined;
  let grade: EvalGrade | undefined;
  let diff = '';
  let error: string | undefined;
  try {
    if (input.repo instanceof Error) throw input.repo;
    const { repo, base } = input.repo;
    await runInWorkspace(
      {
        repo,
        ...(base !== undefined ? { base } : {}),
        ...(task.setupCommand ? { setup: { command: task.setupCommand } } : {}),
        keep: input.keepWorkspaces ? 'always' : 'never',
        owner: `eval:${key.agent}/${key.mode}`,
        signal,
      },
      async (workspace) => {
        const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
        outcome = await withEventScope({ traceContext: { traceparent }, run: { kind: 'eval', id: `${key.task}/${key.agent}/${key.mode}/${key.trial}` } }, () =>
          mode.run(task, workspace, agent, signal, { trial: key, ledger, eventBus }),
        );
        AbortError.throwIfAborted(signal, 'The eval trial');
        diff = (await workspaceResult(workspace, { signal })).diff;
        grade = await gradeTrial(task, workspace.path, signal, input.copyHiddenTests);
      },
    );
  } catch (caught) {
    if (signal.aborted) throw caught instanceof AbortError ? caught : new AbortError('The eval trial was aborted', { cause: caught });
    error = errorMessage(caught);
  } finally {
    ledger.dispose();
  }
  const totals = ledger.totals();
  const status = error !== undefined ? 'error' : grade!.status;
  const message = error ?? grade?.message ?? (outcome?.agentStatus !== 'completed' ? outcome?.message : undefined);
  return {
    ...key,
    status,
    ...(message !== undefined ? { message } : {}),
    ...(outcome?.agentStatus ? { agentStatus: outcome.agentStatus } : {}),
    turns: outcome?.turns ?? 0,
    ...(outcome?.rounds !== undefined ? { rounds: outcome.rounds } : {}),
    ...(outcome?.selection ? { selection: outcome.selection } : {}),
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    costUsd: totals.unpricedRecords > 0 ? null : totals.costUsd,
    wallMs: Date.now() - started,
    diff,
    traceId,
    startedAt: new Date(started).toISOString(),
    gradeOutput: grade?.output ?? '',
  };
}
