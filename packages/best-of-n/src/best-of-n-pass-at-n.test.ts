// The best-of-N suite (issue 32, "Done when"): fake CLIs of each kind (the real Claude Code, Codex and Gemini CLI
// adapters driving the fake agent CLI) scripted so that known subsets of the attempts of each task pass. With
// test-based selection, the selected candidate passes whenever any candidate passes: the pass rate equals the
// pass@N oracle exactly. `firstPass` leaves no process and no workspace of the stopped attempts behind, and their
// spending (stream parts, processes) is over when bestOfN returns (the stop time itself: bench/best-of-n.bench.ts).
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '@troupe/core/testing';
import { removeWorkspace } from '@troupe/worktree';
import { afterAll, describe, expect, it } from 'vitest';
import { bestOfN } from './index';
import {
  fakeAgentRegistry,
  processesIn,
  recording,
  solution,
  SOLUTION_TEST,
  runFirstPassRound,
  SUITE_ATTEMPT_IDS,
  SUITE_CANDIDATES,
  taskRepo,
  workspaceBranches,
  workspacesLeft,
  worktreesLeft,
  type FakeScript,
} from './testing/best-of-n-test-kit';

const TASKS = Number(process.env.TROUPE_BEST_OF_N_TASKS ?? 24);
const SEED = Number(process.env.TROUPE_BEST_OF_N_SEED ?? 32);
const CANDIDATES = SUITE_CANDIDATES;
const ATTEMPT_IDS = SUITE_ATTEMPT_IDS;

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
function repoForTask(): string {
  const made = taskRepo();
  cleanups.push(made.cleanup);
  return made.repo;
}

interface ScriptedAttempt {
  passes: boolean;
  lines: number;
}

/** The script of every task: which attempts pass and how long each solution is (seeded, printed on failure). */
function scriptTasks(): ScriptedAttempt[][] {
  const random = seededRandom(SEED);
  return Array.from({ length: TASKS }, (_, task) =>
    ATTEMPT_IDS.map((_id, index) => ({
      // Every fourth task has no passing attempt; every fourth (offset 1) exactly one, the last, the largest.
      passes: task % 4 === 0 ? false : task % 4 === 1 ? index === ATTEMPT_IDS.length - 1 : random.next() < 0.4,
      lines: task % 4 === 1 && index === ATTEMPT_IDS.length - 1 ? 12 : 1 + Math.floor(random.next() * 8),
    })),
  );
}

describe('best-of-N suite (fake CLIs of each kind)', () => {
  it(`select 'tests' over ${TASKS} tasks × 4 attempts: the pass rate equals the pass@N oracle exactly`, { timeout: 900_000 }, async () => {
    const tasks = scriptTasks();
    let oracle = 0;
    let selectedPass = 0;
    const disagreements: string[] = [];
    const started = performance.now();
    for (const [index, attempts] of tasks.entries()) {
      const repo = repoForTask();
      const script: FakeScript = (id, kind) => {
        const attempt = attempts[ATTEMPT_IDS.indexOf(id)] as ScriptedAttempt;
        return { replay: recording(kind), writeFiles: solution(attempt.passes, attempt.lines) };
      };
      const result = await bestOfN({ task: `Task ${index}`, repo, candidates: CANDIDATES, select: 'tests', testCommand: SOLUTION_TEST, adapters: fakeAgentRegistry(script) });
      const anyPasses = attempts.some((attempt) => attempt.passes);
      const winner = result.winner ? attempts[ATTEMPT_IDS.indexOf(result.winner.id)] : undefined;
      if (anyPasses) oracle += 1;
      if (winner?.passes) selectedPass += 1;
      const smallest = Math.min(...attempts.filter((attempt) => attempt.passes).map((attempt) => attempt.lines));
      if (anyPasses !== (winner?.passes === true)) disagreements.push(`task ${index}: any passes ${anyPasses}, winner ${result.winner?.id ?? 'none'}`);
      else if (winner && winner.lines !== smallest) disagreements.push(`task ${index}: winner ${result.winner?.id} has ${winner.lines} lines, the smallest passing has ${smallest}`);
      // Each scorecard says what the script made of its attempt.
      const wrong = result.scorecards.filter((card) => card.passed !== attempts[ATTEMPT_IDS.indexOf(card.id)]?.passes);
      if (wrong.length > 0) disagreements.push(`task ${index}: scorecards ${wrong.map((card) => `${card.id} ${card.status}`).join(', ')}`);
      // Only the winner's workspace and branch are left.
      if (workspacesLeft(repo).length !== (result.winner ? 1 : 0) || workspaceBranches(repo).length !== (result.winner ? 1 : 0)) disagreements.push(`task ${index}: left ${workspacesLeft(repo).join()}`);
      if (result.winner) await removeWorkspace(result.winner.workspace, { discardCommits: true });
    }
    console.log(
      `best-of-N suite (seed ${SEED}): ${TASKS} tasks × ${ATTEMPT_IDS.length} attempts; pass@N oracle ${oracle}/${TASKS}, ` +
        `selected candidate passes ${selectedPass}/${TASKS}; ${Math.round(performance.now() - started)} ms`,
    );
    expect(disagreements).toEqual([]);
    expect(selectedPass).toBe(oracle);
    // The script covers tasks where nothing passes, where only one (the largest diff) passes, and mixed ones.
    expect(oracle).toBeGreaterThan(TASKS / 2);
    expect(oracle).toBeLessThan(TASKS);
  });

  // The stop time (first pass → processes gone and stream parts ended: 5 s in the issue's spec) is a figure, measured
  // with a baseline in `pnpm bench best-of-n`, not a timed assertion here: what this test asserts is that the stop is
  // complete once bestOfN returns.
  it('firstPass: the others are stopped by the time bestOfN returns (processes and spending), no process and no workspace of theirs is left', { timeout: 300_000 }, async () => {
    const rounds = ATTEMPT_IDS.length;
    const stopTimes: number[] = [];
    const returnTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const repo = repoForTask();
      const winnerId = ATTEMPT_IDS[round] as string;
      // The winner passes after a moment; the others keep streaming (one of them with a passing solution it never finishes),
      // each with a grandchild, half of them ignoring SIGTERM.
      const { result, stopMs, returnMs, leftAtReturn, loserParts, loserPartsAtReturn } = await runFirstPassRound(repo, winnerId, `Task ${round}`);
      // Spending is over when bestOfN returns: no process of a stopped attempt is left, no part of theirs comes after.
      expect(leftAtReturn).toEqual([]);
      await sleep(200);
      expect(loserParts.after).toBe(loserPartsAtReturn);
      expect(result.winner?.id).toBe(winnerId);
      expect(result.stoppedBy).toBe('firstPass');
      expect(result.scorecards.filter((card) => card.id !== winnerId).map((card) => card.status)).toEqual(['canceled', 'canceled', 'canceled']);
      // The stopped attempts were spending before the pass (their parts streamed) and stopped after it.
      expect(loserParts.before).toBeGreaterThan(0);
      stopTimes.push(Math.round(stopMs));
      returnTimes.push(Math.round(returnMs));
      // Zero processes; the winner's workspace is the only one left, and none once it is removed.
      expect(processesIn(join(repo, '.troupe'))).toEqual([]);
      expect(workspacesLeft(repo)).toEqual([result.winner?.workspace.name]);
      expect(worktreesLeft(repo)).toHaveLength(1);
      await removeWorkspace(result.winner!.workspace, { discardCommits: true });
      expect([workspacesLeft(repo), worktreesLeft(repo), workspaceBranches(repo)]).toEqual([[], [], []]);
    }
    console.log(`best-of-N firstPass: stopped attempts' processes and stream parts ended ${stopTimes.join(', ')} ms after the first pass; bestOfN returned ${returnTimes.join(', ')} ms after it`);
  });
});
