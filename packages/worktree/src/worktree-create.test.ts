import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, removeWorkspace, snapshotParent, workspaceResult } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));
function repoWith(files?: Record<string, string>): string {
  const made = makeTestRepo(files);
  cleanups.push(made.cleanup);
  return made.repo;
}

describe('createWorkspace', () => {
  it('makes a worktree on troupe/<name> from the caller HEAD on a non-default branch, and leaves the parent as it was', async () => {
    const repo = repoWith();
    git(repo, 'switch', '--quiet', '-c', 'feature');
    writeFileSync(join(repo, 'feature.txt'), 'f\n');
    git(repo, 'add', 'feature.txt');
    git(repo, 'commit', '--quiet', '-m', 'feature');
    writeFileSync(join(repo, 'dirty.txt'), 'uncommitted\n');
    const before = await snapshotParent(repo);
    const ws = await createWorkspace({ repo, name: 'one' });
    expect(ws.branch).toBe('troupe/one');
    expect(ws.baseCommit).toBe(git(repo, 'rev-parse', 'feature'));
    expect(readFileSync(join(ws.path, 'feature.txt'), 'utf8')).toBe('f\n');
    expect(existsSync(join(ws.path, 'dirty.txt'))).toBe(false);
    expect(git(ws.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('troupe/one');
    await checkParentUntouched(before);
    await removeWorkspace(ws);
    await checkParentUntouched(before);
    expect(existsSync(ws.path)).toBe(false);
  });

  it('starts from the HEAD of a linked worktree when repo is one', async () => {
    const repo = repoWith();
    const linked = join(repo, '..', `${repo.split('/').pop()}-linked`);
    cleanups.push(() => git(repo, 'worktree', 'remove', '--force', linked));
    git(repo, 'worktree', 'add', '--quiet', '-b', 'side', linked);
    writeFileSync(join(linked, 'side.txt'), 's\n');
    git(linked, 'add', 'side.txt');
    git(linked, 'commit', '--quiet', '-m', 'side');
    const before = await snapshotParent(linked);
    const mainBefore = await snapshotParent(repo);
    const ws = await createWorkspace({ repo: linked, name: 'from-linked' });
    expect(ws.baseCommit).toBe(git(linked, 'rev-parse', 'HEAD'));
    expect(ws.baseCommit).not.toBe(git(repo, 'rev-parse', 'HEAD'));
    await checkParentUntouched(before);
    await checkParentUntouched(mainBefore);
    await removeWorkspace(ws);
  });

  it('works from a detached HEAD (base = that commit) and from a given ref', async () => {
    const repo = repoWith();
    const first = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'second');
    git(repo, 'switch', '--quiet', '--detach', first);
    const before = await snapshotParent(repo);
    const detached = await createWorkspace({ repo, name: 'detached' });
    expect(detached.baseCommit).toBe(first);
    const fromRef = await createWorkspace({ repo, name: 'from-main', base: 'main' });
    expect(fromRef.baseCommit).toBe(git(repo, 'rev-parse', 'main'));
    await checkParentUntouched(before);
    await removeWorkspace(detached);
    await removeWorkspace(fromRef);
  });

  it('copies listed untracked files and runs the setup command in the workspace', async () => {
    const repo = repoWith({ '.gitignore': '.env\n', 'a.txt': 'a\n' });
    writeFileSync(join(repo, '.env'), 'TOKEN=x\n');
    writeFileSync(join(repo, 'local.json'), '{"secret":"not ignored"}\n');
    const before = await snapshotParent(repo);
    const ws = await createWorkspace({
      repo,
      name: 'setup',
      setup: { copy: ['.env', './local.json'], command: [process.execPath, '-e', "require('fs').writeFileSync('ran.txt', process.cwd())"] },
    });
    expect(ws.setupFiles).toEqual(['.env', 'local.json']);
    expect(readFileSync(join(ws.path, '.env'), 'utf8')).toBe('TOKEN=x\n');
    expect(readFileSync(join(ws.path, 'local.json'), 'utf8')).toContain('not ignored');
    expect(readFileSync(join(ws.path, 'ran.txt'), 'utf8')).toBe(ws.path);
    // Copied configuration is not the agent's work: neither in the diff nor in a commit.
    const result = await workspaceResult(ws, { commit: true });
    expect(result.diffstat.files.map((file) => file.file)).toEqual(['ran.txt']);
    expect(git(ws.path, 'show', '--name-only', '--format=', 'HEAD')).toBe('ran.txt');
    await expect(createWorkspace({ repo, name: 'outside', setup: { copy: ['../x'] } })).rejects.toThrow(/Invalid argument "setup.copy": "..\/x" is not a path inside/);
    await checkParentUntouched(before);
    await removeWorkspace(ws);
  });

  it('rejects bad input with clear errors and leaves the parent untouched', async () => {
    const repo = repoWith();
    const other = repoWith();
    const bare = join(other, 'bare.git');
    git(other, 'init', '--quiet', '--bare', bare);
    const before = await snapshotParent(repo);
    await expect(createWorkspace({ repo: join(repo, 'missing') })).rejects.toThrow(/Invalid argument "repo": .*missing is not a folder/);
    await expect(createWorkspace({ repo: bare })).rejects.toThrow(/is a bare repository/);
    await expect(createWorkspace({ repo, base: 'no-such-ref' })).rejects.toThrow(/Invalid argument "base": "no-such-ref" names no commit/);
    await expect(createWorkspace({ repo, name: '../escape' })).rejects.toThrow(/Invalid argument "name"/);
    const ws = await createWorkspace({ repo, name: 'taken' });
    await expect(createWorkspace({ repo, name: 'taken' })).rejects.toThrow(/branch troupe\/taken already exists/);
    await expect(createWorkspace({ repo, name: 'bad-setup', setup: { command: [process.execPath, '-e', 'process.exit(3)'] } })).rejects.toThrow(/setup command .* failed \(exit 3\)/);
    expect(git(repo, 'branch', '--list', 'troupe/bad-setup')).toBe('');
    expect(existsSync(join(repo, '.troupe', 'workspaces', 'bad-setup'))).toBe(false);
    await removeWorkspace(ws);
    await checkParentUntouched(before);
  });

  it('rejects a folder that is not a git repository', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'troupe-not-git-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    await expect(createWorkspace({ repo: folder })).rejects.toThrow(/is not a git repository/);
  });

  it('stops on abort: nothing is made, and a workspace whose setup is aborted is removed', { timeout: 60_000 }, async () => {
    const repo = repoWith();
    const before = await snapshotParent(repo);
    await expect(createWorkspace({ repo, name: 'pre', signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
    const controller = new AbortController();
    const creating = createWorkspace({ repo, name: 'hanging', setup: { command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'] }, signal: controller.signal });
    setTimeout(() => controller.abort(), 500);
    await expect(creating).rejects.toThrow();
    expect(git(repo, 'for-each-ref', 'refs/heads/troupe/')).toBe('');
    expect(existsSync(join(repo, '.troupe', 'workspaces', 'hanging'))).toBe(false);
    await checkParentUntouched(before);
  });

  it('refuses a name whose half-made workspace is still recorded, and keeps that record for gcWorkspaces', async () => {
    const repo = repoWith();
    const half = await createWorkspace({ repo, name: 'half' });
    // What a host killed between `git branch` and `git worktree add` leaves: a marker and a branch, no folder.
    git(repo, 'worktree', 'remove', '--force', half.path);
    const marker = join(repo, '.troupe', 'workspaces', '.markers', 'half.json');
    await expect(createWorkspace({ repo, name: 'half' })).rejects.toThrow(/Invalid argument "name": a workspace named half is recorded/);
    expect(existsSync(marker)).toBe(true);
    await removeWorkspace(half);
    expect(existsSync(marker)).toBe(false);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
  });
});
