import type { JudgeDecision } from '../judge/judge-decision';
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

/** The Looper's answer to `status` (seed 000 Test 2: "State: IDLE" / "State: RUNNING"). */
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
  s.pending.forEach((item, index) => lines.push(`${index + 1}. ${oneLine(item.task, 300)}`));
  return lines.join('\n');
}

