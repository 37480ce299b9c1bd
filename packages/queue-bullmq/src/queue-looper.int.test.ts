// Looper runs on real worker processes over a real redis-server: 3 workers, 60 jobs, one worker killed with
// kill -9 mid-job; cancellation; retries with backoff; a Redis restart; secrets. The Coder is the offline
// demo's fake `claude` through the real Claude Code adapter (see __fixtures__/looper-worker.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AbortError, EventBus, InvalidArgumentError, type AnyTroupeEvent } from '@troupe/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient, LOOPER_QUEUE, QueuedLooper, submitLooperJob, type LooperJobResult, type QueueClient } from './index';
import { copySampleWorkspace, findRedisServer, sleep, startTestRedis, startTestWorker, waitFor, type TestRedis, type TestWorker } from './testing/queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED worker integration tests: ${binary.reason}`);

interface RunRecord {
  kind: 'start' | 'end';
  jobId: string;
  pid: number;
  at: number;
  attempt?: number;
}

describe.skipIf('reason' in binary)('Looper jobs on worker processes (real redis-server)', () => {
  let redis: TestRedis;
  let dir: string;
  const workers: TestWorker[] = [];
  const clients: QueueClient[] = [];

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    dir = mkdtempSync(join(tmpdir(), 'troupe-queue-test-'));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  // Each test's workers stop when it ends, passed or failed, so none takes the next test's jobs.
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });

  async function worker(options: Parameters<typeof startTestWorker>[1] = {}): Promise<TestWorker> {
    const started = await startTestWorker(redis.url, options);
    workers.push(started);
    return started;
  }

  function client(bus?: EventBus, extra: Partial<Parameters<typeof createQueueClient>[0]> = {}): QueueClient {
    const created = createQueueClient({ connection: redis.url, ...(bus ? { eventBus: bus } : {}), backoff: { type: 'fixed', delayMs: 200 }, ...extra });
    clients.push(created);
    return created;
  }

  it('3 workers run 60 jobs; one killed with kill -9 mid-job: every job completes exactly once and the origin saw every event', async () => {
    const log = join(dir, 'runs.jsonl');
    const bus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void events.push(event));
    const origin = client(bus);
    const env = { TROUPE_TEST_RUN_LOG: log, TROUPE_DEMO_PAUSE_MS: '40' };
    const pool = await Promise.all([worker({ concurrency: 2, env }), worker({ concurrency: 2, env }), worker({ concurrency: 2, env })]);

    const jobs = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        submitLooperJob(origin, { task: 'Add a sum function in sum.js and tests for it.', workspace: { path: copySampleWorkspace(dir, `ws-${i}`) } }, { jobId: `sum-${i}` }),
      ),
    );
    // Kill one worker while it is running jobs (it has started some that have not ended).
    const victim = pool[1] as TestWorker;
    const records = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as RunRecord) : []);
    await waitFor(() => {
      const mine = records().filter((r) => r.pid === victim.pid);
      return mine.filter((r) => r.kind === 'start').length > mine.filter((r) => r.kind === 'end').length && mine.length >= 3;
    }, 'the victim worker to be mid-job');
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');

    const results = await Promise.all(jobs.map((job) => job.result));
    console.log(`[queue-bullmq] iterations per job: ${results.map((r) => r.iterations).join(' ')}`);
    for (const result of results) {
      expect(result.outcome).toBe('terminated');
      // Iteration 1 writes a buggy sum.js, the Review finds it, iteration 2 fixes it (a resumed run may redo a step).
      expect(result.iterations).toBeGreaterThanOrEqual(2);
      expect(result.iterations).toBeLessThan(4);
    }
    const counts = await origin.counts(LOOPER_QUEUE);
    expect(counts).toMatchObject({ completed: 60, failed: 0, active: 0, waiting: 0 });

    for (const job of jobs) {
      const mine = events.filter((event) => (event.payload as { jobId?: string }).jobId === job.id);
      // Exactly one completion per job, and a started event before it.
      expect(mine.filter((event) => event.type === 'queue:job-completed')).toHaveLength(1);
      expect(mine.findIndex((event) => event.type === 'queue:job-started')).toBeLessThan(mine.findIndex((event) => event.type === 'queue:job-completed'));
      expect(await readFileSafe(join(results[jobs.indexOf(job)]?.workspacePath ?? '', 'sum.js'))).toContain('0)');
    }
    // Every job's Looper events reached the origin, in order: per job, run-started … run-finished, then job-completed.
    const autoFinished = events.filter((event) => event.type === 'message:added' && (event.payload.message.metadata as { kind?: string })?.kind === 'run-finished');
    expect(autoFinished.length).toBeGreaterThanOrEqual(60);
    expect(events.filter((event) => event.type === 'looper:run-finished').length).toBeGreaterThanOrEqual(60);

    // The killed worker's job was retried elsewhere (resumed), and no job ever ran on two workers at once.
    const runs = records();
    const resumed = events.filter((event) => event.type === 'queue:job-started' && event.payload.resumed);
    expect(resumed.length).toBeGreaterThan(0);
    for (const job of jobs) {
      const intervals = runs
        .filter((r) => r.jobId === job.id && r.kind === 'start')
        .map((start) => {
          const end = runs.find((r) => r.jobId === job.id && r.kind === 'end' && r.pid === start.pid && r.at >= start.at);
          return { pid: start.pid, from: start.at, to: end?.at ?? (start.pid === victim.pid ? killedAt : Number.POSITIVE_INFINITY) };
        })
        .sort((a, b) => a.from - b.from);
      for (let i = 1; i < intervals.length; i++) expect(intervals[i]!.from).toBeGreaterThanOrEqual(intervals[i - 1]!.to);
    }
    await Promise.all(pool.map((w) => w.stop()));
  });

  it('kill -9 of a worker: the retry stops the dead worker’s Coder before it starts its own, never two Coders in one workspace', async () => {
    const log = join(dir, 'coders.jsonl');
    const coders = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { pid: number; othersRunning: number[] }) : []);
    // The first worker's Coder is slow (7 lines, 4 s apart): it would still run long after its worker died.
    const first = await worker({ env: { TROUPE_DEMO_PAUSE_MS: '4000', TROUPE_FAKE_CODER_LOG: log, TROUPE_FAKE_CODER_OUTLIVES: '1' } });
    const origin = client(new EventBus());
    const job = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: copySampleWorkspace(dir, 'leftover') } }, { maxAttempts: 2 });
    const firstCoder = await waitFor(() => coders()[0]?.pid, 'the first Coder to start');
    first.child.kill('SIGKILL');
    await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, 'the worker to die');
    expect(isRunning(firstCoder)).toBe(true); // it outlived its worker (its own process group)
    await worker({ env: { TROUPE_DEMO_PAUSE_MS: '20', TROUPE_FAKE_CODER_LOG: log } });
    expect(await job.result).toMatchObject({ outcome: 'terminated' });
    const starts = coders();
    expect(starts.length).toBeGreaterThan(1);
    // Each Coder, as it started, saw no earlier Coder still running; the dead worker's is gone now.
    expect(starts.map((start) => start.othersRunning)).toEqual(starts.map(() => []));
    expect(isRunning(firstCoder)).toBe(false);
  }, 180_000);

  it('kill -9 of a worker mid-clone: its git outlives it, and the retry stops that git before cloning again', async () => {
    // A git server that accepts connections and never answers: a clone hangs (until its time limit, 10 min here).
    const connections: { openedAt: number; closedAt?: number }[] = [];
    const server = createServer((socket) => {
      const connection: { openedAt: number; closedAt?: number } = { openedAt: Date.now() };
      connections.push(connection);
      socket.on('error', () => {});
      socket.on('close', () => (connection.closedAt = Date.now()));
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const first = await worker();
      const origin = client(new EventBus());
      const job = await submitLooperJob(origin, { task: 'Add sum', workspace: { gitUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git` } }, { maxAttempts: 2 });
      await waitFor(() => connections.length > 0, 'the first clone to connect');
      first.child.kill('SIGKILL');
      await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, 'the worker to die');
      await sleep(500);
      expect(connections[0]?.closedAt).toBeUndefined(); // its git still holds the connection
      await worker();
      await waitFor(() => connections.length > 1, 'the retry to clone', 90_000);
      // The dead worker's git was stopped before the retry's clone started.
      expect(connections[0]?.closedAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(connections[1]?.openedAt as number);
      await job.cancel();
      await expect(job.result).rejects.toBeInstanceOf(AbortError);
      await waitFor(() => connections.every((connection) => connection.closedAt !== undefined), 'every clone to be killed', 20_000);
    } finally {
      server.close();
    }
  }, 180_000);

  it('cancel at the origin kills the agent CLI on the worker within seconds, and the job is failed without retry', async () => {
    const w = await worker({ env: { TROUPE_DEMO_PAUSE_MS: '3000', TROUPE_FAKE_CODER_PIDFILE: '.coder.pid' } });
    const origin = client(new EventBus());
    const workspace = copySampleWorkspace(dir, 'cancel');
    const controller = new AbortController();
    const job = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: workspace } }, { signal: controller.signal });
    const pid = await waitFor(() => existsSync(join(workspace, '.coder.pid')) && Number(readFileSync(join(workspace, '.coder.pid'), 'utf8')), 'the fake Coder to start');
    expect(isAlive(pid)).toBe(true);
    controller.abort();
    await expect(job.result).rejects.toBeInstanceOf(AbortError);
    await waitFor(() => !isAlive(pid), 'the Coder process to be killed', 10_000);
    await waitFor(async () => (await job.state()) === 'failed', 'the job to be failed');
    await w.stop();
  });

  it('`stop` sent through QueuedLooper ends the run on the worker after its iteration; status reads the checkpoint', async () => {
    const w = await worker({ env: { TROUPE_DEMO_PAUSE_MS: '300' } });
    const bus = new EventBus();
    const looper = new QueuedLooper({ client: client(bus), spec: { workspace: { path: copySampleWorkspace(dir, 'stop') } } });
    const started = await looper.start('Add sum').completion;
    expect(started.text).toMatch(/Queued "Add sum" as job/);
    await waitFor(() => bus.listenerCount('*') >= 0 && looper.currentJob, 'the job');
    const sawIteration = new Promise<void>((resolve) => bus.once('looper:iteration-started', () => resolve()));
    await sawIteration;
    const stop = await looper.command({ type: 'stop' });
    expect(stop.ok).toBe(true);
    const result = await looper.currentJob!.result;
    expect(result.outcome).toBe('stopped');
    const status = await looper.command('{"type":"status"}');
    expect(status.text).toMatch(/IDLE/);
    await w.stop();
  });

  it('retries a failed attempt after its backoff, and keeps failures: a bad workspace fails at once with a clear error', async () => {
    const w = await worker();
    const bus = new EventBus();
    const failures: AnyTroupeEvent[] = [];
    bus.on('queue:job-failed', (event) => void failures.push(event));
    const origin = client(bus);
    const flaky = copySampleWorkspace(dir, 'flaky');
    writeFileSync(join(flaky, '.fail-first-attempt'), '');
    const job = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: flaky } }, { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 300 } });
    expect(await job.result).toMatchObject({ outcome: 'terminated' });
    expect(failures.filter((event) => (event.payload as { jobId?: string }).jobId === job.id)).toMatchObject([{ payload: { willRetry: true, error: { message: expect.stringMatching(/on purpose/) } } }]);

    const missing = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: join(dir, 'no-such-folder') } }, { maxAttempts: 3 });
    await expect(missing.result).rejects.toThrow(/no-such-folder is not a folder/);
    expect(await missing.state()).toBe('failed');
    await w.stop();
  });

  it('loses nothing when Redis restarts with persistence on: queued jobs and kept results survive', async () => {
    const bus = new EventBus();
    const origin = client(bus);
    const before = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: copySampleWorkspace(dir, 'persist-1') } }, { jobId: 'persist-1' });
    await redis.stop();
    await redis.start();
    const w = await worker();
    const result = await before.result;
    expect(result.outcome).toBe('terminated');
    await w.stop();
    await redis.stop();
    await redis.start();
    const again = client();
    expect(await again.job<LooperJobResult>(LOOPER_QUEUE, 'persist-1').result).toEqual(result);
  });

  it('carries no secret in a job payload, and redacts the worker’s keys from the events it sends', async () => {
    const secret = 'sk-ant-worker-secret-0123456789';
    const w = await worker({ env: { ANTHROPIC_API_KEY: secret } });
    const bus = new EventBus();
    const seen: string[] = [];
    bus.on('*', (event) => void seen.push(JSON.stringify(event)));
    const origin = client(bus, { env: { OPENAI_API_KEY: 'origin-secret-value-42' } });
    await expect(
      submitLooperJob(origin, { task: 'use key origin-secret-value-42', workspace: { path: dir } }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(submitLooperJob(origin, { task: 'Add sum', workspace: { path: dir }, env: { KEY: 'x' } } as never)).rejects.toThrow(/env/);
    const job = await submitLooperJob(origin, { task: 'Add sum', workspace: { path: copySampleWorkspace(dir, 'secret') } });
    await job.result;
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.join('\n')).not.toContain(secret);
    await w.stop();
  });
});

/** True while the process runs (a zombie, killed but not yet reaped by init, does not count). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readFileSafe(path: string): Promise<string> {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}
