import type { JudgeDecision } from '../judge/judge-decision';
import type { JudgeInput } from '../judge/judge-input';
import type { LooperSnapshot } from './looper-state';
import type { LooperStepResult, ReviewStepResult } from './looper-step-result';

/** What JUDGE decides on: the run's task and iteration, the last Coder and Review results, and the pending queue. */
export function looperJudgeInput(snapshot: LooperSnapshot): JudgeInput {
  return {
    currentTask: snapshot.currentTask ?? '',
    iteration: snapshot.iteration,
    maxIterations: snapshot.maxIterations,
    coder: snapshot.current.coder as LooperStepResult,
    review: snapshot.current.review as ReviewStepResult,
    // A copy: tasks queued while JUDGE decides are appended to the live queue, not to what JUDGE saw.
    pending: snapshot.pending.slice(),
  };
}

/**
 * The ids of the pending tasks a `continue` decision takes up (its
 * 1-based `consumedPending` into what JUDGE saw). Pending tasks leave the
 * queue only when the next iteration takes them up: none at the iteration
 * limit, none when a stop was requested.
 */
export function consumedPendingIds(decision: JudgeDecision, input: JudgeInput, stopRequested: boolean): string[] {
  if (decision.type !== 'continue' || input.iteration >= input.maxIterations || stopRequested) return [];
  return (decision.consumedPending ?? []).map((n) => input.pending[n - 1]?.id).filter((id): id is string => id !== undefined);
}
