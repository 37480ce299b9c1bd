// Best-of-N attempts on the queue: each attempt is one job (an agent turn in a worker-side workspace, its change sent
// back as a bundle or patch), applied at the origin as a branch of its own. The agent is the fake agent CLI behind a
// generic adapter, writing its solution in its working folder; the repositories are real git repositories.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, MemoryStore } from '@troupe/core';
import { AdapterRegistry, createGenericAdapter } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyBestOfNAttempt,
  BEST_OF_N_QUEUE,
  createBestOfNAttemptJobHandler,
  createQueueClient,
  createQueueWorker,
  submitBestOfNAttempt,
  type BestOfNAttemptJob,
  type BestOfNAttemptJobHandlerOptions,
} from './index';
import type { QueueJobContext } from './queue-job';
import { findRedisServer, startTestRedis, type TestRedis } from './testing/queue-test-kit';

let dir: string;
const cleanups: (() => void)[] = [];
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-best-of-n-job-')));
});
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A `fake` adapter: the fake agent CLI, scripted per attempt (its role id). */
function fakeAgents(script: (attemptId: string) => FakeAgentCliOptions): AdapterRegistry {
  const adapters = new AdapterRegistry();
  const generic = createGenericAdapter({ name: 'fake', command: 'fake', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } });
  adapters.register({ type: 'fake', create: () => withFakeAgentCli(generic, ({ context }) => script(context?.roleId ?? 'unknown')) });
  return adapters;
}

const answer = (text: string) => [JSON.stringify({ content: text })];

/** Attempt `*-pass` writes a passing solution, `*-fail` a failing one, `*-crash` writes then exits 3. */
const script = (attemptId: string): FakeAgentCliOptions => {
  if (attemptId.endsWith('crash')) return { writeFiles: { 'solution.txt': 'half\n' }, lines: answer('oops'), exitCode: 3 };
  const passes = attemptId.endsWith('pass');
  return { writeFiles: { 'solution.txt': passes ? 'pass\n' : 'fail\nmore\n' }, lines: answer(`I wrote a ${passes ? 'passing' : 'failing'} solution`), firstDelayMs: 1500 };
};

function originRepo(): { origin: string; base: string } {
  const { repo: origin, cleanup } = makeTestRepo({ 'README.md': '# task\n' });
  cleanups.push(cleanup);
  return { origin, base: git(origin, 'rev-parse', 'HEAD') };
}

function context(jobId: string, bus = new EventBus()): QueueJobContext {
  return { queue: BEST_OF_N_QUEUE, jobId, attempt: 1, resumed: false, workerId: 'test', eventBus: bus, store: new MemoryStore(), signal: new AbortController().signal, onCommand: () => () => {} };
}

describe('best-of-N attempt jobs (handler, no Redis)', () => {
  const options = (): BestOfNAttemptJobHandlerOptions => ({ adapters: fakeAgents(script), workRoot: join(dir, 'clones'), allowedRoots: [dir, tmpdir()], allowLocalGitUrls: true, onWorkspaceGc: () => {} });

  it("runs the agent's turn in a workspace of the worker's clone and hands its change back; a failed turn still hands back what it wrote", async () => {
    const { origin, base } = originRepo();
    const handler = createBestOfNAttemptJobHandler(options());
    const job = (attemptId: string): BestOfNAttemptJob => handler.parse({ runId: 'r1', attemptId, agent: 'fake', task: 'Write solution.txt', workspace: { gitUrl: origin }, base, changeFormat: 'patch' });
    const bus = new EventBus();
    const turns: string[] = [];
    bus.on('agent:turn-completed', (event) => void turns.push(event.payload.roleId));
    const passed = await handler.run(job('fake-pass'), context('job-pass', bus));
    expect(passed).toMatchObject({ attemptId: 'fake-pass', agent: 'fake', status: 'completed', text: 'I wrote a passing solution', workspace: { changed: true, format: 'patch', baseCommit: base, diffstat: { insertions: 1, deletions: 0 } } });
    expect(passed.workspace.patch).toContain('+pass');
    // The turn's agent events are on the job's bus (the origin's, through the queue).
    expect(turns).toEqual(['fake-pass']);

    const crashed = await handler.run(job('fake-crash'), context('job-crash'));
    expect(crashed).toMatchObject({ status: 'error', error: { message: expect.stringMatching(/exit/i) }, workspace: { changed: true } });

    // At the origin: each attempt a branch of its own; the checkout is untouched.
    const applied = await applyBestOfNAttempt('r1', passed, { repo: origin });
    expect(applied).toMatchObject({ applied: true, branch: 'troupe/best-of-n/r1/fake-pass', baseCommit: base });
    expect(git(origin, 'show', 'troupe/best-of-n/r1/fake-pass:solution.txt')).toBe('pass');
    expect(git(origin, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(origin, 'solution.txt'))).toBe(false);
  }, 60_000);

  it('refuses a bad job before anything runs, naming the field', () => {
    const handler = createBestOfNAttemptJobHandler(options());
    expect(() => handler.parse({ runId: 'r1', attemptId: 'a-1', agent: 'fake', task: 'x', workspace: { path: dir }, base: '--upload-pack=evil' })).toThrow(/base/);
    expect(() => handler.parse({ runId: 'r 1', attemptId: 'a-1', agent: 'fake', task: 'x', workspace: { path: dir } })).toThrow(/runId/);
    expect(() => handler.parse({ runId: 'r1', attemptId: 'a-1', agent: 'fake', task: 'x', workspace: { path: dir }, env: { KEY: 'v' } })).toThrow(/env/);
  });
});

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED best-of-N queue tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('best-of-N attempts spread over two workers (real redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('runs each attempt as a job on its own worker; the origin gets every change as a branch of its own, and the agent events', async () => {
    const { origin, base } = originRepo();
    const workers = ['w1', 'w2'].map((name) =>
      createQueueWorker({
        connection: redis.url,
        workerId: name,
        concurrency: 1,
        handlers: { [BEST_OF_N_QUEUE]: createBestOfNAttemptJobHandler({ adapters: fakeAgents(script), workRoot: join(dir, name), allowedRoots: [dir, tmpdir()], allowLocalGitUrls: true, onWorkspaceGc: () => {} }) },
      }),
    );
    const bus = new EventBus();
    const client = createQueueClient({ connection: redis.url, eventBus: bus });
    const ranOn = new Map<string, string>();
    bus.on('queue:job-started', (event) => void ranOn.set(event.payload.jobId, event.payload.workerId));
    const turns: string[] = [];
    bus.on('agent:turn-completed', (event) => void turns.push(event.payload.roleId));
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      const attempts = ['fake-1-pass', 'fake-2-fail'];
      const jobs = await Promise.all(attempts.map((attemptId) => submitBestOfNAttempt(client, { runId: 'run-q', attemptId, agent: 'fake', task: 'Write solution.txt', workspace: { gitUrl: origin }, base })));
      const results = await Promise.all(jobs.map((job) => job.result));
      expect(results.map((result) => [result.attemptId, result.status, result.workspace.format, result.workspace.changed])).toEqual([
        ['fake-1-pass', 'completed', 'bundle', true],
        ['fake-2-fail', 'completed', 'bundle', true],
      ]);
      // Each attempt ran on another worker (both were free, each takes one job at a time).
      expect(new Set(jobs.map((job) => ranOn.get(job.id)))).toEqual(new Set(['w1', 'w2']));
      for (const result of results) await applyBestOfNAttempt('run-q', result, { repo: origin });
      expect(git(origin, 'show', 'troupe/best-of-n/run-q/fake-1-pass:solution.txt')).toBe('pass');
      expect(git(origin, 'show', 'troupe/best-of-n/run-q/fake-2-fail:solution.txt')).toBe('fail\nmore');
      expect(git(origin, 'rev-parse', 'HEAD')).toBe(base);
      expect(git(origin, 'status', '--porcelain')).toBe('');
      expect(turns.sort()).toEqual(attempts);
    } finally {
      await client.close();
      await Promise.all(workers.map((worker) => worker.close()));
    }
  }, 120_000);
});
