import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EventBus, MessageStore } from '@troupe/core';
import { createLooperStateStore } from '@troupe/looper';
import { createQueueClient, submitLooperJob } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis } from '@troupe/queue-bullmq/testing';
// The test kit and fixture Looper of @troupe/queue-bullmq's own tests (not published): imported from source.
import { createFixtureLooper } from '../packages/queue-bullmq/src/__fixtures__/looper-factory';
import { copySampleWorkspace, startTestWorker, type TestWorker } from '../packages/queue-bullmq/src/testing/queue-test-kit';
import type { BenchKit } from './bench-kit';

const TURN_MS = 500;
const JOBS = 32;
const fakeCoderDir = fileURLToPath(new URL('../examples/looper-demo/fake-coder', import.meta.url));

/**
 * Scaling out on BullMQ/Redis (issue 19): throughput of Looper jobs whose one
 * agent turn sleeps 500 ms (the fake Coder CLI), with 1, 2 and 4 worker
 * processes (concurrency 1 each) on a real redis-server — goal ≥ 3.5× at 4
 * workers against 1 — and the queue's overhead per job against the same
 * Looper run in-process, one after another. Worker start-up is not timed.
 */
export default async function (kit: BenchKit): Promise<void> {
  const binary = findRedisServer();
  if ('reason' in binary) {
    kit.note(`  SKIPPED: ${binary.reason}`);
    return;
  }
  const env = { TROUPE_FAKE_CODER_TURN_MS: String(TURN_MS), TROUPE_TEST_MAX_ITERATIONS: '1' };
  const redis = await startTestRedis(binary.path);
  const dir = mkdtempSync(join(tmpdir(), 'troupe-queue-bench-'));
  try {
    // Baseline: the same jobs in this process, one after another.
    const savedEnv = { ...process.env };
    Object.assign(process.env, env, { PATH: `${fakeCoderDir}${delimiter}${process.env.PATH ?? ''}` });
    let inProcessMs: number;
    try {
      await runInProcess(dir, 'warm', 2);
      inProcessMs = await runInProcess(dir, 'base', JOBS);
    } finally {
      process.env = savedEnv;
    }
    const perJobInProcess = inProcessMs / JOBS;

    const throughput = new Map<number, number>();
    let perJobQueued = 0;
    for (const count of [1, 2, 4]) {
      const workers: TestWorker[] = await Promise.all(Array.from({ length: count }, () => startTestWorker(redis.url, { env })));
      try {
        await runQueued(redis.url, dir, `warm-${count}`, count); // every worker warm
        const ms = await runQueued(redis.url, dir, `w${count}`, JOBS);
        throughput.set(count, JOBS / (ms / 1000));
        if (count === 1) perJobQueued = ms / JOBS;
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
    }
    const one = throughput.get(1) as number;
    kit.note(`  ${JOBS} Looper jobs, one ${TURN_MS} ms agent turn each (fake Coder CLI), Review and JUDGE (rules) included`);
    for (const count of [2, 4]) {
      kit.report({
        name: `throughput with ${count} workers`,
        value: throughput.get(count) as number,
        unit: 'jobs/s',
        baselineName: '1 worker',
        baselineValue: one,
        ...(count === 4 ? { target: '≥ 3.5× (issue 19)' } : {}),
      });
    }
    kit.report({ name: 'time per job through the queue (1 worker)', value: perJobQueued, unit: 'ms', baselineName: 'in-process Looper run', baselineValue: perJobInProcess });
  } finally {
    await redis.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runInProcess(dir: string, tag: string, jobs: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < jobs; i++) {
    const eventBus = new EventBus();
    const looper = createFixtureLooper({
      eventBus,
      messages: new MessageStore(eventBus),
      stateStore: createLooperStateStore(),
      workspacePath: copySampleWorkspace(dir, `${tag}-${i}`),
      jobId: `${tag}-${i}`,
      attempt: 1,
    });
    looper.command({ type: 'start', task: 'Add sum' });
    await looper.whenIdle();
    await looper.dispose();
  }
  return performance.now() - started;
}

async function runQueued(url: string, dir: string, tag: string, jobs: number): Promise<number> {
  const client = createQueueClient({ connection: url, eventBus: new EventBus(), maxAttempts: 1 });
  try {
    const workspaces = Array.from({ length: jobs }, (_, i) => copySampleWorkspace(dir, `${tag}-${i}`));
    const started = performance.now();
    const submitted = await Promise.all(workspaces.map((path) => submitLooperJob(client, { task: 'Add sum', workspace: { path } })));
    await Promise.all(submitted.map((job) => job.result));
    return performance.now() - started;
  } finally {
    await client.close();
  }
}
