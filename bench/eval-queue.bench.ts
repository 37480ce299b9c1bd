import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventBus, MemoryStore } from '@troupe/core';
import { loadEvalSuite, runEval, type EvalSuite } from '@troupe/eval';
import { createQueueClient, createQueuedEvalTrialRunner } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis } from '@troupe/queue-bullmq/testing';
// The test kits of @troupe/eval and @troupe/queue-bullmq (not published): imported from source.
import { answerTask, makeTestSuite, type TestTaskSpec } from '../packages/eval/src/testing/eval-test-kit';
import { startTestWorker, type TestWorker } from '../packages/queue-bullmq/src/testing/queue-test-kit';
import type { BenchKit } from './bench-kit';

const TURN_MS = Number(process.env.TROUPE_BENCH_EVAL_TURN_MS ?? 500);
const TASKS = 10;
const TRIALS = 10;

/**
 * An eval spread over BullMQ workers (issue 33): 100 trials (10 tasks × 10 trials, one agent) on 1 worker process
 * and on 4 (concurrency 1 each, each its own Node process), on a real redis-server, all trials queued at once.
 * Each trial is a real one: the task's bundle cloned on the worker, a workspace, Claude Code's adapter driving the
 * fake agent CLI whose turn **sleeps** `TURN_MS` (500 ms: wall time, not CPU, so the machine's 2 cores are not what
 * limits 4 workers), the hidden check written in and the grading command (`node check.mjs`: one Node start, where
 * `node --test` starts two, to keep the trial's CPU small next to its agent turn on 2 cores). Goal: the 4-worker eval
 * takes at most a third of the 1-worker one (ratio ≤ 0.333). Worker start-up is not timed (each set is warmed up).
 */
export default async function (kit: BenchKit): Promise<void> {
  const binary = findRedisServer();
  if ('reason' in binary) {
    kit.note(`  SKIPPED: ${binary.reason}`);
    return;
  }
  const redis = await startTestRedis(binary.path);
  const work = mkdtempSync(join(tmpdir(), 'troupe-eval-queue-bench-'));
  const { dir, cleanup } = makeTestSuite(Object.fromEntries(Array.from({ length: TASKS }, (_, index) => [`t${index}`, checkTask()])));
  try {
    const suite = await loadEvalSuite(dir);
    const times = new Map<number, number>();
    for (const count of [1, 4]) {
      const env = { TROUPE_TEST_EVAL_TURN_MS: String(TURN_MS), TROUPE_TEST_WORK_ROOT: join(work, `w${count}`) };
      const workers: TestWorker[] = await Promise.all(Array.from({ length: count }, () => startTestWorker(redis.url, { env })));
      try {
        await queuedEval(redis.url, suite, Math.max(2, count)); // every worker warm
        times.set(count, await queuedEval(redis.url, suite, TRIALS));
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
    }
    const one = times.get(1)!;
    const four = times.get(4)!;
    kit.note(`  ${TASKS * TRIALS} trials (${TASKS} tasks × ${TRIALS}), agent turn ${TURN_MS} ms (a sleep); 1 worker: ${(one / (TASKS * TRIALS)).toFixed(0)} ms per trial`);
    kit.report({ name: 'eval of 100 trials on 4 workers', value: four, unit: 'ms', baselineName: '1 worker', baselineValue: one, target: '≤ 0.333× (issue 33)' });
  } finally {
    cleanup();
    await redis.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The answer task of the eval tests, graded by a plain Node script (`answer.js` must export 42). */
function checkTask(): TestTaskSpec {
  const task = answerTask();
  return {
    ...task,
    taskJson: { prompt: 'Make answer.js export 42.', gradingCommand: ['node', 'check.mjs'] },
    hidden: { 'check.mjs': "import { createRequire } from 'node:module';\nprocess.exit(createRequire(import.meta.url)('./answer.js') === 42 ? 0 : 1);\n" },
  };
}

/** Runs the eval (agent `strong`, `trials` per task) through the queue and returns its wall time in ms. */
async function queuedEval(url: string, suite: EvalSuite, trials: number): Promise<number> {
  const client = createQueueClient({ connection: url, eventBus: new EventBus(), maxAttempts: 1 });
  try {
    const started = performance.now();
    const run = await runEval({
      suite,
      // The agent is the workers' (by id): its scripted CLI lives in their fixture.
      agents: [{ id: 'strong', agent: 'claude' }],
      trials,
      concurrency: TASKS * trials,
      store: new MemoryStore(),
      runTrial: createQueuedEvalTrialRunner(client),
    });
    const ms = performance.now() - started;
    const bad = run.records.filter((record) => record.status === 'error');
    if (bad.length > 0) throw new Error(`${bad.length} trial(s) could not be run, e.g. ${bad[0]!.message ?? ''}`);
    return ms;
  } finally {
    await client.close();
  }
}
