import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, mergeWorkspace, removeWorkspace, snapshotParent, workspaceResult, type Workspace } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

async function setUp() {
  const made = makeTestRepo({ 'shared.txt': 'line 1\nline 2\nline 3\n' });
  cleanups.push(made.cleanup);
  const { repo } = made;
  // The parent stays on main; the merges go into `target`, which no checkout has.
  git(repo, 'branch', 'target');
  const before = await snapshotParent(repo);
  return { repo, before };
}

async function agentEdit(repo: string, name: string, file: string, content: string): Promise<Workspace> {
  const ws = await createWorkspace({ repo, name });
  writeFileSync(join(ws.path, file), content);
  await workspaceResult(ws, { commit: true });
  return ws;
}

describe('mergeWorkspace', () => {
  for (const strategy of ['merge', 'rebase', 'squash'] as const) {
    it(`${strategy}s a workspace into a branch outside the parent checkout`, async () => {
      const { repo, before } = await setUp();
      const ws = await agentEdit(repo, `m-${strategy}`, 'new.txt', 'new\n');
      const merged = await mergeWorkspace(ws, { into: 'target', strategy });
      expect(merged.ok).toBe(true);
      if (!merged.ok) return;
      expect(git(repo, 'rev-parse', 'target')).toBe(merged.commit);
      expect(git(repo, 'show', 'target:new.txt')).toBe('new');
      const parents = git(repo, 'log', '-1', '--format=%P', 'target').split(' ');
      expect(parents).toHaveLength(strategy === 'merge' ? 2 : 1);
      expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(2);
      await removeWorkspace(ws);
      await checkParentUntouched(before);
    });
  }

  it('returns the conflicting files and hunks and leaves the target, the workspace and the parent as they were', async () => {
    const { repo, before } = await setUp();
    const first = await agentEdit(repo, 'first', 'shared.txt', 'line 1\nfirst agent\nline 3\n');
    const second = await agentEdit(repo, 'second', 'shared.txt', 'line 1\nsecond agent\nline 3\n');
    const merged = await mergeWorkspace(first, { into: 'target', strategy: 'merge' });
    expect(merged.ok).toBe(true);
    const target = git(repo, 'rev-parse', 'target');
    const secondHead = git(second.path, 'rev-parse', 'HEAD');
    for (const strategy of ['merge', 'rebase', 'squash'] as const) {
      const conflict = await mergeWorkspace(second, { into: 'target', strategy });
      expect(conflict).toEqual({ ok: false, into: 'target', conflicts: [{ file: 'shared.txt', hunks: [{ line: 2, ours: ['first agent'], theirs: ['second agent'] }] }] });
      expect(git(repo, 'rev-parse', 'target')).toBe(target);
      expect(git(second.path, 'rev-parse', 'HEAD')).toBe(secondHead);
      expect(git(second.path, 'status', '--porcelain')).toBe('');
    }
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(3);
    await removeWorkspace(first);
    await removeWorkspace(second);
    await checkParentUntouched(before);
  });

  it('refuses to merge into a branch that a checkout has, naming it', async () => {
    const { repo, before } = await setUp();
    const ws = await agentEdit(repo, 'into-main', 'x.txt', 'x\n');
    await expect(mergeWorkspace(ws, { into: 'main', strategy: 'merge' })).rejects.toThrow(/branch main is checked out at /);
    await expect(mergeWorkspace(ws, { into: 'nope', strategy: 'merge' })).rejects.toThrow(/Invalid argument "into": no branch "nope"/);
    await removeWorkspace(ws);
    await checkParentUntouched(before);
  });
});
