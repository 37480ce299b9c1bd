import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus, parseEvent, serializeEvent, type AnyTroupeEvent } from '@troupe/core';
import { runInWorkspace, snapshotParent, WorkspaceEscapeError } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

function repo(): string {
  const made = makeTestRepo();
  cleanups.push(made.cleanup);
  return made.repo;
}

describe('runInWorkspace', () => {
  it('returns the value and the diff, commits when asked, and keeps a changed workspace', async () => {
    const parent = repo();
    const before = await snapshotParent(parent);
    const run = await runInWorkspace({ repo: parent, name: 'edit', commit: true }, async (ws) => {
      writeFileSync(join(ws.path, 'NEW.md'), 'hello\n');
      return 42;
    });
    expect(run.value).toBe(42);
    expect(run.result.diffstat.files.map((file) => file.file)).toEqual(['NEW.md']);
    expect(run.result.committed).toBe(true);
    expect(run.removed).toBe(false);
    expect(existsSync(run.workspace.path)).toBe(true);
    expect(git(parent, 'rev-parse', 'troupe/edit')).toBe(run.result.headCommit);
    expect(await snapshotParent(parent)).toEqual(before);
  });

  it('removes a workspace where nothing changed, folder and branch', async () => {
    const parent = repo();
    const run = await runInWorkspace({ repo: parent, name: 'idle' }, async () => 'nothing');
    expect(run.removed).toBe(true);
    expect(existsSync(run.workspace.path)).toBe(false);
    expect(git(parent, 'branch', '--list', 'troupe/idle')).toBe('');
  });

  it('fails with a WorkspaceEscapeError when the run writes into the parent, and keeps the workspace', async () => {
    const parent = repo();
    const error = await runInWorkspace({ repo: parent, name: 'escaper' }, async (ws) => {
      writeFileSync(join(ws.path, 'inside.txt'), 'in\n');
      writeFileSync(join(ws.path, '..', '..', '..', 'outside.txt'), 'out\n');
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceEscapeError);
    expect((error as Error).message).toContain('outside.txt');
    expect(existsSync(join(parent, '.troupe', 'workspaces', 'escaper', 'inside.txt'))).toBe(true);
  });

  it('rethrows the run error, keeping a workspace with changes and removing an empty one', async () => {
    const parent = repo();
    await expect(runInWorkspace({ repo: parent, name: 'crash-empty' }, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(existsSync(join(parent, '.troupe', 'workspaces', 'crash-empty'))).toBe(false);
    await expect(
      runInWorkspace({ repo: parent, name: 'crash-work' }, async (ws) => {
        writeFileSync(join(ws.path, 'half.txt'), 'half\n');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(join(parent, '.troupe', 'workspaces', 'crash-work', 'half.txt'))).toBe(true);
  });

  it('reports created, finished and escaped on a bus, with events that pass their schemas', async () => {
    const parent = repo();
    const bus = new EventBus();
    const seen: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void seen.push(event));
    await runInWorkspace({ repo: parent, name: 'seen', bus, owner: 'coder' }, async (ws) => writeFileSync(join(ws.path, 'a.txt'), 'a\n'));
    await runInWorkspace({ repo: parent, name: 'out', bus }, async (ws) => writeFileSync(join(ws.path, '..', '..', '..', 'b.txt'), 'b\n')).catch(() => {});
    expect(seen.map((event) => event.type)).toEqual(['workspace:created', 'workspace:finished', 'workspace:created', 'workspace:escaped']);
    const finished = seen[1]!;
    expect(finished.payload).toMatchObject({ owner: 'coder', branch: 'troupe/seen', removed: false, diffTruncated: false, diffstat: { files: [{ file: 'a.txt', insertions: 1, deletions: 0 }] } });
    expect((finished.payload as { diff: string }).diff).toContain('+a');
    expect(seen[3]!.payload).toMatchObject({ owner: 'out', changed: ['status'] });
    for (const event of seen) expect(parseEvent(serializeEvent(event)).type).toBe(event.type);
  });

  it('from a linked worktree, catches a write into the main checkout too (where ../../../ from the workspace lands)', async () => {
    const parent = repo();
    const linked = `${parent}-linked`;
    cleanups.push(() => rmSync(linked, { recursive: true, force: true }));
    git(parent, 'worktree', 'add', '--quiet', '-b', 'side', linked);
    const error = await runInWorkspace({ repo: linked, name: 'up' }, async (ws) => writeFileSync(join(ws.path, '..', '..', '..', 'landed.txt'), 'x\n')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceEscapeError);
    expect(error).toMatchObject({ repo: parent, changed: ['status'] });
    expect((error as Error).message).toContain('landed.txt');
  });
});
