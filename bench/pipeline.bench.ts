import { MemoryStore } from '@troupe/core';
// The root package does not depend on @troupe/pipeline (yet), so import it from source.
import { createBatchPipeline, type PipelineMode } from '@troupe/pipeline';
import { median, type BenchKit } from './bench-kit';

/**
 * `@troupe/pipeline`: serial vs concurrent wall time on timed work, and the
 * pipeline's own overhead per task with instant agents.
 *
 * Timed work: 20 batches × 10 tasks; the planner takes a fixed time per task
 * it plans, the executor a fixed time per task it runs. Serial should take
 * about plan + execute; concurrent about max(plan, execute) plus one batch.
 * Every figure sits beside a baseline measured in the same run: bare loops
 * doing the same sleeps without the pipeline.
 */
const BATCHES = 20;
const TASKS_PER_BATCH = 10;
const PLAN_MS_PER_TASK = 2;
const EXECUTE_MS_PER_TASK = 2;
const TIMED_RUNS = 3;

const OVERHEAD_BATCHES = 50;
const OVERHEAD_TASKS_PER_BATCH = 20;
const OVERHEAD_RUNS = 7;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function timedPlanner() {
  return async ({ batchIndex }: { batchIndex: number }) => {
    await sleep(PLAN_MS_PER_TASK * TASKS_PER_BATCH);
    return { tasks: Array.from({ length: TASKS_PER_BATCH }, (_, i) => `task ${batchIndex}.${i}`), totalBatches: BATCHES };
  };
}

async function timedExecutor(task: string): Promise<string> {
  await sleep(EXECUTE_MS_PER_TASK);
  return task;
}

async function pipelineWallMs(mode: PipelineMode, planner: ReturnType<typeof timedPlanner>, executor: (task: string) => unknown, threadId: string): Promise<number> {
  const pipeline = createBatchPipeline({ planner, executor, store: new MemoryStore(), mode, threadId });
  const start = performance.now();
  const result = await pipeline.run();
  const elapsed = performance.now() - start;
  if (result.status !== 'completed') throw new Error(`pipeline ${mode} ended ${result.status}`);
  return elapsed;
}

async function barePlanMs(): Promise<number> {
  const planner = timedPlanner();
  const start = performance.now();
  for (let b = 0; b < BATCHES; b++) await planner({ batchIndex: b });
  return performance.now() - start;
}

async function bareExecuteMs(): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCHES * TASKS_PER_BATCH; i++) await timedExecutor(`task ${i}`);
  return performance.now() - start;
}

async function timedWork(kit: BenchKit): Promise<void> {
  kit.note(`  timed work: ${BATCHES} batches × ${TASKS_PER_BATCH} tasks; planner ${PLAN_MS_PER_TASK} ms per task planned, executor ${EXECUTE_MS_PER_TASK} ms per task; median of ${TIMED_RUNS} runs`);
  const serial: number[] = [];
  const concurrent: number[] = [];
  const plan: number[] = [];
  const execute: number[] = [];
  for (let run = 0; run < TIMED_RUNS; run++) {
    plan.push(await barePlanMs());
    execute.push(await bareExecuteMs());
    serial.push(await pipelineWallMs('serial', timedPlanner(), timedExecutor, `serial-${run}`));
    concurrent.push(await pipelineWallMs('concurrent', timedPlanner(), timedExecutor, `concurrent-${run}`));
  }
  const planMs = median(plan);
  const executeMs = median(execute);
  const oneBatchMs = executeMs / BATCHES;
  kit.note(`  bare loops: plan ${planMs.toFixed(0)} ms, execute ${executeMs.toFixed(0)} ms; one batch executes in ${oneBatchMs.toFixed(1)} ms`);
  kit.report({
    name: 'serial pipeline wall time',
    value: median(serial),
    unit: 'ms',
    baselineName: 'bare plan loop + bare execute loop',
    baselineValue: planMs + executeMs,
    target: '≈ 1.0× (plan + execute)',
  });
  kit.report({
    name: 'concurrent pipeline wall time',
    value: median(concurrent),
    unit: 'ms',
    baselineName: 'serial pipeline wall time',
    baselineValue: median(serial),
    target: `→ max/sum = ${(Math.max(planMs, executeMs) / (planMs + executeMs)).toFixed(2)}×`,
  });
  kit.report({
    name: 'concurrent pipeline wall time',
    value: median(concurrent),
    unit: 'ms',
    baselineName: 'max(bare plan, bare execute) + one batch',
    baselineValue: Math.max(planMs, executeMs) + oneBatchMs,
    target: '≈ 1.0×',
  });
}

function instantPlanner({ batchIndex }: { batchIndex: number }) {
  return { tasks: Array.from({ length: OVERHEAD_TASKS_PER_BATCH }, (_, i) => `task ${batchIndex}.${i}`), totalBatches: OVERHEAD_BATCHES };
}

const instantExecutor = (task: string) => task;

async function bareLoopUs(withStore: boolean): Promise<number> {
  const store = new MemoryStore();
  const results: unknown[] = [];
  const start = performance.now();
  for (let b = 0; b < OVERHEAD_BATCHES; b++) {
    const { tasks } = await Promise.resolve(instantPlanner({ batchIndex: b }));
    for (let t = 0; t < tasks.length; t++) {
      const result = await Promise.resolve(instantExecutor(tasks[t] as string));
      if (withStore) await store.put(['bare', String(b)], String(t), { taskId: `${b}-${t}`, status: 'succeeded', result });
      else results.push(result);
    }
  }
  return ((performance.now() - start) * 1000) / (OVERHEAD_BATCHES * OVERHEAD_TASKS_PER_BATCH);
}

async function pipelineUs(mode: PipelineMode, run: number): Promise<number> {
  const pipeline = createBatchPipeline({ planner: instantPlanner, executor: instantExecutor, store: new MemoryStore(), mode, threadId: `overhead-${mode}-${run}` });
  const start = performance.now();
  await pipeline.run();
  return ((performance.now() - start) * 1000) / (OVERHEAD_BATCHES * OVERHEAD_TASKS_PER_BATCH);
}

async function overhead(kit: BenchKit): Promise<void> {
  const tasks = OVERHEAD_BATCHES * OVERHEAD_TASKS_PER_BATCH;
  kit.note(`  overhead: ${OVERHEAD_BATCHES} batches × ${OVERHEAD_TASKS_PER_BATCH} tasks (${tasks}) with instant agents over a MemoryStore; median of ${OVERHEAD_RUNS} runs after one warm-up`);
  const bare: number[] = [];
  const bareStore: number[] = [];
  const serial: number[] = [];
  const concurrent: number[] = [];
  for (let run = 0; run <= OVERHEAD_RUNS; run++) {
    const b = await bareLoopUs(false);
    const s = await bareLoopUs(true);
    const p = await pipelineUs('serial', run);
    const c = await pipelineUs('concurrent', run);
    if (run === 0) continue;
    bare.push(b);
    bareStore.push(s);
    serial.push(p);
    concurrent.push(c);
  }
  kit.report({ name: 'serial pipeline per task', value: median(serial), unit: 'µs', baselineName: 'bare plan/execute loop', baselineValue: median(bare) });
  kit.report({ name: 'concurrent pipeline per task', value: median(concurrent), unit: 'µs', baselineName: 'bare plan/execute loop', baselineValue: median(bare) });
  kit.report({
    name: 'concurrent pipeline per task',
    value: median(concurrent),
    unit: 'µs',
    baselineName: 'bare loop + one MemoryStore.put per task',
    baselineValue: median(bareStore),
  });
}

export default async function (kit: BenchKit): Promise<void> {
  await timedWork(kit);
  await overhead(kit);
}
