import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, listWorkspaces, removeWorkspace } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

describe('listWorkspaces', () => {
  it('lists the workspaces of the repository from any of its checkouts, oldest first, with their host; a removed one is gone', async () => {
    const made = makeTestRepo();
    cleanups.push(made.cleanup);
    const head = git(made.repo, 'rev-parse', 'HEAD');
    const first = await createWorkspace({ repo: made.repo, name: 'list-a' });
    const second = await createWorkspace({ repo: made.repo, name: 'list-b' });
    // Seen from inside a workspace (a linked worktree) as well: the markers live in the main checkout.
    for (const from of [made.repo, second.path]) {
      const listed = await listWorkspaces({ repo: from });
      expect(listed.map((ws) => [ws.name, ws.branch, ws.path, ws.baseCommit, ws.hostPid, ws.hostAlive])).toEqual([
        ['list-a', 'troupe/list-a', first.path, head, process.pid, true],
        ['list-b', 'troupe/list-b', second.path, head, process.pid, true],
      ]);
      expect(listed[0]!.createdAt).toBeLessThanOrEqual(listed[1]!.createdAt);
    }
    await removeWorkspace(first);
    expect((await listWorkspaces({ repo: made.repo })).map((ws) => ws.name)).toEqual(['list-b']);
    await removeWorkspace(second);
    expect(await listWorkspaces({ repo: made.repo })).toEqual([]);
  });

  it('names the folder when it is not a git checkout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-list-plain-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await expect(listWorkspaces({ repo: dir })).rejects.toThrow(`${dir} is not a git repository`);
  });
});
