// Shared by this package's tests (not exported): the three real CLI adapters (Claude Code, Codex, Gemini CLI), each
// driving the fake agent CLI of its kind, scripted per attempt; a repository whose "test" checks a solution file;
// and counts of what a run leaves behind (processes, workspaces, branches).
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { git, makeTestRepo } from '@troupe/worktree/testing';

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
