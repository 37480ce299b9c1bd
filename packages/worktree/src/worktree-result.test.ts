import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, removeWorkspace, snapshotParent, workspaceResult } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

describe('workspaceResult', () => {
  it('sees a same-size edit made in the second the workspace was checked out, read a second later', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, 'a = 1\n']));
    const made = makeTestRepo(files);
    cleanups.push(made.cleanup);
    const ws = await createWorkspace({ repo: made.repo, name: 'racy' });
    // Same size, right after the checkout: git's stat data cannot tell these files apart from the index.
    for (const file of Object.keys(files)) writeFileSync(join(ws.path, file), 'a = 2\n');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const result = await workspaceResult(ws);
    expect(result.diffstat.files.map((stat) => stat.file).sort()).toEqual(Object.keys(files).sort());
    expect(result.uncommitted).toBe(true);
    await removeWorkspace(ws);
  });

  it('reports committed and uncommitted changes, untracked files included, without touching the workspace index', async () => {
    const made = makeTestRepo({ 'a.txt': 'one\ntwo\n', 'gone.txt': 'bye\n' });
    cleanups.push(made.cleanup);
    const { repo } = made;
    const before = await snapshotParent(repo);
    const ws = await createWorkspace({ repo, name: 'result' });
    const untouched = await workspaceResult(ws);
    expect(untouched).toMatchObject({ diff: '', committed: false, uncommitted: false, headCommit: ws.baseCommit, diffstat: { files: [], insertions: 0, deletions: 0 } });

    writeFileSync(join(ws.path, 'a.txt'), 'one\nTWO\n');
    git(ws.path, 'commit', '--quiet', '-am', 'agent commit');
    writeFileSync(join(ws.path, 'new.txt'), 'fresh\n');
    git(ws.path, 'rm', '--quiet', 'gone.txt');
    const indexFile = join(repo, '.git', 'worktrees', 'result', 'index');
    const indexBefore = readFileSync(indexFile);
    const statusBefore = git(ws.path, 'status', '--porcelain');

    const result = await workspaceResult(ws);
    expect(result.committed).toBe(true);
    expect(result.uncommitted).toBe(true);
    expect(result.headCommit).toBe(git(ws.path, 'rev-parse', 'HEAD'));
    expect(result.diffstat).toEqual({
      files: [
        { file: 'a.txt', insertions: 1, deletions: 1 },
        { file: 'gone.txt', insertions: 0, deletions: 1 },
        { file: 'new.txt', insertions: 1, deletions: 0 },
      ],
      insertions: 2,
      deletions: 2,
    });
    expect(result.diff).toContain('+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n');
    expect(result.diff).toContain('-two\n+TWO\n');
    expect(readFileSync(indexFile).equals(indexBefore)).toBe(true);
    expect(git(ws.path, 'status', '--porcelain')).toBe(statusBefore);

    // The diff applies to the base and gives the workspace's files.
    const check = makeTestRepo({ 'a.txt': 'one\ntwo\n', 'gone.txt': 'bye\n' });
    cleanups.push(check.cleanup);
    writeFileSync(join(check.repo, 'change.patch'), result.diff);
    git(check.repo, 'apply', 'change.patch');
    expect(readFileSync(join(check.repo, 'new.txt'), 'utf8')).toBe('fresh\n');

    const committed = await workspaceResult(ws, { commit: { message: 'leftovers' } });
    expect(committed).toMatchObject({ committed: true, uncommitted: false, diffstat: result.diffstat, diff: result.diff });
    expect(git(ws.path, 'log', '-1', '--format=%s')).toBe('leftovers');
    expect(git(ws.path, 'status', '--porcelain')).toBe('');
    expect(statSync(join(ws.path, 'new.txt')).isFile()).toBe(true);
    expect(await removeWorkspace(ws)).toEqual({ branchDeleted: false });
    await expect(workspaceResult(ws)).rejects.toThrow(/Invalid argument "ws": the workspace folder .* does not exist/);
    await checkParentUntouched(before);
  });
});
