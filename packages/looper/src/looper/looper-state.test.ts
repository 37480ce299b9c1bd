import { InvalidStateError } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import {
  addPending,
  continueRun,
  createLooperSnapshot,
  finishRun,
  looperSnapshotSchema,
  recordCoderResult,
  recordReviewResult,
  requestStop,
  startRun,
  type LooperStepResult,
  type ReviewStepResult,
} from '../index';

const ok: LooperStepResult = { status: 'SUCCESS', output: 'done', durationMs: 1, timedOut: false };
const review: ReviewStepResult = { ...ok, report: { health: 'normal', summary: '', findings: [] }, reportSource: 'parsed' };

describe('Looper state machine', () => {
  it('goes IDLE → RUNNING (coder → review → judge → coder …) → IDLE, bumping the revision each time', () => {
    const idle = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 });
    expect(looperSnapshotSchema.parse(idle)).toEqual(idle);
    const running = startRun(idle, { task: 'T', runId: 'run-1', now: 1 });
    expect(running).toMatchObject({ state: 'RUNNING', step: 'coder', iteration: 1, currentTask: 'T', task: 'T', revision: 1, updatedAt: 1 });
    const reviewing = recordCoderResult(running, ok, 2);
    expect(reviewing).toMatchObject({ step: 'review', current: { coder: ok } });
    const judging = recordReviewResult(reviewing, review, 3);
    expect(judging.step).toBe('judge');
    const next = continueRun(judging, { decision: { type: 'continue', nextTask: 'T2', reason: 'r' }, source: 'rules', consumed: [], now: 4 });
    expect(next).toMatchObject({ step: 'coder', iteration: 2, currentTask: 'T2', task: 'T', current: {}, last: { iteration: 1, coder: ok, review, decisionSource: 'rules' } });
    const done = finishRun(recordReviewResult(recordCoderResult(next, ok, 5), review, 6), { outcome: 'terminated', reason: 'done', decision: { type: 'terminate', reason: 'done' }, source: 'model', now: 7 });
    expect(done).toMatchObject({
      state: 'IDLE',
      step: null,
      runId: null,
      revision: 7,
      last: { iteration: 2, decision: { type: 'terminate' }, decisionSource: 'model' },
      lastRun: { runId: 'run-1', task: 'T', outcome: 'terminated', reason: 'done', iterations: 2, endedAt: 7 },
    });
    expect(looperSnapshotSchema.parse(done)).toEqual(done);
    // The originals are untouched: transitions are pure.
    expect(idle.state).toBe('IDLE');
    expect(running.step).toBe('coder');
  });

  it('refuses transitions from the wrong state or step', () => {
    const idle = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 });
    const running = startRun(idle, { task: 'T', runId: 'run-1', now: 1 });
    expect(() => startRun(running, { task: 'U', runId: 'run-2', now: 2 })).toThrow(InvalidStateError);
    expect(() => startRun(running, { task: 'U', runId: 'run-2', now: 2 })).toThrow('Looper "looper" is RUNNING at step coder; expected IDLE');
    expect(() => requestStop(idle, 1)).toThrow('Looper "looper" is IDLE; expected RUNNING');
    expect(() => recordReviewResult(running, review, 2)).toThrow('expected RUNNING at step review');
    expect(() => finishRun(idle, { outcome: 'stopped', reason: 'x', now: 1 })).toThrow(InvalidStateError);
  });

  it('queues pending tasks in either state and removes only the consumed ones', () => {
    let s = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 });
    s = addPending(s, { id: 'a', task: 'A', addedAt: 0 }, 1);
    s = startRun(s, { task: 'T', runId: 'run-1', now: 2 });
    s = addPending(s, { id: 'b', task: 'B', addedAt: 3 }, 3);
    s = requestStop(s, 4);
    expect(s.stopRequested).toBe(true);
    s = recordReviewResult(recordCoderResult(s, ok, 5), review, 6);
    s = addPending(s, { id: 'c', task: 'C', addedAt: 7 }, 7); // added while JUDGE decides
    s = continueRun(s, { decision: { type: 'continue', nextTask: 'A and B', reason: 'r', consumedPending: [1, 2] }, source: 'model', consumed: ['a', 'b'], now: 8 });
    expect(s.pending.map((p) => p.task)).toEqual(['C']);
    s = finishRun(s, { outcome: 'stopped', reason: 'stop', now: 9 });
    expect(s).toMatchObject({ stopRequested: false, pending: [{ id: 'c' }], lastRun: { outcome: 'stopped', iterations: 2 } });
  });
});
