import { bestOfNEventSchemas } from '@troupe/best-of-n';
import { describe, expect, it } from 'vitest';
import { emitBestOfNActivity, foldDashboardInputs as fold, recordDashboardInputs } from '../testing/dashboard-test-kit';
import { applyDashboardInput, createDashboardState } from '../index';

describe('best-of-n events in the dashboard state', () => {
  const inputs = recordDashboardInputs((bus) => emitBestOfNActivity(bus, { start: 7_000 }));

  it('forwards the best-of-n:* events to the page, with payloads as @troupe/best-of-n defines them', () => {
    expect(inputs.map((input) => input.type)).toEqual([
      'best-of-n:run-started',
      'best-of-n:attempt-started',
      'best-of-n:attempt-started',
      'best-of-n:attempt-started',
      'best-of-n:attempt-finished',
      'best-of-n:attempt-finished',
      'best-of-n:attempt-finished',
      'workspace:finished',
      'best-of-n:run-finished',
    ]);
    for (const input of inputs) {
      const schema = bestOfNEventSchemas[input.type as keyof typeof bestOfNEventSchemas];
      if (schema) expect(schema.safeParse(input.payload).error).toBeUndefined();
    }
  });

  it("shows each attempt's status, tests, tokens, cost, wall time, diffstat, the winner and the judge's reasons", () => {
    const [run, ...others] = fold(inputs).bestOfN;
    expect(others).toEqual([]);
    expect(run).toMatchObject({ runId: 'bon-run-1', repo: '/repo', select: 'judge', mode: 'all', concurrency: 2, status: 'finished', startedAt: 7_000, endedAt: 7_030, durationMs: 70_000, winner: 'claude-1', reasons: 'Smallest diff that passes; keeps the parser pure.' });
    expect(run?.attempts.map((a) => [a.id, a.agent, a.status, a.passed, a.tested, a.tokens.total, a.costUsd, a.wallTimeMs, a.winner, a.kept])).toEqual([
      ['claude-1', 'claude', 'passed', true, true, 1500, 0.0123, 4200, true, true],
      ['codex-1', 'codex', 'failed', false, true, 2500, 0.02, 65_000, false, false],
      ['gemini-1', 'gemini', 'error', false, false, 0, 0, 900, false, false],
    ]);
    expect(run?.attempts[0]).toMatchObject({ workspace: 'bon-run-1-claude-1', branch: 'troupe/bon-run-1-claude-1', diffstat: { files: 1, insertions: 2, deletions: 0 }, reasons: 'Smallest diff that passes; keeps the parser pure.' });
    expect(run?.attempts[1]).toMatchObject({ diffstat: { files: 2, insertions: 10, deletions: 3 }, test: { exitCode: 1, outputTail: 'FAIL dates.test.ts' }, reasons: 'codex-1 did not pass.' });
    expect(run?.attempts[2]?.error).toBe('gemini exited with code 1');
  });

  it('shows a run in progress: attempts running, then each scorecard as its attempt finishes', () => {
    const running = fold(inputs.slice(0, 5)).bestOfN[0];
    expect(running?.status).toBe('running');
    expect(running?.winner).toBeNull();
    expect(running?.attempts.map((a) => a.status)).toEqual(['passed', 'running', 'running']);
    expect(fold(inputs.slice(0, 1)).bestOfN[0]?.attempts.map((a) => a.status)).toEqual(['pending', 'pending', 'pending']);
  });

  it('lists a run seen only from its end (a page opened late), and marks attempts cut short by a failed run', () => {
    const late = fold(inputs.slice(-1)).bestOfN;
    expect(late.map((run) => [run.runId, run.winner, run.attempts.length])).toEqual([['bon-run-1', 'claude-1', 3]]);
    const aborted = fold([...inputs.slice(0, 5), { type: 'best-of-n:run-finished', timestamp: 9_000, payload: { runId: 'bon-run-1', winner: null, stoppedBy: 'canceled', scorecards: [], durationMs: 2000 } }]).bestOfN[0];
    expect(aborted).toMatchObject({ status: 'finished', winner: null, stoppedBy: 'canceled' });
    expect(aborted?.attempts.map((a) => a.status)).toEqual(['passed', 'canceled', 'canceled']);
  });

  it('keeps the last limits.bestOfNRuns runs', () => {
    const many = Array.from({ length: 3 }, (_, index) => ({ type: 'best-of-n:run-started', timestamp: index, payload: { runId: `run-${index}`, repo: '/r', attempts: [], select: 'tests', mode: 'all', concurrency: 1 } }));
    expect(fold(many, { limits: { bestOfNRuns: 2 } }).bestOfN.map((run) => run.runId)).toEqual(['run-1', 'run-2']);
  });

  it('ignores malformed best-of-n payloads without throwing', () => {
    const state = createDashboardState();
    for (const payload of [null, 'text', { id: 'x' }, { runId: 42 }]) {
      for (const type of ['best-of-n:run-started', 'best-of-n:attempt-started', 'best-of-n:attempt-finished', 'best-of-n:run-finished', 'best-of-n:future']) applyDashboardInput(state, { type, timestamp: 1, payload });
    }
    applyDashboardInput(state, { type: 'best-of-n:attempt-finished', timestamp: 2, payload: { runId: 'r', scorecard: { id: 'a-1', status: 'weird', tokens: 'many', diffstat: { files: 'x' } } } });
    applyDashboardInput(state, { type: 'best-of-n:run-finished', timestamp: 3, payload: { runId: 'r', scorecards: [null, { id: 7 }], winner: 3 } });
    expect(state.bestOfN).toMatchObject([{ runId: 'r', status: 'finished', winner: null, attempts: [{ id: 'a-1', status: 'not-started', tokens: { total: 0 }, costUsd: 0 }] }]);
    expect(state.bestOfN[0]?.attempts[0]?.diffstat).toBeUndefined();
    expect(state.seq).toBe(22);
  });
});
