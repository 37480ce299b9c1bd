// The `looper` and `best-of-n` modes end to end with scripted fake CLIs (the real Claude Code adapter driving the
// fake CLI): which (task, trial) each mode solves is scripted, and the report's pass rates, Wilson intervals,
// pass@k, costs and paired comparisons (single vs looper among them) must equal the values worked out by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import type { AgentTurnContext } from '@troupe/core';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { buildEvalReport, createBestOfNEvalMode, createLooperEvalMode, evalReportSchema, loadEvalSuite, runEval, type EvalTrialKey } from './index';
import { answerTask, makeTestSuite } from './testing/eval-test-kit';

const STARTER = join(import.meta.dirname, '..', 'suites', 'starter');
const RECORDING = join(import.meta.dirname, '__fixtures__', 'agents', 'claude.stdout.jsonl');
/** A visible check: fails while `junk.txt` is in the workspace. */
const NO_JUNK = ['node', '-e', "process.exit(require('node:fs').existsSync('junk.txt') ? 1 : 0)"];
const TURN_COST = 0.000208;

/** The Claude Code recording with its answer text replaced: how a fake Review answers with a report. */
function answering(text: string): FakeAgentCliOptions {
  const lines = readFileSync(RECORDING, 'utf8').trim().split('\n').map((line) => {
    const event = JSON.parse(line) as { type: string; result?: string; message?: { content?: { type: string; text?: string }[] } };
    if (event.type === 'result') event.result = text;
    for (const part of event.message?.content ?? []) if (part.type === 'text') part.text = text;
    return JSON.stringify(event);
  });
  return { lines };
}

const report = (health: 'normal' | 'critical') =>
  '```json\n' + JSON.stringify({ health, summary: `health ${health}`, findings: health === 'critical' ? [{ severity: 'critical', message: 'the task is not done' }] : [] }) + '\n```';

describe('the looper and best-of-n eval modes', () => {
  it('run with scripted fake CLIs and report the pass rates, costs and paired comparisons computed by hand', { timeout: 600_000 }, async () => {
    const full = await loadEvalSuite(STARTER);
    // Tasks 2 and 3 have a visible check; 0 and 1 do not.
    const tasks = full.tasks.slice(0, 4).map((task, i) => (i >= 2 ? { ...task, checkCommand: NO_JUNK } : task));
    const index = new Map(tasks.map((task, i) => [task.id, i]));
    const solution = (i: number) => {
      const dir = tasks[i]!.solutionDir!;
      return Object.fromEntries(readdirSync(dir).map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
    };
    const junk = { 'junk.txt': Array.from({ length: 300 }, (_, line) => `junk ${line}`).join('\n') + '\n' };
    // What each mode's fake does, by (task i, trial t):
    //   single: writes the solution when i = 0                                 → solves (0,0) (0,1): 2 of 8
    //   looper: Review says critical after round 1, normal after round 2; the Coder writes the solution in round 2
    //           when i ∈ {0, 2}, or i = 3 on trial 0                            → 5 of 8, every trial 2 rounds, 4 turns
    //   best-of-n (2 attempts): attempt 1 writes a 300-line junk.txt; attempt 2 writes the solution when i ∈ {1, 3}
    //     i = 0, no check: smallest non-empty change = attempt 1 (junk)        → fail
    //     i = 1, no check: the solution is smaller than the junk               → pass
    //     i = 2, check:    junk fails the check, attempt 2 changed nothing     → no winner, fail
    //     i = 3, check:    only attempt 2 passes the check                     → pass          → 4 of 8, 2 turns each
    const script: Record<string, (i: number, t: number) => (process: { workDir: string | undefined; context: AgentTurnContext | undefined }) => FakeAgentCliOptions> = {
      single: (i) => () => ({ replay: RECORDING, ...(i === 0 ? { writeFiles: solution(i) } : {}) }),
      looper: (i, t) => {
        const turns = new Map<string, number>();
        return ({ context }) => {
          const role = context?.roleId ?? '';
          const round = (turns.get(role) ?? 0) + 1;
          turns.set(role, round);
          if (role.endsWith('-review')) return answering(report(round === 1 ? 'critical' : 'normal'));
          const solves = round === 2 && (i === 0 || i === 2 || (i === 3 && t === 0));
          return { replay: RECORDING, ...(solves ? { writeFiles: solution(i) } : {}) };
        };
      },
      'best-of-n': (i) => ({ workDir }) => {
        if (workDir?.endsWith('-claude-1')) return { replay: RECORDING, writeFiles: junk };
        return { replay: RECORDING, ...(i === 1 || i === 3 ? { writeFiles: solution(i) } : {}) };
      },
    };
    const run = await runEval({
      suite: { ...full, tasks },
      agents: [{ id: 'claude', agent: (trial: EvalTrialKey) => withFakeAgentCli(createClaudeCodeAdapter(), script[trial.mode]!(index.get(trial.task)!, trial.trial)) }],
      modes: ['single', createLooperEvalMode({ maxRounds: 2 }), createBestOfNEvalMode({ attempts: 2 })],
      trials: 2,
      concurrency: 4,
    });

    const solved: Record<string, (i: number, t: number) => boolean> = {
      single: (i) => i === 0,
      looper: (i, t) => i === 0 || i === 2 || (i === 3 && t === 0),
      'best-of-n': (i) => i === 1 || i === 3,
    };
    for (const record of run.records) {
      const i = index.get(record.task)!;
      expect(`${i}/${record.mode}/${record.trial}: ${record.status}`).toBe(`${i}/${record.mode}/${record.trial}: ${solved[record.mode]!(i, record.trial) ? 'pass' : 'fail'}`);
      expect(record.agentStatus).toBe('completed');
      expect(record.turns).toBe({ single: 1, looper: 4, 'best-of-n': 2 }[record.mode]);
      expect(record.costUsd).toBeCloseTo(record.turns * TURN_COST, 12);
      if (record.mode === 'looper') expect(record.rounds).toBe(2);
      else expect(record.rounds).toBeUndefined();
      if (record.mode !== 'best-of-n') expect(record.selection).toBeUndefined();
      // The graded diff is the winner's: the solution, or the junk.
      if (record.status === 'pass') expect(record.diff).not.toContain('junk.txt');
    }
    const selections = run.records.filter((record) => record.mode === 'best-of-n' && record.trial === 0).map((record) => record.selection);
    expect(selections).toEqual([
      { by: 'smallest-diff', attempts: 2, winner: 'claude-1' },
      { by: 'smallest-diff', attempts: 2, winner: 'claude-2' },
      { by: 'check', attempts: 2, winner: null, passedCheck: 1 },
      { by: 'check', attempts: 2, winner: 'claude-2', passedCheck: 1 },
    ]);
    expect(run.records.find((record) => record.mode === 'best-of-n' && index.get(record.task) === 0)!.diff).toContain('+junk 299');

    const built = buildEvalReport(run, { name: 'modes' });
    const [single, looper, bestOfN] = built.configurations;
    // Wilson 95%: 2/8 → [0.071479, 0.590725]; 5/8 → [0.305742, 0.863156]; 4/8 → [0.215216, 0.784784].
    expect(single).toMatchObject({ id: 'claude/single', passes: 2, judged: 8, errors: 0, passRate: 0.25, tasksSolved: 1, passAtK: { '1': 0.25, '2': 0.25 } });
    expect(single!.interval.low).toBeCloseTo(0.071479, 5);
    expect(single!.interval.high).toBeCloseTo(0.590725, 5);
    // pass@1 of looper: tasks 0 and 2 → 1, task 3 (1 of 2) → ½, task 1 → 0: 2.5 / 4; pass@2: 3 tasks of 4.
    expect(looper).toMatchObject({ id: 'claude/looper', passes: 5, judged: 8, passRate: 0.625, tasksSolved: 3, passAtK: { '1': 0.625, '2': 0.75 } });
    expect(looper!.interval.low).toBeCloseTo(0.305742, 5);
    expect(looper!.interval.high).toBeCloseTo(0.863156, 5);
    expect(bestOfN).toMatchObject({ id: 'claude/best-of-n', passes: 4, judged: 8, passRate: 0.5, tasksSolved: 2, passAtK: { '1': 0.5, '2': 0.5 } });
    expect(bestOfN!.interval.low).toBeCloseTo(0.215216, 5);
    expect(bestOfN!.interval.high).toBeCloseTo(0.784784, 5);
    // Cost: every turn of every trial (the Looper's Review turns, the losing attempts) over the passes.
    expect(single!.costUsd).toBeCloseTo(8 * TURN_COST, 12);
    expect(looper!.costUsd).toBeCloseTo(32 * TURN_COST, 12);
    expect(looper!.costPerSolvedUsd).toBeCloseTo((32 * TURN_COST) / 5, 12);
    expect(bestOfN!.costUsd).toBeCloseTo(16 * TURN_COST, 12);
    expect(bestOfN!.costPerSolvedUsd).toBeCloseTo((16 * TURN_COST) / 4, 12);
    expect(looper).toMatchObject({ inputTokens: 32 * 12, outputTokens: 32 * 8 });

    // Paired comparisons (exact McNemar, two-sided, over the 8 (task, trial) pairs):
    //   single vs looper:    both (0,0) (0,1); only looper (2,0) (2,1) (3,0)        → 2·(1)/2³ = 0.25
    //   single vs best-of-n: only single 2, only best-of-n (1,·) (3,·) 4            → 2·(1+6+15)/2⁶ = 44/64
    //   looper vs best-of-n: both (3,0); only looper 4, only best-of-n (1,·) (3,1) 3 → capped at 1
    expect(built.comparisons).toEqual([
      { first: 'claude/single', second: 'claude/looper', pairs: 8, bothPass: 2, onlyFirst: 0, onlySecond: 3, bothFail: 3, pValue: 0.25 },
      { first: 'claude/single', second: 'claude/best-of-n', pairs: 8, bothPass: 0, onlyFirst: 2, onlySecond: 4, bothFail: 2, pValue: 44 / 64 },
      { first: 'claude/looper', second: 'claude/best-of-n', pairs: 8, bothPass: 1, onlyFirst: 4, onlySecond: 3, bothFail: 0, pValue: 1 },
    ]);
    expect(evalReportSchema.parse(JSON.parse(JSON.stringify(built)))).toEqual(built);
  });

  it("stops a looper and a best-of-n trial whose agent hangs at the task's time limit, and grades what is there", { timeout: 120_000 }, async () => {
    const { dir, cleanup } = makeTestSuite({ answer: answerTask({ timeLimitSeconds: 2 }) });
    try {
      const run = await runEval({
        suite: dir,
        agents: [{ id: 'claude', agent: () => withFakeAgentCli(createClaudeCodeAdapter(), { hang: true }) }],
        modes: ['looper', 'best-of-n'],
      });
      const [looper, bestOfN] = run.records;
      expect(looper).toMatchObject({ mode: 'looper', status: 'fail', agentStatus: 'timed-out', message: expect.stringContaining('grading command exited with 1') });
      expect(bestOfN).toMatchObject({ mode: 'best-of-n', status: 'fail', agentStatus: 'failed', selection: { by: 'smallest-diff', attempts: 2, winner: null } });
      expect(bestOfN!.diff).toBe('');
    } finally {
      cleanup();
    }
  });

  it('refuses bad settings of the modes, naming the option', () => {
    expect(() => createLooperEvalMode({ maxRounds: 0 })).toThrow(/maxRounds.*whole number ≥ 1, got 0/);
    expect(() => createBestOfNEvalMode({ attempts: 1.5 })).toThrow(/attempts.*whole number ≥ 1, got 1.5/);
  });
});
