// Shared by this package's tests (not exported): the three real CLI adapters (Claude Code, Codex, Gemini CLI), each
// driving the fake agent CLI of its kind, scripted per attempt; a repository whose "test" checks a solution file;
// and counts of what a run leaves behind (processes, workspaces, branches).
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { EventBus, type AgentAdapter } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { bestOfN, type BestOfNResult } from '../index';

/** The CLI kinds the fakes play. */
export const FAKE_KINDS = ['claude', 'codex', 'gemini'] as const;
export type FakeKind = (typeof FAKE_KINDS)[number];

const CREATE: Record<FakeKind, () => AgentAdapter> = {
  claude: () => createClaudeCodeAdapter(),
  codex: () => createCodexAdapter({ apiKey: 'best-of-n-suite', baseUrl: 'http://127.0.0.1:9/v1' }),
  gemini: () => createGeminiCliAdapter({ apiKey: 'best-of-n-suite', baseUrl: 'http://127.0.0.1:9' }),
};

/** The recorded stdout of a real CLI's turn (`Hello from fake-llm.`, with its usage), one line per entry. */
export function recordedLines(kind: FakeKind): string[] {
  return readFileSync(recording(kind), 'utf8').split('\n').filter((line) => line.trim() !== '');
}

export function recording(kind: FakeKind): string {
  return join(import.meta.dirname, '..', '__fixtures__', 'agents', `${kind}.stdout.jsonl`);
}

/** What the fake CLI of an attempt does, by its role id (the attempt id, `claude-1`) and kind. */
export type FakeScript = (attemptId: string, kind: FakeKind) => FakeAgentCliOptions;

/**
 * An adapter registry with `claude`, `codex` and `gemini`: the real adapters (command line, parsing, completion),
 * each starting the fake agent CLI that `script` describes for the attempt instead of the real binary.
 */
export function fakeAgentRegistry(script: FakeScript): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const kind of FAKE_KINDS) {
    adapters.register({
      type: kind,
      create: () => withFakeAgentCli(CREATE[kind](), ({ context }) => script(context?.roleId ?? 'unknown', kind)),
    });
  }
  return adapters;
}

/**
 * A fake CLI that keeps working and spending: its recorded lines but the last (the turn's end), every 50 ms, over
 * and over, with a grandchild that never exits, optionally ignoring SIGTERM (only the kill grace's SIGKILL ends it).
 */
export function spendingForever(kind: FakeKind, passes: boolean, ignoreSigterm: boolean): FakeAgentCliOptions {
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

/** The test command of the scripted tasks: passes when `solution.txt` starts with `pass`. */
export const SOLUTION_TEST: readonly string[] = [
  process.execPath,
  '-e',
  "process.exit(require('node:fs').readFileSync('solution.txt', 'utf8').startsWith('pass') ? 0 : 1)",
];

/** A solution file that passes (`lines` long: its diff size) or fails. */
export function solution(passes: boolean, lines: number): Record<string, string> {
  const body = Array.from({ length: Math.max(0, lines - 1) }, (_, index) => `line ${index + 1}`);
  return { 'solution.txt': `${[passes ? 'pass' : 'fail', ...body].join('\n')}\n` };
}

/** A temporary repository with a README; `cleanup` deletes it. */
export function taskRepo(): { repo: string; cleanup: () => void } {
  return makeTestRepo({ 'README.md': 'task\n' });
}

/** Workspace folders left in a repository (`.troupe/workspaces/*` but the markers). */
export function workspacesLeft(repo: string): string[] {
  const folder = join(repo, '.troupe', 'workspaces');
  return existsSync(folder) ? readdirSync(folder).filter((entry) => entry !== '.markers') : [];
}

/** Linked worktrees git still lists for a repository (besides the main checkout). */
export function worktreesLeft(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .slice(1);
}

/** `troupe/*` branches of a repository. */
export function workspaceBranches(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/troupe/').split('\n').filter(Boolean);
}

/** Pids of live processes whose working directory is inside `folder`, or that run the fake agent CLI with it in their arguments. */
export function processesIn(folder: string): number[] {
  if (!existsSync('/proc/self/cwd')) return [];
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        if (readlinkSync(`/proc/${pid}/cwd`).startsWith(folder)) return true;
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return !/\) Z /.test(stat) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(folder);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The attempts of the scripted suite: `claude:2, codex:1, gemini:1`. */
export const SUITE_CANDIDATES = [{ agent: 'claude', n: 2 }, { agent: 'codex' }, { agent: 'gemini' }];
export const SUITE_ATTEMPT_IDS = ['claude-1', 'claude-2', 'codex-1', 'gemini-1'];

/** What {@link runFirstPassRound} saw. */
export interface FirstPassRound {
  result: BestOfNResult;
  /** From the first pass to the stopped attempts' processes all gone and their last stream part, in ms. */
  stopMs: number;
  /** From the first pass to bestOfN's return, in ms. */
  returnMs: number;
  /** Processes of the stopped attempts still alive when bestOfN returned. */
  leftAtReturn: number[];
  /** The stopped attempts' stream parts before and after the first pass (`after` keeps counting). */
  loserParts: { before: number; after: number };
  /** `loserParts.after` when bestOfN returned. */
  loserPartsAtReturn: number;
}

/**
 * One `firstPass` run of the suite's four attempts in `repo`: `winnerId` passes after 1.5 s, the three others keep
 * streaming ({@link spendingForever}) with a grandchild each, half of them ignoring SIGTERM. Measures the stop.
 */
export async function runFirstPassRound(repo: string, winnerId: string, task = 'Write solution.txt'): Promise<FirstPassRound> {
  const script: FakeScript = (id, kind) =>
    id === winnerId
      ? { replay: recording(kind), writeFiles: solution(true, 3), firstDelayMs: 1500 }
      : spendingForever(kind, SUITE_ATTEMPT_IDS.indexOf(id) % 2 === 0, SUITE_ATTEMPT_IDS.indexOf(id) % 2 === 1);
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
  // Polls the stopped attempts' processes from the first pass until none is left (bounded: 30 s).
  const folder = join(repo, '.troupe', 'workspaces');
  const gone = (async () => {
    while (passedAt === undefined) await sleep(10);
    for (let poll = 0; poll < 3000; poll++) {
      if (processesIn(folder).length === 0) return performance.now();
      await sleep(10);
    }
    return Number.POSITIVE_INFINITY;
  })();
  const result = await bestOfN({ task, repo, candidates: SUITE_CANDIDATES, select: 'tests', testCommand: SOLUTION_TEST, mode: 'firstPass', adapters: fakeAgentRegistry(script), bus });
  const returnedAt = performance.now();
  const leftAtReturn = processesIn(folder);
  const loserPartsAtReturn = loserParts.after;
  const goneAt = await gone;
  const first = passedAt ?? returnedAt;
  return { result, stopMs: Math.max(goneAt, lastLoserPartAt) - first, returnMs: returnedAt - first, leftAtReturn, loserParts, loserPartsAtReturn };
}
