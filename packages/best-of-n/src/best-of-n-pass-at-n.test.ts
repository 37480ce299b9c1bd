// The best-of-N suite (issue 32, "Done when"): fake CLIs of each kind (the real Claude Code, Codex and Gemini CLI
// adapters driving the fake agent CLI) scripted so that known subsets of the attempts of each task pass. With
// test-based selection, the selected candidate passes whenever any candidate passes: the pass rate equals the
// pass@N oracle exactly. `firstPass` leaves no process and no workspace of the stopped attempts behind, and their
// spending (stream parts, processes) stops within 5 s of the first pass.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventBus } from '@troupe/core';
import { seededRandom } from '@troupe/core/testing';
import { removeWorkspace } from '@troupe/worktree';
import { afterAll, describe, expect, it } from 'vitest';
import { bestOfN } from './index';
import {
  fakeAgentRegistry,
  processesIn,
  recordedLines,
  recording,
  solution,
  SOLUTION_TEST,
  taskRepo,
  workspaceBranches,
  workspacesLeft,
  worktreesLeft,
  type FakeKind,
  type FakeScript,
} from './testing/best-of-n-test-kit';

const TASKS = Number(process.env.TROUPE_BEST_OF_N_TASKS ?? 24);
const SEED = Number(process.env.TROUPE_BEST_OF_N_SEED ?? 32);
const CANDIDATES = [{ agent: 'claude', n: 2 }, { agent: 'codex' }, { agent: 'gemini' }];
const ATTEMPT_IDS = ['claude-1', 'claude-2', 'codex-1', 'gemini-1'];
/** The spec's bound on how long stopped attempts may go on spending after the first pass. */
const STOP_BOUND_MS = 5000;

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

/** A fake CLI that keeps working and spending: its recorded lines but the last (the turn's end), over and over. */
function spendingForever(kind: FakeKind, passes: boolean, ignoreSigterm: boolean) {
  const progress = recordedLines(kind).slice(0, -1);
  return {
    writeFiles: solution(passes, 2),
    lines: Array.from({ length: 600 }, (_, index) => progress[index % progress.length] as string),
    delayMs: 50,
    hang: true,
    spawnGrandchild: true,
    ignoreSigterm,
  };
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

  it('firstPass: the others stop within 5 s (processes and spending), no process and no workspace of theirs is left', { timeout: 300_000 }, async () => {
    const rounds = ATTEMPT_IDS.length;
    const stopTimes: number[] = [];
    const returnTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const repo = repoForTask();
      const winnerId = ATTEMPT_IDS[round] as string;
      // The winner passes after a moment; the others keep streaming (one of them with a passing solution it never finishes),
      // each with a grandchild, half of them ignoring SIGTERM.
      const script: FakeScript = (id, kind) =>
        id === winnerId
          ? { replay: recording(kind), writeFiles: solution(true, 3), firstDelayMs: 1500 }
          : spendingForever(kind, ATTEMPT_IDS.indexOf(id) % 2 === 0, ATTEMPT_IDS.indexOf(id) % 2 === 1);
      const bus = new EventBus();
      let passedAt: number | undefined;
      let lastLoserPartAt = 0;
      const loserParts = { before: 0, after: 0 };
      bus.on('agent:part', (event) => {
        if (event.payload.roleId === winnerId) return;
        lastLoserPartAt = performance.now();
        if (passedAt === undefined) loserParts.before += 1;
        else loserParts.after += 1;
      });
      bus.on('best-of-n:attempt-finished', (event) => {
        if (event.payload.scorecard.passed && passedAt === undefined) passedAt = performance.now();
      });
      // Polls the stopped attempts' processes from the first pass until none is left.
      const workspacesFolder = join(repo, '.troupe', 'workspaces');
      const processesGone = (async () => {
        while (passedAt === undefined) await sleep(20);
        for (let poll = 0; poll < 1000; poll++) {
          if (processesIn(workspacesFolder).length === 0) return performance.now();
          await sleep(20);
        }
        return Number.POSITIVE_INFINITY;
      })();
      const result = await bestOfN({
        task: `Task ${round}`,
        repo,
        candidates: CANDIDATES,
        select: 'tests',
        testCommand: SOLUTION_TEST,
        mode: 'firstPass',
        adapters: fakeAgentRegistry(script),
        bus,
      });
      const returnedAt = performance.now();
      const goneAt = await processesGone;
      expect(result.winner?.id).toBe(winnerId);
      expect(result.stoppedBy).toBe('firstPass');
      expect(result.scorecards.filter((card) => card.id !== winnerId).map((card) => card.status)).toEqual(['canceled', 'canceled', 'canceled']);
      // The stopped attempts were spending before the pass (their parts streamed) and stopped after it.
      expect(loserParts.before).toBeGreaterThan(0);
      const stoppedMs = Math.max(goneAt, lastLoserPartAt) - (passedAt as number);
      stopTimes.push(Math.round(stoppedMs));
      returnTimes.push(Math.round(returnedAt - (passedAt as number)));
      expect(stoppedMs).toBeLessThan(STOP_BOUND_MS);
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
