import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, removeWorkspace, snapshotParent, type Workspace } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

describe('concurrent workspaces on one repository', () => {
  it('creates and removes 16 at once for 7 rounds (112 workspaces) without a lock failure, each from the caller HEAD', { timeout: 240_000 }, async () => {
    const made = makeTestRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    cleanups.push(made.cleanup);
    const { repo } = made;
    git(repo, 'switch', '--quiet', '-c', 'work');
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'on work');
    const head = git(repo, 'rev-parse', 'HEAD');
    const before = await snapshotParent(repo);
    const failures: unknown[] = [];
    let created = 0;
    let previous: Workspace[] = [];
    for (let round = 0; round < 7; round += 1) {
      // Removals of the last round overlap creations of this one: both change refs and worktree bookkeeping.
      const removals = previous.map((ws) => removeWorkspace(ws).catch((error: unknown) => failures.push(error)));
      const creations = Array.from({ length: 16 }, (_, index) => createWorkspace({ repo, name: `r${round}-${index}` }));
      const settled = await Promise.allSettled(creations);
      await Promise.all(removals);
      previous = [];
      for (const outcome of settled) {
        if (outcome.status === 'rejected') failures.push(outcome.reason);
        else {
          created += 1;
          previous.push(outcome.value);
          expect(outcome.value.baseCommit).toBe(head);
        }
      }
    }
    await Promise.all(previous.map((ws) => removeWorkspace(ws)));
    expect(failures).toEqual([]);
    expect(created).toBe(112);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
    await checkParentUntouched(before);
  });

  it('retries when another process holds a git lock file, then succeeds', { timeout: 60_000 }, async () => {
    const made = makeTestRepo();
    cleanups.push(made.cleanup);
    const { repo } = made;
    const before = await snapshotParent(repo);
    // The lock another git process would hold while it writes this branch's ref.
    const lockDir = join(repo, '.git', 'refs', 'heads', 'troupe');
    mkdirSync(lockDir, { recursive: true });
    const lock = join(lockDir, 'locked.lock');
    writeFileSync(lock, '');
    setTimeout(() => rmSync(lock), 400);
    const ws = await createWorkspace({ repo, name: 'locked' });
    expect(git(ws.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('troupe/locked');
    await removeWorkspace(ws);
    await checkParentUntouched(before);
  });

  it('4 host processes creating and removing 8 workspaces each at once race only through retries', { timeout: 180_000 }, async () => {
    const made = makeTestRepo();
    cleanups.push(made.cleanup);
    const { repo } = made;
    const head = git(repo, 'rev-parse', 'HEAD');
    const before = await snapshotParent(repo);
    const fixture = join(import.meta.dirname, '__fixtures__', 'create-many.ts');
    const hosts = Array.from({ length: 4 }, (_, index) =>
      promisify(execFile)(process.execPath, ['--conditions=@troupe/source', '--import', 'tsx', fixture, repo, `p${index}`, '8']).then(
        ({ stdout }) => JSON.parse(stdout) as { made: number; failures: string[]; bases: string[] },
      ),
    );
    const reports = await Promise.all(hosts);
    expect(reports.flatMap((report) => report.failures)).toEqual([]);
    expect(reports.map((report) => report.made)).toEqual([8, 8, 8, 8]);
    expect([...new Set(reports.flatMap((report) => report.bases))]).toEqual([head]);
    expect(git(repo, 'for-each-ref', 'refs/heads/troupe/')).toBe('');
    await checkParentUntouched(before);
  });
});
