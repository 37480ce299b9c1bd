import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineAgent } from '@troupe/core/agent-runtime';
import { InvalidArgumentError, type AnyTroupeEvent, type RunnableAgent } from '@troupe/core';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { simplifiedChineseLooperTexts } from '../index';
import { gatedAgent, normal, scriptedReviewer, setupLooper } from './looper-test-helpers';

const repos: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of repos.splice(0)) cleanup();
});

function repo(files?: Record<string, string>): string {
  const made = makeTestRepo(files);
  repos.push(made.cleanup);
  return made.repo;
}

/** A Coder that writes `file` in its work directory and records where it ran. */
function editingCoder(file: string, content: string) {
  const cwds: (string | undefined)[] = [];
  const agent = defineAgent({
    id: 'coder',
    description: 'writes a file in its work directory',
    run: (_input, { context }) => {
      cwds.push(context.workspacePath);
      writeFileSync(join(context.workspacePath as string, file), content);
      return `wrote ${file}`;
    },
  });
  return { agent, cwds };
}

/** A Review that records its work directory and reports normal health. */
function recordingReview() {
  const cwds: (string | undefined)[] = [];
  const scripted = scriptedReviewer(normal).agent;
  const agent = defineAgent({
    id: 'review',
    description: 'records its work directory',
    run: async (input, { context }) => {
      cwds.push(context.workspacePath);
      return (await scripted.start(input, context, {}).completion) as { text: string; data?: unknown };
    },
  });
  return { agent, cwds };
}

function isolated(parent: string, coder: { agent: RunnableAgent }, review = recordingReview()) {
  const setup = setupLooper({ coder: coder.agent, review: review.agent, isolation: 'worktree', workspacePath: parent });
  const workspaceEvents: AnyTroupeEvent[] = [];
  setup.bus.on('*', (event) => {
    if (event.type.startsWith('workspace:') || event.type === 'looper:workspace-merged') workspaceEvents.push(event);
  });
  return { ...setup, review, workspaceEvents };
}

describe("Looper with isolation: 'worktree'", () => {
  it('runs the Coder and the Review in a workspace on troupe/<looper-run>: the parent stays unchanged, the result holds the edit', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const coder = editingCoder('README.md', 'hello from the coder\n');
    const { looper, send, review, workspaceEvents, autos } = isolated(parent, coder);
    await send('Change the README');
    await looper.whenIdle();

    const status = looper.getStatus();
    const path = join(parent, '.troupe', 'workspaces', 'looper-run-1');
    expect(coder.cwds).toEqual([path]);
    expect(review.cwds).toEqual([path]);
    // The parent checkout: same file, same status, same branch.
    expect(readFileSync(join(parent, 'README.md'), 'utf8')).toBe('hello\n');
    expect(git(parent, 'status', '--porcelain')).toBe('');
    expect(git(parent, 'branch', '--show-current')).toBe('main');
    // The result: the branch holds the edit as a commit; state, status and the event say so.
    expect(status.workspace).toMatchObject({
      branch: 'troupe/looper-run-1',
      startBranch: 'main',
      result: { committed: true, diffstat: { files: [{ file: 'README.md', insertions: 1, deletions: 1 }], insertions: 1, deletions: 1 } },
    });
    expect(git(parent, 'show', 'troupe/looper-run-1:README.md')).toBe('hello from the coder');
    expect(looper.workspaceResult()?.diff).toContain('+hello from the coder');
    expect(looper.formatStatus()).toContain('Workspace branch troupe/looper-run-1: 1 file, +1 -1: README.md (+1 -1). To merge: send {"type":"merge"} (into main;');
    const finished = workspaceEvents.find((event) => event.type === 'workspace:finished');
    expect(finished?.payload).toMatchObject({ owner: 'looper-coder', branch: 'troupe/looper-run-1', committed: true });
    expect((finished?.payload as { diff: string }).diff).toContain('+hello from the coder');
    expect(autos().some((line) => line.startsWith('[AUTO] Working in workspace'))).toBe(true);
    expect(autos().at(-1)).toMatch(/^\[AUTO\] Workspace branch troupe\/looper-run-1: 1 file/);
  });

  it('says it in the Looper\'s language (zh-CN)', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const setup = setupLooper({ coder: editingCoder('README.md', 'hi\n').agent, review: recordingReview().agent, isolation: 'worktree', workspacePath: parent, texts: simplifiedChineseLooperTexts });
    await setup.send('改 README');
    await setup.looper.whenIdle();
    expect(setup.looper.formatStatus()).toContain('工作区分支 troupe/looper-run-1: 1 个文件, +1 -1: README.md (+1 -1)。 合并方法: 发送 {"type":"merge"}（合并到 main；');
    expect((await setup.looper.merge()).text).toMatch(/^已将 troupe\/looper-run-1 合并到 main（merge）；main 现在位于 [0-9a-f]{12}。$/);
  });

  it('merge: the branch goes into the branch the run started from (clean parent: fast-forwarded), then the workspace folder is removed', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const { looper, send, workspaceEvents } = isolated(parent, editingCoder('NOTES.md', 'notes\n'));
    await send('Add notes');
    await looper.whenIdle();
    const reply = await send('{"type":"merge"}');
    expect(reply.text).toMatch(/^Merged troupe\/looper-run-1 into main \(merge\); main is now at [0-9a-f]{12}\.$/);
    expect(readFileSync(join(parent, 'NOTES.md'), 'utf8')).toBe('notes\n');
    expect(git(parent, 'status', '--porcelain')).toBe('');
    expect(git(parent, 'log', '-1', '--format=%s')).toBe('Merge troupe/looper-run-1 into main');
    expect(existsSync(join(parent, '.troupe', 'workspaces', 'looper-run-1'))).toBe(false);
    expect(looper.getStatus().workspace?.merged).toMatchObject({ into: 'main', strategy: 'merge' });
    expect(workspaceEvents.find((event) => event.type === 'looper:workspace-merged')?.payload).toMatchObject({ ok: true, into: 'main', branch: 'troupe/looper-run-1' });
    // A second merge is refused, naming where it went.
    expect((await looper.merge()).text).toBe('troupe/looper-run-1 is already merged into main.');
  });

  it('merge into a new branch with squash: made from the base, the parent checkout untouched', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const { looper, send } = isolated(parent, editingCoder('NOTES.md', 'notes\n'));
    await send('Add notes');
    await looper.whenIdle();
    const reply = await looper.merge({ into: 'review/notes', strategy: 'squash' });
    expect(reply).toMatchObject({ ok: true, command: 'merge' });
    expect(git(parent, 'show', 'review/notes:NOTES.md')).toBe('notes');
    expect(git(parent, 'rev-list', '--count', 'main..review/notes')).toBe('1');
    expect(existsSync(join(parent, 'NOTES.md'))).toBe(false);
    expect(git(parent, 'status', '--porcelain')).toBe('');
  });

  it('a conflict comes back as the structured list; no branch moves and the parent stays as it was', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const { looper, send, workspaceEvents } = isolated(parent, editingCoder('README.md', 'from the coder\n'));
    await send('Change the README');
    await looper.whenIdle();
    // Meanwhile the user commits another change to the same line on main.
    writeFileSync(join(parent, 'README.md'), 'from the user\n');
    git(parent, 'commit', '--quiet', '-am', 'user change');
    const mainBefore = git(parent, 'rev-parse', 'main');
    const reply = await looper.merge();
    expect(reply.ok).toBe(false);
    expect(reply.text).toBe(
      'Merging troupe/looper-run-1 into main conflicts in 1 file: README.md (1 hunk). Nothing was changed; resolve on the branch, or merge into another branch with "into".',
    );
    expect(workspaceEvents.find((event) => event.type === 'looper:workspace-merged')?.payload).toMatchObject({ ok: false, conflicts: ['README.md'] });
    expect(git(parent, 'rev-parse', 'main')).toBe(mainBefore);
    expect(readFileSync(join(parent, 'README.md'), 'utf8')).toBe('from the user\n');
    expect(git(parent, 'status', '--porcelain')).toBe('');
    expect(git(parent, 'branch', '--list', '--format=%(refname:short)', 'troupe/*')).toBe('troupe/looper-run-1');
    expect(looper.getStatus().workspace?.merged).toBeUndefined();
  });

  it('merge into the checked-out branch of a parent with uncommitted changes is refused, naming them; nothing changes', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const { looper, send } = isolated(parent, editingCoder('NOTES.md', 'notes\n'));
    await send('Add notes');
    await looper.whenIdle();
    writeFileSync(join(parent, 'README.md'), 'local edit\n');
    const head = git(parent, 'rev-parse', 'HEAD');
    const reply = await looper.merge();
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain(`has main checked out with uncommitted changes (README.md)`);
    expect(git(parent, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(parent, 'status', '--porcelain')).toBe('M README.md');
  });

  it('merge is refused while running and without a workspace; bad merge commands are errors', async () => {
    const plain = setupLooper({ coder: editingCoder('a', 'b').agent, review: scriptedReviewer(normal).agent });
    expect((await plain.send('{"type":"merge"}')).text).toBe('Nothing to merge: no run has worked in a workspace (start the Looper with isolation "worktree").');
    expect(plain.looper.command('{"type":"merge","strategy":"octopus"}').text).toMatch(/^Invalid command: "merge" command: "strategy" /);
    expect(plain.looper.command('{"type":"merge","into":" "}').text).toMatch(/^Invalid command: "merge" command: "into" must not be empty/);
    const coder = gatedAgent('coder');
    const running = isolated(repo(), coder);
    await running.send('Wait');
    await coder.started();
    expect((await running.send('{"type":"merge"}')).text).toBe('Refused: a run is in progress; merge once it has ended (or stop it first).');
    coder.release('done');
    await running.looper.whenIdle();
  });

  it('a folder that is not a git repository fails the run before any agent starts, naming it', async () => {
    const notRepo = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-not-a-repo-')));
    repos.push(() => rmSync(notRepo, { recursive: true, force: true }));
    const coder = editingCoder('x', 'y');
    const { looper, send } = isolated(notRepo, coder);
    await send('Do it');
    await looper.whenIdle();
    expect(coder.cwds).toEqual([]);
    expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'failed' });
    expect(looper.getStatus().lastRun?.reason).toBe(`The loop failed unexpectedly: Invalid argument "repo": ${notRepo} is not a git checkout (isolation "worktree" makes the run's workspace from one)`);
  });

  it('an agent that writes into the parent checkout is reported at the end of the run; its workspace and work are kept', async () => {
    const parent = repo({ 'README.md': 'hello\n' });
    const agent = defineAgent({
      id: 'coder',
      description: 'writes in its workspace and, wrongly, in the parent',
      run: (_input, { context }) => {
        writeFileSync(join(context.workspacePath as string, 'inside.txt'), 'inside\n');
        writeFileSync(join(parent, 'outside.txt'), 'outside\n');
        return 'done';
      },
    });
    const { looper, send, autos } = isolated(parent, { agent });
    await send('Do it');
    await looper.whenIdle();
    const workspace = looper.getStatus().workspace;
    expect(workspace?.escaped).toMatch(/^The parent checkout .* changed outside its workspaces \(status\)/);
    expect(autos().some((line) => line.startsWith(`[AUTO] The parent checkout ${parent} changed during the run (status)`))).toBe(true);
    expect(workspace?.result?.diffstat.files.map((file) => file.file)).toEqual(['inside.txt']);
    expect(existsSync(join(parent, '.troupe', 'workspaces', 'looper-run-1', 'inside.txt'))).toBe(true);
  });

  it('rejects a bad isolation option when constructed', () => {
    expect(() => setupLooper({ coder: editingCoder('a', 'b').agent, review: scriptedReviewer(normal).agent, isolation: 'docker' as 'worktree' })).toThrow(InvalidArgumentError);
    expect(() => setupLooper({ coder: editingCoder('a', 'b').agent, review: scriptedReviewer(normal).agent, isolation: 'worktree', setup: { command: [] } })).toThrow(/setup.command/);
  });
});
