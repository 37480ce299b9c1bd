import type { JudgeDecision } from '../judge/judge-decision';
import type { PendingTask } from '../judge/judge-input';
import type { LooperSnapshot } from './looper-state';
import { truncateText, type LooperStepResult, type ReviewStepResult } from './looper-step-result';

/** The prefix of every progress message the Looper posts (seed 000: subscribers filter on it). */
export const AUTO_PREFIX = '[AUTO]';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function oneLine(text: string, max: number): string {
  return truncateText(text.replace(/\s+/g, ' ').trim(), max);
}

/** @internal `[AUTO]` texts, one function per step. */
export const autoText = {
  runStarted: (task: string, maxIterations: number) => `${AUTO_PREFIX} Loop started (up to ${maxIterations} iterations): ${oneLine(task, 500)}`,
  resumed: (s: LooperSnapshot) => `${AUTO_PREFIX} Resumed from checkpoint: iteration ${s.iteration}/${s.maxIterations}, step ${s.step}.`,
  iterationStarted: (iteration: number, maxIterations: number, task: string) =>
    `${AUTO_PREFIX} Iteration ${iteration}/${maxIterations} started: ${oneLine(task, 300)}`,
  coder: (result: LooperStepResult) =>
    result.status === 'SUCCESS'
      ? `${AUTO_PREFIX} Coder done (${seconds(result.durationMs)}): ${oneLine(result.output, 300) || '(no output)'}`
      : `${AUTO_PREFIX} Coder failed${result.timedOut ? ' (timed out)' : ''} (${seconds(result.durationMs)}): ${oneLine(result.error?.message ?? result.output, 300)}`,
  review: (result: ReviewStepResult) => {
    if (result.status === 'FAILED' || !result.report) {
      return `${AUTO_PREFIX} Review failed${result.timedOut ? ' (timed out)' : ''} (${seconds(result.durationMs)}): ${oneLine(result.error?.message ?? result.output, 300)}`;
    }
    const { health, findings, summary } = result.report;
    const detail = result.reportSource === 'fallback' ? 'the reviewer gave no structured report' : summary || findings[0]?.message || 'no details';
    return `${AUTO_PREFIX} Review done: health ${health}, ${findings.length} finding${findings.length === 1 ? '' : 's'} — ${oneLine(detail, 300)}`;
  },
  judgeFallback: (message: string) => `${AUTO_PREFIX} JUDGE model failed (${oneLine(message, 200)}); applied the rule policy.`,
  decision: (decision: JudgeDecision, consumed: number) =>
    decision.type === 'terminate'
      ? `${AUTO_PREFIX} JUDGE: terminate — ${oneLine(decision.reason, 400)}`
      : `${AUTO_PREFIX} JUDGE: continue — ${oneLine(decision.reason, 400)}${consumed > 0 ? ` (folded in ${consumed} pending task${consumed === 1 ? '' : 's'})` : ''} Next task: ${oneLine(decision.nextTask, 300)}`,
  finished: (outcome: string, iterations: number, reason: string) =>
    `${AUTO_PREFIX} Loop finished (${outcome}) after ${iterations} iteration${iterations === 1 ? '' : 's'}: ${oneLine(reason, 400)}`,
};

/** Pending tasks a `status` reply lists one by one; the rest are counted, so the reply stays short however long the queue. */
export const STATUS_PENDING_SHOWN = 50;

/**
 * The Looper's answer to `status` (seed 000 Test 2: "State: IDLE" / "State: RUNNING"):
 * state, task and iteration, last results, and the pending queue (the first
 * {@link STATUS_PENDING_SHOWN} tasks, then a count of the others).
 */
export function formatLooperStatus(s: LooperSnapshot): string {
  const lines = [`State: ${s.state}`];
  if (s.state === 'RUNNING') {
    lines.push(`Task: ${oneLine(s.currentTask ?? '', 500)}`);
    lines.push(`Iteration: ${s.iteration}/${s.maxIterations} (step: ${s.step})`);
    if (s.stopRequested) lines.push('Stop requested: the run ends after the current step.');
  } else if (s.lastRun) {
    lines.push(`Last run: ${s.lastRun.outcome} after ${s.lastRun.iterations} iteration(s) — ${oneLine(s.lastRun.reason, 300)}`);
  }
  if (s.last) {
    const review = s.last.review.status === 'SUCCESS' && s.last.review.report
      ? `${s.last.review.report.health} (${s.last.review.report.findings.length} finding(s))`
      : 'FAILED';
    const decision = s.last.decision ? `${s.last.decision.type} — ${oneLine(s.last.decision.reason, 200)}` : 'none';
    lines.push(`Last results (iteration ${s.last.iteration}): Coder ${s.last.coder.status}; Review ${review}; JUDGE ${decision}`);
  }
  lines.push(`Pending (${s.pending.length}):${s.pending.length === 0 ? ' none' : ''}`);
  const shown = Math.min(s.pending.length, STATUS_PENDING_SHOWN);
  for (let index = 0; index < shown; index++) lines.push(`${index + 1}. ${oneLine((s.pending[index] as PendingTask).task, 300)}`);
  if (s.pending.length > shown) lines.push(`… and ${s.pending.length - shown} more (oldest first; JUDGE sees them all)`);
  return lines.join('\n');
}

