// Looper jobs with `isolation: 'worktree'`, through the public handler (in-memory store, no Redis) and
// `applyJobResult`, on real git repositories: the worker's copy is a clone of the origin, the Coder is an agent
// that writes files in its working directory, and the change travels back as a bundle or a patch.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, InvalidArgumentError, MemoryStore, type AnyTroupeEvent } from '@troupe/core';
import { defineAgent } from '@troupe/core/agent-runtime';
import { Looper } from '@troupe/looper';
import { checkParentUntouched, snapshotParent } from '@troupe/worktree';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyJobResult,
  createLooperJobHandler,
  type JobWorkspaceGcReport,
  type JobWorkspaceResult,
  type LooperJobEnvironment,
  type LooperJobHandlerOptions,
  type LooperJobSpec,
} from './index';
import type { QueueJobContext } from './queue-job';

let dir: string;
const cleanups: (() => void)[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-queue-worktree-')));
});
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The origin's repository, and the worker's copy of it (a clone inside the worker's allowed folder). */
function originAndCopy(name: string): { origin: string; copy: string; base: string } {
  const { repo: origin, cleanup } = makeTestRepo({ 'README.md': '# app\n', 'sum.js': 'module.exports = () => 0;\n' });
  cleanups.push(cleanup);
  const copy = join(dir, name);
  git(dir, 'clone', '--quiet', origin, copy);
  return { origin, copy, base: git(origin, 'rev-parse', 'HEAD') };
}

/** A Looper whose Coder runs `write` in its working directory and whose Review always passes. */
function looperWith(write: (cwd: string, environment: LooperJobEnvironment) => void) {
  return (environment: LooperJobEnvironment) =>
    new Looper({
      coder: defineAgent({
        id: 'coder',
        description: 'writes files',
        run: async (_input, { context }) => {
          write(context.workspacePath as string, environment);
          return 'done';
        },
      }),
      review: defineAgent({ id: 'review', description: 'passes', run: async () => ({ text: 'Health: normal.', data: { health: 'normal', summary: 'ok', findings: [] } }) }),
      eventBus: environment.eventBus,
      messages: environment.messages,
      stateStore: environment.stateStore,
      workspacePath: environment.workspacePath,
      maxIterations: 2,
    });
}

function context(jobId: string, attempt = 1, store = new MemoryStore(), bus = new EventBus()): QueueJobContext {
  return { queue: 'troupe-looper', jobId, attempt, resumed: attempt > 1, workerId: 'test', eventBus: bus, store, signal: new AbortController().signal, onCommand: () => () => {} };
}

function handler(createLooper: LooperJobHandlerOptions['createLooper'], extra: Partial<LooperJobHandlerOptions> = {}) {
  const jobHandler = createLooperJobHandler({ createLooper, workRoot: join(dir, 'clones'), allowedRoots: [dir], onWorkspaceGc: () => {}, ...extra });
  return (spec: Omit<LooperJobSpec, 'task'>, jobContext: QueueJobContext) => jobHandler.run(jobHandler.parse({ task: 'Add a feature', ...spec }), jobContext);
}

const addFeature = looperWith((cwd) => {
  writeFileSync(join(cwd, 'feature.js'), 'module.exports = 42;\n');
  writeFileSync(join(cwd, 'sum.js'), 'module.exports = (xs) => xs.reduce((a, b) => a + b, 0);\n');
});

describe('isolation: "worktree" jobs', () => {
  it('runs the Looper in a workspace from the origin’s commit and returns branch, diffstat and a bundle the origin fetches as troupe/job-<id>', async () => {
    const { origin, copy, base } = originAndCopy('copy-bundle');
    // The worker's copy moved on since: the job still starts from the commit the origin asked for.
    writeFileSync(join(copy, 'later.txt'), 'later\n');
    git(copy, 'add', '-A');
    git(copy, 'commit', '--quiet', '-m', 'later on the worker');
    const copyBefore = await snapshotParent(copy);
    const events: AnyTroupeEvent[] = [];
    const bus = new EventBus();
    bus.on('*', (event) => void events.push(event));
    const seen: string[] = [];
    const result = await handler((environment) => (seen.push(environment.workspacePath), addFeature(environment)))(
      { workspace: { path: copy }, isolation: 'worktree', base },
      context('job-1', 1, new MemoryStore(), bus),
    );

    expect(result.outcome).toBe('terminated');
    // The agents ran in a workspace of the copy, not in the copy itself; the copy is as it was.
    expect(seen[0]).toContain(join(copy, '.troupe', 'workspaces'));
    await checkParentUntouched(copyBefore);
    const workspace = result.workspace as JobWorkspaceResult;
    expect(workspace).toMatchObject({ jobId: 'job-1', baseCommit: base, changed: true, format: 'bundle', diffstat: { insertions: 2, deletions: 1 } });
    expect(workspace.diffstat.files.map((file) => file.file).sort()).toEqual(['feature.js', 'sum.js']);
    expect(workspace.bytes).toBeGreaterThan(0);
    expect(Buffer.from(workspace.bundle as string, 'base64').length).toBe(workspace.bytes);
    // The workspace folder is gone; its branch (with the job's commit) stays on the worker; later.txt is not in it.
    expect(existsSync(seen[0] as string)).toBe(false);
    expect(git(copy, 'rev-parse', `refs/heads/${workspace.branch}`)).toBe(workspace.headCommit);
    expect(git(copy, 'ls-tree', '--name-only', workspace.headCommit)).not.toContain('later.txt');
    expect(events.filter((event) => event.type === 'workspace:finished').map((event) => (event.payload as { owner: string }).owner)).toEqual(['job-1']);

    // The origin: a new branch with the job's commit; its checkout stays byte-identical (an uncommitted edit included).
    writeFileSync(join(origin, 'README.md'), '# app, edited at the origin\n');
    const originBefore = await snapshotParent(origin);
    const applied = await applyJobResult(workspace, { repo: origin });
    await checkParentUntouched(originBefore);
    expect(applied).toEqual({ applied: true, branch: 'troupe/job-job-1', baseCommit: base, headCommit: workspace.headCommit });
    expect(git(origin, 'show', 'troupe/job-job-1:feature.js')).toBe('module.exports = 42;');
    expect(git(origin, 'rev-parse', 'troupe/job-job-1^')).toBe(base);
    expect(git(origin, 'branch', '--show-current')).toBe('main');

    // Applied twice: the branch exists, said clearly, nothing changed.
    await expect(applyJobResult(workspace, { repo: origin })).rejects.toThrow(/branch troupe\/job-job-1 already exists/);
    // Another branch name works.
    await expect(applyJobResult(workspace, { repo: origin, branch: 'review/job-1' })).resolves.toMatchObject({ branch: 'review/job-1' });
  });

  it('returns a patch when asked; the origin checks it with git apply --check and commits it on the base without touching its checkout', async () => {
    const { origin, copy, base } = originAndCopy('copy-patch');
    const result = await handler(addFeature)({ workspace: { path: copy }, isolation: 'worktree', base, changeFormat: 'patch' }, context('job-2'));
    const workspace = result.workspace as JobWorkspaceResult;
    expect(workspace.format).toBe('patch');
    expect(workspace.bundle).toBeUndefined();
    expect(workspace.patch).toContain('+module.exports = 42;');
    const before = await snapshotParent(origin);
    const applied = await applyJobResult(workspace, { repo: origin });
    await checkParentUntouched(before);
    expect(git(origin, 'show', `${applied.branch}:feature.js`)).toBe('module.exports = 42;');
    expect(git(origin, 'rev-parse', `${applied.branch}^`)).toBe(base);

    // A patch that no longer applies (the base's sum.js differs in this repository) is refused before anything is written.
    const { repo: other, cleanup } = makeTestRepo({ 'sum.js': 'something else\n' });
    cleanups.push(cleanup);
    git(other, 'fetch', '--quiet', origin, 'main:from-origin');
    const drifted = { ...workspace, patch: (workspace.patch as string).replace('-module.exports = () => 0;', '-module.exports = () => 1;') };
    await expect(applyJobResult(drifted, { repo: other })).rejects.toThrow(/the patch of job job-2 does not apply/);
    expect(git(other, 'branch', '--list', 'troupe/*')).toBe('');
  });

  it('refuses, before any agent starts, a workspace that is not a git repository and a base the worker’s copy lacks', async () => {
    const plain = join(dir, 'plain-folder');
    mkdirSync(plain, { recursive: true });
    let built = 0;
    const run = handler((environment) => (built++, addFeature(environment)));
    await expect(run({ workspace: { path: plain }, isolation: 'worktree' }, context('job-3'))).rejects.toMatchObject({
      name: 'QueueError',
      failureCode: 'QUEUE_NOT_A_REPOSITORY',
      unrecoverable: true,
      params: { path: plain },
    });
    const { copy } = originAndCopy('copy-missing-base');
    const missing = 'f'.repeat(40);
    await expect(run({ workspace: { path: copy }, isolation: 'worktree', base: missing }, context('job-4'))).rejects.toMatchObject({
      failureCode: 'QUEUE_BASE_MISSING',
      unrecoverable: true,
      message: expect.stringContaining(missing),
    });
    expect(built).toBe(0);
    // base without isolation is a payload error.
    expect(() => createLooperJobHandler({ createLooper: addFeature }).parse({ task: 't', workspace: { path: copy }, base: 'HEAD' })).toThrow(/isolation/);
  });

  it('fails a change over maxResultBytes with a clear error and keeps its branch on the worker', async () => {
    const { copy, base } = originAndCopy('copy-large');
    const run = handler(addFeature, { maxResultBytes: 16 });
    const failure = await run({ workspace: { path: copy }, isolation: 'worktree', base }, context('job-5')).catch((error: unknown) => error);
    expect(failure).toMatchObject({ failureCode: 'QUEUE_RESULT_TOO_LARGE', unrecoverable: true, params: { limit: 16, jobId: 'job-5' } });
    const branch = (failure as { params: { branch: string } }).params.branch;
    expect(git(copy, 'show', `${branch}:feature.js`)).toBe('module.exports = 42;');
    // The folder went (only the main checkout is a worktree of the copy).
    expect(git(copy, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('a retry continues from the work an earlier attempt left (committed on its branch): nothing is lost', async () => {
    const { origin, copy, base } = originAndCopy('copy-retry');
    const store = new MemoryStore();
    // The first attempt writes a file, then dies (as a killed worker would, before committing anything).
    const run = handler((environment) => {
      if (environment.attempt > 1) return addFeature(environment);
      writeFileSync(join(environment.workspacePath, 'half.js'), 'module.exports = "first attempt";\n');
      throw new Error('the worker died here');
    });
    await expect(run({ workspace: { path: copy }, isolation: 'worktree', base }, context('job-6', 1, store))).rejects.toThrow();
    const result = await run({ workspace: { path: copy }, isolation: 'worktree', base }, context('job-6', 2, store));
    const workspace = result.workspace as JobWorkspaceResult;
    expect(workspace.baseCommit).toBe(base);
    expect(workspace.diffstat.files.map((file) => file.file).sort()).toEqual(['feature.js', 'half.js', 'sum.js']);
    const applied = await applyJobResult(workspace, { repo: origin });
    expect(git(origin, 'log', '--format=%s', `${base}..${applied.branch}`)).toContain('work of an interrupted attempt');
    expect(git(origin, 'show', `${applied.branch}:half.js`)).toBe('module.exports = "first attempt";');
    // Neither attempt left a folder behind.
    expect(readdirSync(join(copy, '.troupe', 'workspaces')).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('a cancelled job leaves no folder: its leftovers are committed on its branch, which a later run of the job carries on', async () => {
    const { copy, base } = originAndCopy('copy-cancel');
    const controller = new AbortController();
    const run = handler((environment) =>
      looperWith((cwd) => {
        writeFileSync(join(cwd, 'partial.js'), 'module.exports = "before the cancel";\n');
        controller.abort(new Error('cancelled by the user'));
      })(environment),
    );
    const jobContext = { ...context('job-8'), signal: controller.signal };
    await expect(run({ workspace: { path: copy }, isolation: 'worktree', base }, jobContext)).rejects.toThrow('cancelled by the user');
    expect(readdirSync(join(copy, '.troupe', 'workspaces')).filter((name) => !name.startsWith('.'))).toEqual([]);
    expect(git(copy, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const branch = git(copy, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/troupe/job-job-8-*');
    expect(branch).toMatch(/^troupe\/job-job-8-[0-9a-f]+-a1$/);
    expect(git(copy, 'show', `${branch}:partial.js`)).toBe('module.exports = "before the cancel";');
    expect(git(copy, 'log', '-1', '--format=%s', branch)).toBe('troupe: job job-8, work of a cancelled attempt');
    // Run again (same job id): it starts from that work.
    const again = await handler(addFeature)({ workspace: { path: copy }, isolation: 'worktree', base }, context('job-8', 2));
    expect((again.workspace as JobWorkspaceResult).diffstat.files.map((file) => file.file).sort()).toEqual(['feature.js', 'partial.js', 'sum.js']);
  });

  it('applyJobResult names what is wrong: not a checkout, an origin without the base commit, a bundle that does not verify', async () => {
    const { copy, base } = originAndCopy('copy-errors');
    const result = await handler(addFeature)({ workspace: { path: copy }, isolation: 'worktree', base }, context('job-7'));
    const workspace = result.workspace as JobWorkspaceResult;
    const plain = join(dir, 'not-a-repo');
    mkdirSync(plain, { recursive: true });
    await expect(applyJobResult(workspace, { repo: plain })).rejects.toThrow(/not-a-repo is not a git checkout/);
    const { repo: unrelated, cleanup } = makeTestRepo();
    cleanups.push(cleanup);
    const before = await snapshotParent(unrelated);
    const lacking = await applyJobResult(workspace, { repo: unrelated }).catch((error: unknown) => error);
    expect(lacking).toBeInstanceOf(InvalidArgumentError);
    expect((lacking as Error).message).toContain(`lacks commit ${base}, the base of job job-7`);
    await checkParentUntouched(before);
    git(unrelated, 'fetch', '--quiet', copy, `${base}:refs/heads/base`);
    const corrupt = { ...workspace, bundle: Buffer.from('# v2 git bundle\nnot a bundle\n').toString('base64') };
    await expect(applyJobResult(corrupt, { repo: unrelated })).rejects.toThrow(/the bundle of job job-7 does not verify/);
    await expect(applyJobResult({ ...workspace, headCommit: 'HEAD' }, { repo: unrelated })).rejects.toThrow(/headCommit "HEAD" is not a commit id/);
    expect(git(unrelated, 'branch', '--list', 'troupe/*')).toBe('');
  });
});

describe('worker start-up: the workspaces a dead process left in the job clones', () => {
  /** Creates a workspace from another Node process, which then exits: its marker names a process that is gone. */
  function workspaceOfDeadProcess(repo: string, name: string): string {
    const script = `const { createWorkspace } = await import('@troupe/worktree'); process.stdout.write((await createWorkspace({ repo: ${JSON.stringify(repo)}, name: ${JSON.stringify(name)} })).path);`;
    const made = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', '--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    return made.stdout;
  }

  it('removes those without work, keeps and reports those with commits, before the worker takes a job', async () => {
    const workRoot = join(dir, 'start-clones');
    mkdirSync(workRoot, { recursive: true });
    const { origin } = originAndCopy('unused');
    const clone = join(workRoot, 'job-a-0123');
    git(workRoot, 'clone', '--quiet', origin, clone);
    const empty = workspaceOfDeadProcess(clone, 'job-empty-a1');
    const worked = workspaceOfDeadProcess(clone, 'job-worked-a1');
    writeFileSync(join(worked, 'done.txt'), 'work\n');
    git(worked, 'add', '-A');
    git(worked, 'commit', '--quiet', '-m', 'work of a killed worker');
    const reports: JobWorkspaceGcReport[] = [];
    const jobHandler = createLooperJobHandler({ createLooper: addFeature, workRoot, onWorkspaceGc: (report) => void reports.push(report) });
    await jobHandler.start?.({ workerId: 'test', signal: new AbortController().signal });
    expect(reports).toHaveLength(1);
    expect(reports[0]?.repo).toBe(clone);
    expect(reports[0]?.removed.map((entry) => entry.name)).toEqual(['job-empty-a1']);
    expect(reports[0]?.kept.map((entry) => [entry.name, entry.reason])).toEqual([['job-worked-a1', 'has-commits']]);
    expect(existsSync(empty)).toBe(false);
    expect(git(clone, 'branch', '--list', 'troupe/job-empty-a1')).toBe('');
    expect(git(clone, 'show', 'troupe/job-worked-a1:done.txt')).toBe('work');
  });
});
