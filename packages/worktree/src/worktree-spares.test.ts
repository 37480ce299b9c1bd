import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkParentUntouched, createWorkspace, listWorkspaces, removeSpares, removeWorkspace, snapshotParent, SPARES_CONFIG_KEY, type Workspace } from './index';
import { checkoutFingerprint, git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));
function repoWith(): string {
  const made = makeTestRepo({ 'README.md': 'hello\n', 'a.ts': 'export const a = 1;\n', 'gone.ts': 'old\n', '.gitignore': 'node_modules/\n' });
  cleanups.push(made.cleanup);
  return made.repo;
}

function sparesOf(repo: string): string[] {
  const dir = join(repo, '.troupe', 'workspaces', '.spares');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Every file of a workspace (but `.git`) with its bytes: what an agent starting in it sees. */
function filesOf(ws: Workspace): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.name === '.git' && dir === ws.path) continue;
      if (entry.isDirectory()) walk(path);
      else files[relative(ws.path, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(ws.path);
  return files;
}

/** A workspace that left every kind of trace: a changed, a deleted and a new file, an ignored folder, a copied `.env`. */
async function messyWorkspace(repo: string, name: string): Promise<Workspace> {
  writeFileSync(join(repo, '.env'), 'TOKEN=secret\n');
  const ws = await createWorkspace({ repo, name, setup: { copy: ['.env'] } });
  writeFileSync(join(ws.path, 'README.md'), 'changed by the agent\n');
  rmSync(join(ws.path, 'a.ts'));
  writeFileSync(join(ws.path, 'new.txt'), 'new\n');
  mkdirSync(join(ws.path, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(ws.path, 'node_modules', 'x', 'index.js'), 'ignored\n');
  return ws;
}

describe('spare workspace folders', () => {
  it('a removed workspace parked as a spare gives the next workspace exactly a fresh checkout of its own base', async () => {
    const repo = repoWith();
    const first = await messyWorkspace(repo, 'first');
    // A second base that changes, deletes and adds files: the spare was made from the first base.
    git(repo, 'rm', '--quiet', 'gone.ts');
    writeFileSync(join(repo, 'a.ts'), 'export const a = 2;\n');
    writeFileSync(join(repo, 'b.ts'), 'export const b = 1;\n');
    git(repo, 'add', '-A', 'a.ts', 'b.ts');
    git(repo, 'commit', '--quiet', '-m', 'second base');
    const before = await snapshotParent(repo);
    const parentBytes = checkoutFingerprint(repo);

    expect(await removeWorkspace(first, { spares: 1 })).toEqual({ branchDeleted: true });
    expect(existsSync(first.path)).toBe(false);
    expect(sparesOf(repo)).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
    expect(await listWorkspaces({ repo })).toEqual([]);
    // Nothing of the agent's or the setup's waits in the spare.
    const spare = join(repo, '.troupe', 'workspaces', '.spares', sparesOf(repo)[0]!);
    expect(existsSync(join(spare, '.env'))).toBe(false);
    expect(existsSync(join(spare, 'node_modules'))).toBe(false);

    const reused = await createWorkspace({ repo, name: 'reused' });
    expect(sparesOf(repo)).toEqual([]);
    const fresh = await createWorkspace({ repo, name: 'fresh' });
    expect(filesOf(reused)).toEqual(filesOf(fresh));
    expect(filesOf(reused)).toEqual({ '.gitignore': 'node_modules/\n', 'README.md': 'hello\n', 'a.ts': 'export const a = 2;\n', 'b.ts': 'export const b = 1;\n' });
    expect(git(reused.path, 'status', '--porcelain', '--ignored')).toBe('');
    expect(git(reused.path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/troupe/reused');
    expect(git(reused.path, 'rev-parse', 'HEAD')).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(reused.path).toBe(join(repo, '.troupe', 'workspaces', 'reused'));

    // Its result and removal behave as a fresh one's.
    writeFileSync(join(reused.path, 'x.txt'), 'x\n');
    git(reused.path, 'add', 'x.txt');
    git(reused.path, 'commit', '--quiet', '-m', 'x');
    expect(await removeWorkspace(reused)).toEqual({ branchDeleted: false });
    await removeWorkspace(fresh);
    await checkParentUntouched(before);
    expect(checkoutFingerprint(repo)).toBe(parentBytes);
  });

  it('keeps at most `spares` folders, takes its count from git config, and removeSpares deletes them', async () => {
    const repo = repoWith();
    const made = await Promise.all(['a', 'b', 'c'].map((name) => createWorkspace({ repo, name })));
    for (const ws of made) await removeWorkspace(ws, { spares: 2 });
    expect(sparesOf(repo)).toHaveLength(2);
    expect(made.every((ws) => !existsSync(ws.path))).toBe(true);

    git(repo, 'config', SPARES_CONFIG_KEY, '3');
    const more = await Promise.all(['d', 'e', 'f', 'g'].map((name) => createWorkspace({ repo, name })));
    expect(sparesOf(repo)).toHaveLength(0);
    for (const ws of more) await removeWorkspace(ws);
    expect(sparesOf(repo)).toHaveLength(3);

    expect(await removeSpares({ repo })).toBe(3);
    expect(sparesOf(repo)).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
    const admin = join(repo, '.git', 'worktrees');
    expect(existsSync(admin) ? readdirSync(admin) : []).toEqual([]);
  });

  it('deletes instead of parking a folder with an unfinished merge, and rejects a bad count', async () => {
    const repo = repoWith();
    const ws = await createWorkspace({ repo, name: 'merging' });
    writeFileSync(join(git(ws.path, 'rev-parse', '--absolute-git-dir'), 'MERGE_HEAD'), `${ws.baseCommit}\n`);
    await removeWorkspace(ws, { spares: 4 });
    expect(existsSync(ws.path)).toBe(false);
    expect(sparesOf(repo)).toEqual([]);
    const other = await createWorkspace({ repo, name: 'other' });
    await expect(removeWorkspace(other, { spares: -1 })).rejects.toThrow(/spares.*whole number/);
    await removeWorkspace(other);
  });

  it('many workspaces made at once from spares each get their own folder and branch', async () => {
    const repo = repoWith();
    const before = await snapshotParent(repo);
    const first = await Promise.all(Array.from({ length: 8 }, (_, index) => createWorkspace({ repo, name: `p${index}` })));
    await Promise.all(first.map((ws) => removeWorkspace(ws, { spares: 8 })));
    expect(sparesOf(repo)).toHaveLength(8);
    const second = await Promise.all(Array.from({ length: 10 }, (_, index) => createWorkspace({ repo, name: `q${index}` })));
    expect(sparesOf(repo)).toEqual([]);
    for (const ws of second) {
      writeFileSync(join(ws.path, `${ws.name}.txt`), ws.name);
      expect(git(ws.path, 'status', '--porcelain')).toBe(`?? ${ws.name}.txt`);
      expect(git(ws.path, 'symbolic-ref', '--short', 'HEAD')).toBe(ws.branch);
    }
    await Promise.all(second.map((ws) => removeWorkspace(ws)));
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
    await checkParentUntouched(before);
  });
});
