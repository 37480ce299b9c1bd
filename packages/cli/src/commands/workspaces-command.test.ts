// `troupe looper --isolate worktree`, its merge, and `troupe workspaces list|gc`, run in this process (runCliCaptured)
// with the fake `claude` on PATH, on temporary git repositories.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkspace, removeWorkspace } from '@troupe/worktree';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClaudeOnPath, runCliCaptured, tempWorkspace, testEnv } from '../testing/cli-test-kit';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repo(files?: Record<string, string>): string {
  const made = makeTestRepo(files);
  cleanups.push(made.cleanup);
  return made.repo;
}

function folder(): string {
  const made = tempWorkspace();
  cleanups.push(made.cleanup);
  return made.dir;
}

/** Bad input: one line on stderr, exit code 2, nothing on stdout. */
async function expectUsageError(args: string[], message: string, env?: Record<string, string | undefined>) {
  const result = await runCliCaptured(args, env ? { env: testEnv(env) } : {});
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toContain(message);
}

const PASSING_TEST = { 'hello.test.js': "require('node:test')('hello', () => require('node:assert').ok(require('node:fs').existsSync(__dirname + '/hello.txt')));\n", 'hello.txt': 'hello\n' };

describe('troupe looper --isolate / --merge and troupe workspaces: bad input, exit code 2', () => {
  it('names the wrong value or the missing option', async () => {
    const dir = repo();
    await expectUsageError(['looper', '-w', dir, '--isolate', 'docker', '-p', 'x'], 'option --isolate expects one of worktree, none, got "docker"');
    await expectUsageError(['looper', '-w', dir, '--isolate', 'worktree', '--merge', 'fast', '-p', 'x'], 'option --merge expects one of merge, rebase, squash, got "fast"');
    await expectUsageError(['looper', '-w', dir, '--merge', 'squash', '-p', 'x'], '--merge needs --isolate worktree (the run must work on a branch of its own)');
    await expectUsageError(['workspaces'], 'expected a subcommand: list or gc');
    await expectUsageError(['workspaces', 'prune'], 'unknown subcommand "prune"; expected list or gc');
    await expectUsageError(['workspaces', 'gc', 'extra'], 'unexpected argument "extra"');
    await expectUsageError(['workspaces', 'list', '--spares', '--repo', dir], '--spares applies to gc only');
  });

  it('a folder that is not a git checkout is refused before any agent starts', async () => {
    const dir = folder();
    await expectUsageError(['workspaces', 'gc', '--repo', dir], `${dir} is not a git checkout (`);
    await expectUsageError(['workspaces', 'list', '--repo', dir], `${dir} is not a git checkout (`);
    await expectUsageError(['looper', '-w', dir, '--isolate', 'worktree', '--reviewer', 'tests', '-p', 'Add hello'], `--isolate worktree needs a git checkout: ${dir} is not one (`, {
      FAKE_CLAUDE_FILES: JSON.stringify(PASSING_TEST),
    });
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  });

  it('help in English and Chinese', async () => {
    const en = await runCliCaptured(['workspaces', '--help']);
    expect(en.code).toBe(0);
    expect(en.stdout).toMatch(/^Usage: troupe workspaces list\|gc \[--repo DIR\][\s\S]*--repo DIR/);
    const looper = await runCliCaptured(['looper', '--help']);
    expect(looper.stdout).toContain('--isolate worktree|none');
    expect(looper.stdout).toContain('--merge merge|rebase|squash');
    const zh = await runCliCaptured(['--lang', 'zh-CN', 'workspaces', '--help']);
    expect(zh.stdout).toMatch(/^用法: troupe workspaces list\|gc \[--repo DIR\]/);
    const dir = repo();
    expect((await runCliCaptured(['--lang', 'zh-CN', 'workspaces', 'gc', '--repo', dir])).stdout).toBe(`${dir} 中没有遗留的工作区。\n`);
    expect((await runCliCaptured(['workspaces', 'gc', '--repo', dir])).stdout).toBe(`No leftover workspaces in ${dir}.\n`);
    expect((await runCliCaptured(['--lang', 'zh-CN', 'workspaces', 'list', '--repo', dir])).stdout).toBe(`${dir} 中没有工作区。\n`);
  });

  it('gc --spares deletes the spare folders that removed workspaces left for reuse (git config troupe.workspaceSpares)', async () => {
    const dir = repo();
    git(dir, 'config', 'troupe.workspaceSpares', '2');
    for (const ws of await Promise.all(['a', 'b', 'c'].map((name) => createWorkspace({ repo: dir, name })))) await removeWorkspace(ws);
    const spares = join(dir, '.troupe', 'workspaces', '.spares');
    expect(readdirSync(spares)).toHaveLength(2);
    const gc = await runCliCaptured(['workspaces', 'gc', '--repo', dir]);
    expect(readdirSync(spares)).toHaveLength(2);
    expect(gc.stdout).toBe(`No leftover workspaces in ${dir}.\n`);
    const withSpares = await runCliCaptured(['workspaces', 'gc', '--spares', '--repo', dir]);
    expect(withSpares.stdout).toBe(`No leftover workspaces in ${dir}.\nSpare folders: 2 deleted.\n`);
    expect(readdirSync(spares)).toEqual([]);
    expect(git(dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});

/** The agent CLIs are spawned with this process's environment: the fake claude first on its PATH, writing `files`. */
function fakeClaude(files: Record<string, string>): { env: NodeJS.ProcessEnv } {
  const { env, restore } = fakeClaudeOnPath(files);
  cleanups.push(restore);
  return { env };
}

describe('troupe looper --isolate worktree', () => {
  it('works on a branch: the parent stays untouched, the end prints the diff and how to merge; -p merge then merges it', async () => {
    const dir = repo({ 'README.md': 'hello\n' });
    const env = fakeClaude(PASSING_TEST);
    const run = await runCliCaptured(['looper', '-w', dir, '--isolate', 'worktree', '--reviewer', 'tests', '-p', 'Add hello.txt'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('[AUTO] Working in workspace');
    expect(run.stdout).toMatch(/\[AUTO\] Workspace branch troupe\/looper-run-1: 2 files, \+2 -0: hello\.test\.js \(\+1 -0\), hello\.txt \(\+1 -0\)\./);
    expect(run.stdout).toMatch(/Diff of troupe\/looper-run-1 against [0-9a-f]{12}:\ndiff --git a\/hello\.test\.js b\/hello\.test\.js\n/);
    expect(run.stdout).toContain('+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n');
    expect(run.stdout).toContain(`Merge it with: troupe looper -w ${dir} -p '{"type":"merge"}'`);
    // The parent: no new file, clean status, still on main.
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'branch', '--show-current')).toBe('main');

    const list = await runCliCaptured(['workspaces', 'list', '--repo', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^looper-run-1 {2}troupe\/looper-run-1 {2}\d+ s old {2}host pid \d+ (running|gone)\n$/);

    // No process runs the workspace any more: the merge is done from the saved state.
    const merge = await runCliCaptured(['looper', '-w', dir, '-p', '{"type":"merge","strategy":"squash"}']);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toMatch(/^Merged troupe\/looper-run-1 into main \(squash\); main is now at [0-9a-f]{12}\.\n$/);
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const again = await runCliCaptured(['looper', '-w', dir, '-p', '{"type":"merge"}']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('troupe/looper-run-1 is already merged into main.\n');
    const status = await runCliCaptured(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(status.stdout).toMatch(/Workspace branch troupe\/looper-run-1: 2 files, \+2 -0: [^\n]*\. Merged into main \(squash, [0-9a-f]{12}\)\./);
  }, 60_000);

  it('--merge merges at the end of the run; the workspace folder is then gone', async () => {
    const dir = repo({ 'README.md': 'hello\n' });
    const run = await runCliCaptured(['looper', '-w', dir, '--isolate', 'worktree', '--merge', 'rebase', '--reviewer', 'tests', '-p', 'Add hello.txt'], fakeClaude(PASSING_TEST));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\[AUTO\] Merged troupe\/looper-run-1 into main \(rebase\); main is now at [0-9a-f]{12}\./);
    expect(run.stdout).not.toContain('Merge it with');
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(dir, '.troupe', 'workspaces', 'looper-run-1'))).toBe(false);
    expect((await runCliCaptured(['workspaces', 'list', '--repo', dir])).stdout).toBe(`No workspaces in ${dir}.\n`);
  }, 60_000);
});
