import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, gcWorkspaces, listWorkspaces, removeWorkspace, snapshotParent } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));
function repoWith(): string {
  const made = makeTestRepo();
  cleanups.push(made.cleanup);
  return made.repo;
}

const fixture = join(import.meta.dirname, '__fixtures__', 'create-and-hang.ts');

/** Starts a host that creates `count` workspaces (a commit in the first), then kills it with SIGKILL. */
async function killedHost(repo: string, count: number): Promise<void> {
  const child = spawn(process.execPath, ['--conditions=@troupe/source', '--import', 'tsx', fixture, repo, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`host exited (${code}) before it was ready: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('removeWorkspace', () => {
  it('removes the folder and the branch when it holds no commits, keeps a branch with commits', async () => {
    const repo = repoWith();
    const before = await snapshotParent(repo);
    const empty = await createWorkspace({ repo, name: 'empty' });
    writeFileSync(join(empty.path, 'scratch.txt'), 'discarded\n');
    const worked = await createWorkspace({ repo, name: 'worked' });
    writeFileSync(join(worked.path, 'x.txt'), 'x\n');
    git(worked.path, 'add', 'x.txt');
    git(worked.path, 'commit', '--quiet', '-m', 'x');
    expect(await removeWorkspace(empty)).toEqual({ branchDeleted: true });
    expect(await removeWorkspace(worked)).toEqual({ branchDeleted: false });
    expect(existsSync(empty.path)).toBe(false);
    expect(existsSync(worked.path)).toBe(false);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('troupe/worked');
    await checkParentUntouched(before);
  });

  it('with discardCommits, deletes a branch that holds commits too (dropped work nobody merges)', async () => {
    const repo = repoWith();
    const before = await snapshotParent(repo);
    const dropped = await createWorkspace({ repo, name: 'dropped' });
    writeFileSync(join(dropped.path, 'x.txt'), 'x\n');
    git(dropped.path, 'add', 'x.txt');
    git(dropped.path, 'commit', '--quiet', '-m', 'x');
    expect(await removeWorkspace(dropped, { discardCommits: true })).toEqual({ branchDeleted: true });
    expect(existsSync(dropped.path)).toBe(false);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
    await checkParentUntouched(before);
  });
});

describe('gcWorkspaces', () => {
  it('after a host is killed with SIGKILL, removes its leftovers without commits and keeps the one with commits', { timeout: 120_000 }, async () => {
    const repo = repoWith();
    const before = await snapshotParent(repo);
    const mine = await createWorkspace({ repo, name: 'alive' });
    await killedHost(repo, 4);
    expect(existsSync(join(repo, '.troupe', 'workspaces', 'host-3'))).toBe(true);
    const result = await gcWorkspaces({ repo });
    expect(result.removed.map((entry) => entry.name).sort()).toEqual(['host-1', 'host-2', 'host-3']);
    expect(result.kept.map((entry) => [entry.name, entry.reason]).sort()).toEqual([
      ['alive', 'host-running'],
      ['host-0', 'has-commits'],
    ]);
    for (const name of ['host-1', 'host-2', 'host-3']) expect(existsSync(join(repo, '.troupe', 'workspaces', name))).toBe(false);
    expect(git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/troupe/').split('\n').sort()).toEqual(['troupe/alive', 'troupe/host-0']);
    expect(await gcWorkspaces({ repo })).toMatchObject({ removed: [] });
    await removeWorkspace(mine);
    await checkParentUntouched(before);
  });
});

describe('gcWorkspaces with markers of another machine', () => {
  it('keeps a workspace made on another machine sharing the disk (its process cannot be looked up), removes it once the marker names this machine', async () => {
    const repo = repoWith();
    const ws = await createWorkspace({ repo, name: 'elsewhere' });
    const markerFile = join(repo, '.troupe', 'workspaces', '.markers', 'elsewhere.json');
    const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as { hostPid: number; hostName: string };
    expect(marker.hostName).toBe(hostname());
    // A pid that no process here has: the host would look dead if it were on this machine.
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(markerFile, JSON.stringify({ ...marker, hostPid: dead, hostName: 'build-box-2' }));
    const kept = await gcWorkspaces({ repo });
    expect(kept.removed).toEqual([]);
    expect(kept.kept).toEqual([{ name: 'elsewhere', path: ws.path, branch: ws.branch, hostPid: dead, reason: 'other-machine' }]);
    expect((await listWorkspaces({ repo }))[0]).toMatchObject({ name: 'elsewhere', hostName: 'build-box-2', hostAlive: true });
    writeFileSync(markerFile, JSON.stringify({ ...marker, hostPid: dead, hostName: hostname() }));
    expect((await gcWorkspaces({ repo })).removed.map((entry) => entry.name)).toEqual(['elsewhere']);
    expect(existsSync(ws.path)).toBe(false);
  });
});

describe('gcWorkspaces after a host died inside git worktree add', () => {
  it('removes a workspace folder git made but had not linked yet (no .git file), and its branch', async () => {
    const repo = repoWith();
    const ws = await createWorkspace({ repo, name: 'half-added' });
    const markerFile = join(repo, '.troupe', 'workspaces', '.markers', 'half-added.json');
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(markerFile, JSON.stringify({ ...JSON.parse(readFileSync(markerFile, 'utf8')), hostPid: dead }));
    // The moment of the kill: the folder exists, its `.git` file does not yet.
    rmSync(join(ws.path, '.git'));
    const result = await gcWorkspaces({ repo });
    expect(result.removed.map((entry) => entry.name)).toEqual(['half-added']);
    expect(existsSync(ws.path)).toBe(false);
    expect(git(repo, 'branch', '--list', ws.branch)).toBe('');
  });
});
