import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, removeWorkspace, snapshotParent, WorkspaceEscapeError } from './index';
import { git, makeTestRepo, TEST_GIT_ENV } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

// A scripted agent: told to work in its workspace, it writes `../../../<file>` too, which lands in the parent checkout.
const escapingAgent = `require('fs').writeFileSync('mine.txt', 'ok'); require('fs').writeFileSync('../../../escaped.txt', 'oops');`;

describe('snapshotParent / checkParentUntouched', () => {
  it('catches an agent that writes into the parent checkout with a WorkspaceEscapeError naming the change', async () => {
    const made = makeTestRepo();
    cleanups.push(made.cleanup);
    const { repo } = made;
    const before = await snapshotParent(repo);
    const ws = await createWorkspace({ repo, name: 'agent' });
    await promisify(execFile)(process.execPath, ['-e', escapingAgent], { cwd: ws.path });
    const error = await checkParentUntouched(before).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceEscapeError);
    expect((error as WorkspaceEscapeError).changed).toEqual(['status']);
    expect((error as WorkspaceEscapeError).message).toContain('+?? escaped.txt');
    await removeWorkspace(ws);
  });

  it('names a moved HEAD, a switched branch, a staged file and a new stash', async () => {
    const made = makeTestRepo();
    cleanups.push(made.cleanup);
    const { repo } = made;
    const before = await snapshotParent(repo);
    await expect(checkParentUntouched(before)).resolves.toMatchObject({ head: before.head, branch: 'refs/heads/main' });
    git(repo, 'switch', '--quiet', '-c', 'other');
    await expect(checkParentUntouched(before)).rejects.toMatchObject({ changed: ['branch'] });
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'moved');
    await expect(checkParentUntouched(before)).rejects.toMatchObject({ changed: ['head', 'branch'] });
    git(repo, 'switch', '--quiet', 'main');
    writeFileSync(join(repo, 'README.md'), 'changed\n');
    await expect(checkParentUntouched(before)).rejects.toMatchObject({ changed: ['status'] });
    git(repo, 'add', 'README.md');
    await expect(checkParentUntouched(before)).rejects.toMatchObject({ changed: ['index', 'status'] });
    await promisify(execFile)('git', ['stash', '--quiet'], { cwd: repo, env: { ...process.env, ...TEST_GIT_ENV } });
    await expect(checkParentUntouched(before)).rejects.toMatchObject({ changed: ['stash'] });
  });

  it('catches a write into a file that was already modified or untracked (its status line stays the same)', async () => {
    const made = makeTestRepo({ 'README.md': 'hello\n', 'notes.txt': 'committed\n' });
    cleanups.push(made.cleanup);
    const { repo } = made;
    writeFileSync(join(repo, 'notes.txt'), 'the user is editing this\n');
    writeFileSync(join(repo, 'scratch.txt'), 'untracked\n');
    const before = await snapshotParent(repo);
    const ws = await createWorkspace({ repo, name: 'agent' });
    await promisify(execFile)(process.execPath, ['-e', `require('fs').writeFileSync('../../../notes.txt', 'overwritten by an agent\\n')`], { cwd: ws.path });
    const error = await checkParentUntouched(before).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceEscapeError);
    expect((error as WorkspaceEscapeError).changed).toEqual(['contents']);
    expect((error as WorkspaceEscapeError).message).toContain('rewritten notes.txt');
    const again = await snapshotParent(repo);
    writeFileSync(join(repo, 'scratch.txt'), 'untracked, rewritten\n');
    await expect(checkParentUntouched(again)).rejects.toMatchObject({ changed: ['contents'] });
    await removeWorkspace(ws);
  });
});
