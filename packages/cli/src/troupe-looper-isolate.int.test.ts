// `troupe looper --isolate worktree` and `troupe workspaces gc` against the built `troupe` binary, with the fake
// `claude` first on PATH, on temporary git repositories: the printed diff, the untouched parent, and the clean-up
// after a troupe process was killed with SIGKILL.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
const coderPids: number[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const pid of coderPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repo(): string {
  const made = makeTestRepo({ 'README.md': 'hello\n' });
  cleanups.push(made.cleanup);
  return made.repo;
}

function folder(): string {
  const made = tempWorkspace();
  cleanups.push(made.cleanup);
  return made.dir;
}

const PASSING_TEST = { 'hello.test.js': "require('node:test')('hello', () => {});\n", 'hello.txt': 'hello\n' };

/** Starts `troupe looper --isolate worktree` whose Coder waits at its gate, and returns once it works in its workspace. */
async function startHeldRun(dir: string, gate: string): Promise<{ run: TroupeProcess; workspace: string }> {
  const log = join(gate, 'coder.jsonl');
  const run = startTroupe(
    ['looper', '-w', dir, '--newsession', '--isolate', 'worktree', '--reviewer', 'tests', '-p', 'Add hello.txt'],
    testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: log }),
  );
  running.push(run);
  const workspace = (await run.waitFor(/\[AUTO\] Working in workspace (\S+) on branch/))[1] ?? '';
  // The Coder's turn has begun (it logs before waiting at the gate): its process is the one to clean up later.
  for (let i = 0; i < 200 && !existsSync(log); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) coderPids.push((JSON.parse(line) as { pid: number }).pid);
  return { run, workspace };
}

describe('troupe looper --isolate worktree (built binary)', () => {
  it('prints the branch, diffstat and diff at the end; the parent checkout is byte for byte as it was', async () => {
    const dir = repo();
    const headBefore = git(dir, 'rev-parse', 'HEAD');
    const result = await runTroupe(['looper', '-w', dir, '--isolate', 'worktree', '--reviewer', 'tests', '-p', 'Add hello.txt'], testEnv({ FAKE_CLAUDE_FILES: JSON.stringify(PASSING_TEST) }));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\[AUTO\] Workspace branch troupe\/looper-run-1: 2 files, \+2 -0: hello\.test\.js \(\+1 -0\), hello\.txt \(\+1 -0\)\. To merge: send \{"type":"merge"\} \(into main;/);
    expect(result.stdout).toContain('diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n');
    expect(result.stdout).toContain('+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n');
    expect(result.stdout).toContain(`Merge it with: troupe looper -w ${dir} -p '{"type":"merge"}'`);
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('hello\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(headBefore);
    expect(git(dir, 'show', 'troupe/looper-run-1:hello.txt')).toBe('hello');
  }, 90_000);

  it('after a SIGKILL the next start, and troupe workspaces gc, remove the leftovers without commits and keep those with commits, naming them', async () => {
    const dir = repo();
    // First run: killed while its Coder works; its workspace holds nothing.
    const first = await startHeldRun(dir, folder());
    expect(first.workspace).toBe(join(dir, '.troupe', 'workspaces', 'looper-run-1'));
    first.run.child.kill('SIGKILL');
    await first.run.exited();

    // The next start removes that leftover and says so; its own agent then commits in its workspace before it is killed.
    const second = await startHeldRun(dir, folder());
    expect(second.run.stdout()).toContain('removed looper-run-1 (troupe/looper-run-1): its process is gone and it held no commits and no changes\nWorkspaces: 1 removed, 0 kept.\n');
    expect(second.workspace).toBe(first.workspace); // removed, so its name was free again
    writeFileSync(join(second.workspace, 'work.txt'), 'committed work\n');
    git(second.workspace, 'add', 'work.txt');
    git(second.workspace, 'commit', '--quiet', '-m', 'agent work');
    second.run.child.kill('SIGKILL');
    await second.run.exited();

    // A third start keeps it (commits), works in looper-run-1-2, and is killed in turn with nothing done.
    const third = await startHeldRun(dir, folder());
    expect(third.run.stdout()).toContain('kept looper-run-1 (troupe/looper-run-1): it holds commits\nWorkspaces: 0 removed, 1 kept.\n');
    expect(third.workspace).toBe(join(dir, '.troupe', 'workspaces', 'looper-run-1-2'));
    third.run.child.kill('SIGKILL');
    await third.run.exited();

    const gc = await runTroupe(['workspaces', 'gc', '--repo', dir]);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toBe(
      'removed looper-run-1-2 (troupe/looper-run-1-2): its process is gone and it held no commits and no changes\n' +
        'kept looper-run-1 (troupe/looper-run-1): it holds commits\n' +
        'Workspaces: 1 removed, 1 kept.\n',
    );
    expect(existsSync(third.workspace)).toBe(false);
    expect(git(dir, 'branch', '--list', 'troupe/looper-run-1-2')).toBe('');
    expect(git(dir, 'show', 'troupe/looper-run-1:work.txt')).toBe('committed work');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');

    const list = await runTroupe(['workspaces', 'list', '--repo', dir]);
    expect(list.stdout).toMatch(/^looper-run-1 {2}troupe\/looper-run-1 {2}\d+ (s|min) old {2}host pid \d+ gone\n$/);
  }, 150_000);
});
