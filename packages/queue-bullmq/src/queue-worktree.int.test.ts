// A Looper job with `isolation: 'worktree'` on real worker processes over a real redis-server: the worker clones the
// origin, works in a workspace of its clone, is killed with kill -9 mid-job; the next worker reports the workspace
// it left (kept: it holds work), takes the job over from that work, and the origin gets the job's branch.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, type AnyTroupeEvent } from '@troupe/core';
import { checkParentUntouched, snapshotParent } from '@troupe/worktree';
import { git } from '@troupe/worktree/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyJobResult, createQueueClient, submitLooperJob, type QueueClient } from './index';
import { copySampleWorkspace, findRedisServer, startTestRedis, startTestWorker, waitFor, type TestRedis, type TestWorker } from './testing/queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED worktree worker tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('isolation "worktree" jobs on worker processes (real redis-server, real git)', () => {
  let redis: TestRedis;
  let dir: string;
  const workers: TestWorker[] = [];
  let client: QueueClient | undefined;

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-queue-worktree-int-')));
  });
  afterAll(async () => {
    await client?.close();
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 mid-job: the next worker keeps and reports the leftover workspace at start, completes the job from its work, and the origin gets troupe/job-<id>', async () => {
    // The origin: the sample workspace as a repository, with an uncommitted edit that must survive.
    const origin = copySampleWorkspace(dir, 'origin');
    git(origin, 'init', '--quiet', '--initial-branch=main');
    git(origin, 'add', '-A');
    git(origin, 'commit', '--quiet', '-m', 'sample');
    const base = git(origin, 'rev-parse', 'HEAD');
    const workRoot = join(dir, 'work');
    const env = { TROUPE_TEST_WORK_ROOT: workRoot, TROUPE_TEST_ALLOW_LOCAL_GIT: '1', TROUPE_TEST_ALLOWED_ROOTS: dir };

    const bus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void events.push(event));
    client = createQueueClient({ connection: redis.url, eventBus: bus, backoff: { type: 'fixed', delayMs: 200 } });
    // The first worker's Coder is slow: it writes sum.js, then keeps talking for seconds.
    const first = await startTestWorker(redis.url, { env: { ...env, TROUPE_DEMO_PAUSE_MS: '700' } });
    workers.push(first);
    const job = await submitLooperJob(client, { task: 'Add a sum function in sum.js and tests for it.', workspace: { gitUrl: origin }, isolation: 'worktree', base }, { jobId: 'wt-1', maxAttempts: 3 });

    // Kill the worker once its Coder has written into the job's workspace (work that is not committed anywhere yet).
    const leftover = await waitFor(() => {
      for (const clone of existsSync(workRoot) ? readdirSync(workRoot) : []) {
        const workspaces = join(workRoot, clone, '.troupe', 'workspaces');
        for (const name of existsSync(workspaces) ? readdirSync(workspaces) : []) if (existsSync(join(workspaces, name, 'sum.js'))) return { clone: join(workRoot, clone), name };
      }
      return undefined;
    }, 'the first worker’s Coder to write sum.js in the job workspace', 60_000);
    first.child.kill('SIGKILL');
    await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, 'the worker to die');
    expect(leftover.name).toMatch(/^job-wt-1-[0-9a-f]+-a1$/);

    const second = await startTestWorker(redis.url, { env: { ...env, TROUPE_DEMO_PAUSE_MS: '20' } });
    workers.push(second);
    // At start, before taking the job again, it looked at the clone: the dead worker's workspace holds changes, so it is kept and said.
    expect(second.output()).toContain(`kept workspace ${join(leftover.clone, '.troupe', 'workspaces', leftover.name)} (branch troupe/${leftover.name}, uncommitted-changes) left by process ${first.pid}`);

    const result = await job.result;
    expect(result.outcome).toBe('terminated');
    const workspace = result.workspace;
    expect(workspace).toMatchObject({ jobId: 'wt-1', baseCommit: base, changed: true, format: 'bundle' });
    expect(workspace?.diffstat.files.map((file) => file.file)).toContain('sum.js');
    // It ran twice: the second time resumed, on the other worker.
    const started = events.filter((event) => event.type === 'queue:job-started').map((event) => event.payload as { resumed: boolean; workerId: string });
    expect(started.at(-1)?.resumed).toBe(true);
    expect(events.filter((event) => event.type === 'workspace:finished')).toHaveLength(1);

    // The origin: the job's branch, from its base, the dead attempt's work included; its checkout byte-identical.
    const before = await snapshotParent(origin);
    const applied = await applyJobResult(workspace!, { repo: origin });
    await checkParentUntouched(before);
    expect(applied).toMatchObject({ applied: true, branch: 'troupe/job-wt-1', baseCommit: base });
    expect(git(origin, 'merge-base', base, 'troupe/job-wt-1')).toBe(base);
    expect(git(origin, 'log', '--format=%s', `${base}..troupe/job-wt-1`)).toContain('work of an interrupted attempt');
    expect(git(origin, 'show', 'troupe/job-wt-1:sum.js')).toContain('0)');
    expect(git(origin, 'status', '--porcelain')).toBe('');
    // No workspace folder is left in the worker's clone.
    expect(git(leftover.clone, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 180_000);
});
