import { serializeError } from '@troupe/core/util';
import type { Judge } from '../judge/judge';
import { judgeDecisionSchema, type JudgeDecision } from '../judge/judge-decision';
import type { JudgeInput } from '../judge/judge-input';
import { decideByRules, type RuleJudgeOptions } from '../judge/rule-judge';
import { raceAbort, timeoutMessage } from './looper-abort';
import type { LooperJournal } from './looper-journal';
import { continueRun, type LooperSnapshot } from './looper-state';
import type { LooperStepResult, ReviewStepResult } from './looper-step-result';

/** How the Looper's JUDGE step decides. @internal */
export interface LooperJudgeSetup {
  judge: Judge;
  /** The rule policy: JUDGE's fallback when its model fails or times out. */
  rules: RuleJudgeOptions;
  timeoutMs: number;
}

/**
 * @internal The JUDGE step: decides on the iteration (the rule policy when
 * the judge fails or passes `timeoutMs`), then finishes the run (terminate,
 * the iteration limit, a requested stop) or starts the next iteration.
 * `signal` is the run's, `stepSignal` the step's (an immediate stop).
 */
export async function runJudgeStep(journal: LooperJournal, setup: LooperJudgeSetup, runId: string, signal: AbortSignal, stepSignal: AbortSignal): Promise<void> {
  const { texts } = journal;
  const s = journal.snapshot;
  const judgeStarted = journal.now();
  const input = looperJudgeInput(s);
  let decision: JudgeDecision;
  let source: 'model' | 'rules' = setup.judge.kind === 'rules' ? 'rules' : 'model';
  try {
    const timeout = AbortSignal.timeout(setup.timeoutMs);
    const judgeSignal = AbortSignal.any([signal, timeout, stepSignal]);
    decision = judgeDecisionSchema.parse(await raceAbort(setup.judge.decide(input, { signal: judgeSignal }), judgeSignal));
  } catch (error) {
    if (signal.aborted || journal.snapshot.stopNow) return;
    const message = timeoutMessage(error, setup.timeoutMs) ?? serializeError(error).message;
    journal.postAuto('judge-fallback', texts.auto.judgeFallback(message));
    decision = decideByRules(input, setup.rules);
    source = 'rules';
  }
  if (signal.aborted || journal.snapshot.runId !== runId || journal.snapshot.stopNow) return;
  const consumed = consumedPendingIds(decision, input, journal.snapshot.stopRequested);
  journal.postAuto('decision', texts.auto.decision(decision, consumed.length));
  journal.emit('looper:decision', {
    runId,
    iteration: s.iteration,
    source,
    type: decision.type,
    reason: decision.reason,
    ...(decision.type === 'continue' ? { nextTask: decision.nextTask } : {}),
    consumedPending: consumed.length,
    durationMs: Math.max(0, journal.now() - judgeStarted),
  });
  if (decision.type === 'terminate') return journal.finish('terminated', decision.reason, decision, source);
  if (s.iteration >= s.maxIterations) {
    return journal.finish('max-iterations', texts.reason.iterationLimit(s.iteration, s.maxIterations, decision.reason), decision, source);
  }
  if (journal.snapshot.stopRequested) return journal.finish('stopped', texts.reason.stoppedAfterIteration(s.iteration), decision, source);
  journal.update(continueRun(journal.snapshot, { decision, source, consumed, now: journal.now() }), { kind: 'decision', data: { decision, source } });
}

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
