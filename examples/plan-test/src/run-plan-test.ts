import { EventBus, MemoryStore } from '@troupe/core';
import { createBatchPipeline, type BatchState, type PipelineMode, type PipelineRunResult } from '@troupe/pipeline';
import { createTestExecutor, createTestPlanner, type PlanTestWork } from './plan-test-work';

/** What one mode's run produced. */
export interface ModeRun {
  mode: PipelineMode;
  result: PipelineRunResult;
  states: BatchState[];
  /** Clock value when the run started (same clock as the stored timestamps). */
  origin: number;
  wallMs: number;
  /** One line per batch event, as the bus delivered them. */
  progress: string[];
}

/** A sub-millisecond wall clock, for the stored timestamps. */
const clock = () => performance.timeOrigin + performance.now();

/**
 * Runs the PlanAgent/TestAgent work through `@troupe/pipeline` in one mode,
 * over a fresh store, recording progress from the bus.
 */
export async function runMode(mode: PipelineMode, work: PlanTestWork, signal?: AbortSignal): Promise<ModeRun> {
  const eventBus = new EventBus();
  const progress: string[] = [];
  const origin = clock();
  const at = () => `+${String(Math.round(clock() - origin)).padStart(4)} ms`;
  eventBus.on('pipeline:batch-planned', ({ payload }) => void progress.push(`${at()}  BATCH_PLANNED    batch ${payload.batchIndex} (${payload.taskCount} tests)`));
  eventBus.on('pipeline:task-completed', ({ payload }) => {
    if (payload.status === 'failed') progress.push(`${at()}  task failed      ${payload.taskId}: ${payload.error?.message ?? ''} (policy: ${payload.decision ?? ''})`);
  });
  eventBus.on('pipeline:batch-executed', ({ payload }) =>
    void progress.push(`${at()}  BATCH_EXECUTED   batch ${payload.batchIndex} ${payload.skipped ? '(empty: skipped)' : `${payload.executedTasks}/${payload.taskCount} done, ${payload.failedTasks} failed`}`),
  );
  eventBus.on('pipeline:planning-completed', ({ payload }) => void progress.push(`${at()}  PLANNING_COMPLETED  ${payload.totalBatches} batches`));
  eventBus.on('pipeline:execution-completed', ({ payload }) =>
    void progress.push(`${at()}  EXECUTION_COMPLETED ${payload.executedTasks} tests, ${payload.failedTasks} failed`),
  );
  const pipeline = createBatchPipeline({
    planner: createTestPlanner(work),
    executor: createTestExecutor(work),
    store: new MemoryStore(),
    mode,
    namespace: ['plans', 'plan-test', 'demo'],
    threadId: `plan-test-${mode}`,
    eventBus,
    onTaskFailure: 'continue',
    now: clock,
  });
  const result = await pipeline.run(signal ? { signal } : {});
  const wallMs = clock() - origin;
  return { mode, result, states: await pipeline.getAllBatchStates(), origin, wallMs, progress };
}
