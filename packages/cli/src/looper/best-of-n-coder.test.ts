// `troupe looper --attempts claude:2`: the Looper's Coder step as a best-of-N, run through the CLI in this process
// (runCliCaptured) with the fake `claude` on PATH (it writes FAKE_CLAUDE_FILES in its working folder: each attempt's
// workspace), on a temporary git repository whose `node --test` checks for hello.txt.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClaudeOnPath, runCliCaptured } from '../testing/cli-test-kit';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const HELLO_TEST = "import { test } from 'node:test';\nimport { existsSync } from 'node:fs';\ntest('hello.txt exists', () => { if (!existsSync('hello.txt')) throw new Error('no hello.txt'); });\n";

describe('troupe looper --attempts', () => {
  it("runs each Coder task as best-of-N attempts in workspaces of their own; the passing attempt's change lands in the workspace and the run ends done", async () => {
    const { repo, cleanup } = makeTestRepo({ 'README.md': 'hello\n', 'hello.test.mjs': HELLO_TEST });
    cleanups.push(cleanup);
    const { env, restore } = fakeClaudeOnPath({ 'hello.txt': 'hello\n' });
    cleanups.push(restore);
    const run = await runCliCaptured(['looper', '-w', repo, '--attempts', 'claude:2', '--reviewer', 'tests', '--test-command', 'node --test', '--max-iterations', '2', '-p', 'Add hello.txt'], { env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Coder: best-of-N claude:2');
    // The Coder step ran both attempts (each passing its tests in its own workspace) and took the first of the tie.
    expect(run.stdout).toMatch(/\[AUTO\] Coder done \([\d.]+ s\): claude-1: passed, .* claude-2: passed, .* best-of-N winner: claude-1/);
    expect(run.stdout).toContain('[AUTO] Review done: health normal');
    // The winner's change is in the workspace's files (uncommitted, as a single Coder leaves it); no attempt workspace or branch is left.
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/troupe/')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
  }, 120_000);

  it('refuses --attempts with --coder, an unknown agent, and with --queue', async () => {
    const { repo, cleanup } = makeTestRepo({ 'README.md': 'hello\n' });
    cleanups.push(cleanup);
    for (const [args, message] of [
      [['--attempts', 'claude:2', '--coder', 'codex'], 'give the Coder as --coder AGENT or as best-of-N attempts with --attempts AGENT:N,…, not both'],
      [['--attempts', 'claude:2,cursor'], 'option --attempts expects one of claude, codex, gemini, got "cursor"'],
      [['--attempts', 'claude:2', '--queue', 'redis://127.0.0.1:1'], '--attempts is not sent to queue workers yet'],
    ] as const) {
      const result = await runCliCaptured(['looper', '-w', repo, ...args, '-p', 'Add hello.txt']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
  });
});
