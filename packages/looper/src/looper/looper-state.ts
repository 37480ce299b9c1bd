import { InvalidStateError } from '@troupe/core/errors';
import type { JudgeDecision } from '../judge/judge-decision';
import type { PendingTask } from '../judge/judge-input';
import type { LooperRunOutcome, LooperSnapshot, LooperState, LooperStep, LooperWorkspace } from './looper-state-schema';
import type { LooperStepResult, ReviewStepResult } from './looper-step-result';

export type { LooperRunOutcome, LooperSnapshot, LooperState, LooperStep, LooperWorkspace } from './looper-state-schema';

/** The state of a new Looper. */
export function createLooperSnapshot(options: { looperId: string; maxIterations: number; now: number }): LooperSnapshot {
  return {
    version: 1,
    looperId: options.looperId,
    state: 'IDLE',
    revision: 0,
    runId: null,
    task: null,
    currentTask: null,
    iteration: 0,
    maxIterations: options.maxIterations,
    step: null,
    stopRequested: false,
    pending: [],
    current: {},
    last: null,
    lastRun: null,
    updatedAt: options.now,
  };
}

function next(snapshot: LooperSnapshot, changes: Partial<LooperSnapshot>, now: number): LooperSnapshot {
  return { ...snapshot, ...changes, revision: snapshot.revision + 1, updatedAt: now };
}

function expect(snapshot: LooperSnapshot, state: LooperState, step?: LooperStep): void {
  if (snapshot.state !== state || (step !== undefined && snapshot.step !== step)) {
    const where = snapshot.state === 'RUNNING' ? `RUNNING at step ${snapshot.step}` : 'IDLE';
    throw new InvalidStateError(`Looper "${snapshot.looperId}" is ${where}; expected ${state}${step ? ` at step ${step}` : ''}`);
  }
}

/** IDLE → RUNNING: iteration 1 of `task` begins with the Coder. */
export function startRun(snapshot: LooperSnapshot, options: { task: string; runId: string; now: number }): LooperSnapshot {
  expect(snapshot, 'IDLE');
  return next(
    snapshot,
    { state: 'RUNNING', runId: options.runId, task: options.task, currentTask: options.task, iteration: 1, step: 'coder', stopRequested: false, current: {} },
    options.now,
  );
}

/**
 * Marks a RUNNING Looper to stop after its current iteration (Review and
 * JUDGE still run), or at once with `immediate`.
 */
export function requestStop(snapshot: LooperSnapshot, now: number, options: { immediate?: boolean } = {}): LooperSnapshot {
  expect(snapshot, 'RUNNING');
  return next(snapshot, { stopRequested: true, ...(options.immediate || snapshot.stopNow ? { stopNow: true } : {}) }, now);
}

/** Queues a pending task (in either state). */
export function addPending(snapshot: LooperSnapshot, item: PendingTask, now: number): LooperSnapshot {
  return next(snapshot, { pending: [...snapshot.pending, item] }, now);
}

/**
 * @internal Like {@link addPending}, but appends to `snapshot.pending` in
 * place, so queueing costs the same however long the queue is. The new
 * snapshot shares the array with `snapshot`: only for the owner of both
 * (the Looper), which hands the array to nothing that expects it unchanged.
 */
export function appendPendingInPlace(snapshot: LooperSnapshot, item: PendingTask, now: number): LooperSnapshot {
  snapshot.pending.push(item);
  return next(snapshot, {}, now);
}

/** Records the Coder's result; the Review step is next. */
export function recordCoderResult(snapshot: LooperSnapshot, result: LooperStepResult, now: number): LooperSnapshot {
  expect(snapshot, 'RUNNING', 'coder');
  return next(snapshot, { step: 'review', current: { coder: result } }, now);
}

/** Records the Review's result; JUDGE is next. */
export function recordReviewResult(snapshot: LooperSnapshot, result: ReviewStepResult, now: number): LooperSnapshot {
  expect(snapshot, 'RUNNING', 'review');
  return next(snapshot, { step: 'judge', current: { ...snapshot.current, review: result } }, now);
}

function completedIteration(snapshot: LooperSnapshot, decision: JudgeDecision | null, source: 'model' | 'rules' | null): LooperSnapshot['last'] {
  const { coder, review } = snapshot.current;
  if (!coder || !review) return snapshot.last;
  return { iteration: snapshot.iteration, coder, review, decision, decisionSource: source };
}

/**
 * JUDGE said continue: the next iteration runs `nextTask`, and the pending
 * tasks whose ids are in `consumed` leave the queue (others stay, including
 * any added while JUDGE was deciding).
 */
export function continueRun(
  snapshot: LooperSnapshot,
  options: { decision: Extract<JudgeDecision, { type: 'continue' }>; source: 'model' | 'rules'; consumed: readonly string[]; now: number },
): LooperSnapshot {
  expect(snapshot, 'RUNNING', 'judge');
  const consumed = new Set(options.consumed);
  return next(
    snapshot,
    {
      last: completedIteration(snapshot, options.decision, options.source),
      iteration: snapshot.iteration + 1,
      currentTask: options.decision.nextTask,
      step: 'coder',
      current: {},
      pending: snapshot.pending.filter((item) => !consumed.has(item.id)),
    },
    options.now,
  );
}

/** RUNNING → IDLE: the run ended (terminated, stopped, at its limit, or failed). Pending tasks stay queued. */
export function finishRun(
  snapshot: LooperSnapshot,
  options: { outcome: LooperRunOutcome; reason: string; decision?: JudgeDecision; source?: 'model' | 'rules'; now: number },
): LooperSnapshot {
  expect(snapshot, 'RUNNING');
  return next(
    snapshot,
    {
      state: 'IDLE',
      last: completedIteration(snapshot, options.decision ?? null, options.source ?? null),
      lastRun: {
        runId: snapshot.runId ?? 'unknown',
        task: snapshot.task ?? '',
        outcome: options.outcome,
        reason: options.reason,
        iterations: snapshot.iteration,
        endedAt: options.now,
      },
      runId: null,
      step: null,
      stopRequested: false,
      stopNow: undefined,
      current: {},
    },
    options.now,
  );
}

/** Records the run's workspace (made, finished or merged), in either state. */
export function recordWorkspace(snapshot: LooperSnapshot, workspace: LooperWorkspace, now: number): LooperSnapshot {
  return next(snapshot, { workspace }, now);
}
