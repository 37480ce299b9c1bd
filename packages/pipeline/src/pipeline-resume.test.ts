import { describe, expect, it } from 'vitest';
import { AbortError, EventBus, MemoryStore, type Store } from '@troupe/core';
import { createBatchPipeline, type PipelineMode, type PlanBatchContext, type ExecuteTaskContext } from '@troupe/pipeline';
import { gate, TestStore, type Gate } from './testing/pipeline-test-kit';

/**
 * Planner and executor that log their calls; a hook may hold a call until
 * the test releases it (the pipeline aborts held calls when it stops).
 */
function agents(log: string[], hooks: { plan?: (batchIndex: number) => Promise<void> | void; exec?: (taskId: string, context: ExecuteTaskContext) => Promise<void> | void } = {}) {
  return {
    planner: async ({ batchIndex }: PlanBatchContext) => {
      log.push(`plan ${batchIndex}`);
      await hooks.plan?.(batchIndex);
      return { tasks: ['a', 'b', 'c'].map((t) => `${t}${batchIndex}`), totalBatches: 3 };
    },
    executor: async (task: string, context: ExecuteTaskContext) => {
      log.push(`exec ${context.taskId}`);
      await hooks.exec?.(context.taskId, context);
      return `${task} ok`;
    },
  };
}

/** A pipeline over a fresh wrapper of `inner`: a "restart" over a durable store. */
function pipelineOver(inner: Store, mode: PipelineMode, parts: ReturnType<typeof agents>, eventBus?: EventBus) {
  return createBatchPipeline({ ...parts, store: new TestStore(inner), mode, threadId: 'resume', ...(eventBus ? { eventBus } : {}) });
}

const allTasks = ['0-0', '0-1', '0-2', '1-0', '1-1', '1-2', '2-0', '2-1', '2-2'];

describe('resume after stop', () => {
  for (const mode of ['serial', 'concurrent'] as const) {
    it(`${mode}: stopped while planning, it re-plans only the unplanned batches and runs every task once`, async () => {
      const inner = new MemoryStore();
      const first: string[] = [];
      const planning1: Gate = gate();
      const p1 = pipelineOver(inner, mode, agents(first, {
        plan: (batchIndex) => {
          if (batchIndex === 1) {
            planning1.open();
            return new Promise<void>(() => {}); // never answers: only stop() ends this run
          }
        },
      }));
      const run = p1.run();
      await planning1.promise;
      await p1.stop();
      const stopped = await run;
      expect(stopped).toMatchObject({ status: 'stopped', plannedBatches: 1 });
      expect(stopped.batches.map((b) => [b.batchIndex, b.status])).toEqual([
        [0, mode === 'serial' ? 'planned' : expect.stringMatching(/planned|executing|executed/)],
        [1, 'planning'],
      ]);

      const second: string[] = [];
      const result = await pipelineOver(inner, mode, agents(second)).run();
      expect(result.status).toBe('completed');
      expect(second.filter((l) => l.startsWith('plan'))).toEqual(['plan 1', 'plan 2']);
      const executed = [...first, ...second].filter((l) => l.startsWith('exec')).map((l) => l.slice(5));
      // Every task ran to a recorded outcome exactly once; a task interrupted by the stop may run again.
      expect(new Set(executed)).toEqual(new Set(allTasks));
      const recorded = await pipelineOver(inner, mode, agents([])).getTaskResults();
      expect(recorded.map((r) => r.taskId)).toEqual(allTasks);
    });
  }

  it('concurrent: executed batches stay processed; the restarted run executes only the rest', async () => {
    const inner = new MemoryStore();
    const bus = new EventBus();
    const first: string[] = [];
    const batch1Executed = gate();
    bus.on('pipeline:batch-executed', (event) => {
      if (event.payload.batchIndex === 1) batch1Executed.open();
    });
    const p1 = pipelineOver(inner, 'concurrent', agents(first, { plan: async (batchIndex) => (batchIndex === 2 ? batch1Executed.promise.then(() => new Promise<void>(() => {})) : undefined) }), bus);
    const run = p1.run();
    await batch1Executed.promise;
    await p1.stop();
    expect((await run).status).toBe('stopped');
    expect(first.filter((l) => l.startsWith('exec'))).toEqual(['exec 0-0', 'exec 0-1', 'exec 0-2', 'exec 1-0', 'exec 1-1', 'exec 1-2']);
    expect((await p1.getEvents('BATCH_PLANNED')).map((e) => [e.batchIndex, e.processed])).toEqual([
      [0, true],
      [1, true],
    ]);

    const second: string[] = [];
    await pipelineOver(inner, 'concurrent', agents(second)).run();
    expect(second).toEqual(['plan 2', 'exec 2-0', 'exec 2-1', 'exec 2-2']);
  });

  it('serial: stopped after planning completed, the restart plans nothing and executes everything', async () => {
    const inner = new MemoryStore();
    const bus = new EventBus();
    const first: string[] = [];
    const p1 = pipelineOver(inner, 'serial', agents(first), bus);
    bus.once('pipeline:planning-completed', () => void p1.stop());
    const stopped = await p1.run();
    expect(stopped).toMatchObject({ status: 'stopped', plannedBatches: 3, executedTasks: 0 });
    expect(first).toEqual(['plan 0', 'plan 1', 'plan 2']);
    expect((await p1.getEvents()).map((e) => `${e.type} ${e.batchIndex} ${e.processed}`)).toEqual([
      'BATCH_PLANNED 0 false',
      'BATCH_PLANNED 1 false',
      'BATCH_PLANNED 2 false',
      'PLANNING_COMPLETED 3 false',
    ]);

    const second: string[] = [];
    const result = await pipelineOver(inner, 'serial', agents(second)).run();
    expect(result).toMatchObject({ status: 'completed', plannedBatches: 0, executedTasks: 9 });
    expect(second).toEqual(allTasks.map((t) => `exec ${t}`));
  });

  for (const mode of ['serial', 'concurrent'] as const) {
    it(`${mode}: stopped in the middle of a batch, it resumes at the interrupted task`, async () => {
      const inner = new MemoryStore();
      const first: string[] = [];
      const inTask = gate();
      let taskSignal: AbortSignal | undefined;
      const p1 = pipelineOver(inner, mode, agents(first, {
        exec: (taskId, context) => {
          if (taskId !== '1-1') return;
          taskSignal = context.signal;
          inTask.open();
          return new Promise<void>(() => {});
        },
      }));
      const run = p1.run();
      await inTask.promise;
      await p1.stop();
      expect((await run).status).toBe('stopped');
      expect(taskSignal?.aborted).toBe(true);
      const states = await p1.getAllBatchStates();
      expect(states[1]).toMatchObject({ status: 'executing', taskCount: 3, executedTasks: 1, failedTasks: 0 });
      expect((await p1.getTaskResults(1)).map((r) => r.taskId)).toEqual(['1-0']);

      const second: string[] = [];
      const result = await pipelineOver(inner, mode, agents(second)).run();
      expect(result.executedTasks).toBe(5);
      expect(second.filter((l) => l.startsWith('exec'))).toEqual(['exec 1-1', 'exec 1-2', 'exec 2-0', 'exec 2-1', 'exec 2-2']);
      expect((await p1.getTaskResults()).map((r) => `${r.taskId}:${r.attempt}`)).toEqual(allTasks.map((t) => `${t}:1`));
      expect((await p1.getAllBatchStates())[1]?.executionStartedAt).toBe(states[1]?.executionStartedAt);
    });
  }

  it('a restarted executor (runExecutor) resumes with the unprocessed batches only, then follows the planner', async () => {
    // One store instance per process, shared by the planner and both executors (writes are serialized per instance).
    const store = new TestStore(new MemoryStore());
    const bus = new EventBus();
    const planLog: string[] = [];
    const execLog: string[] = [];
    const releasePlan2 = gate();
    const inTask = gate();
    const planner = agents(planLog, { plan: (batchIndex) => (batchIndex === 2 ? releasePlan2.promise : undefined) }).planner;
    const planning = createBatchPipeline({ planner, executor: () => 'unused', store, mode: 'concurrent', threadId: 'resume', eventBus: bus }).runPlanner();

    const executorA = createBatchPipeline({
      ...agents(execLog, { exec: (taskId) => (taskId === '1-1' ? (inTask.open(), new Promise<void>(() => {})) : undefined) }),
      store,
      mode: 'concurrent',
      threadId: 'resume',
      eventBus: bus,
    });
    const runA = executorA.runExecutor();
    await inTask.promise;
    await executorA.stop();
    expect((await runA).status).toBe('stopped');
    expect((await executorA.getEvents('BATCH_PLANNED')).map((e) => [e.batchIndex, e.processed])).toEqual([
      [0, true],
      [1, false],
    ]);

    const restartedLog: string[] = [];
    const executorB = createBatchPipeline({ ...agents(restartedLog), store, mode: 'concurrent', threadId: 'resume', eventBus: bus });
    const runB = executorB.runExecutor();
    releasePlan2.open();
    const [planned, executed] = await Promise.all([planning, runB]);
    expect(planned).toMatchObject({ status: 'completed', plannedBatches: 3 });
    expect(executed).toMatchObject({ status: 'completed', executedTasks: 5 });
    expect(restartedLog).toEqual(['exec 1-1', 'exec 1-2', 'exec 2-0', 'exec 2-1', 'exec 2-2']);
    expect((await executorB.getEvents()).every((e) => e.processed)).toBe(true);
  });

  it('a completed thread runs nothing again', async () => {
    const inner = new MemoryStore();
    await pipelineOver(inner, 'concurrent', agents([])).run();
    const again: string[] = [];
    const bus = new EventBus();
    const types: string[] = [];
    bus.on('*', (event) => void types.push(event.type));
    const result = await pipelineOver(inner, 'concurrent', agents(again), bus).run();
    expect(again).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', plannedBatches: 0, executedTasks: 0 });
    expect(result.batches.map((b) => b.status)).toEqual(['executed', 'executed', 'executed']);
    expect(types).toEqual(['pipeline:run-started', 'pipeline:run-finished']);
  });

  it('an aborted signal rejects the run with AbortError; the thread resumes like after stop()', async () => {
    const inner = new MemoryStore();
    const controller = new AbortController();
    const log: string[] = [];
    const p1 = pipelineOver(inner, 'concurrent', agents(log, { exec: (taskId) => (taskId === '0-1' ? controller.abort(new Error('user canceled')) : undefined) }));
    const error = await p1.run({ signal: controller.signal }).catch((e: unknown) => e);
    expect(AbortError.isInstance(error) && (error as AbortError).code).toBe('ABORTED');
    await expect(p1.run({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    const resumed: string[] = [];
    await pipelineOver(inner, 'concurrent', agents(resumed)).run();
    // 0-1 saw the abort before it could be recorded, so it runs again; 0-0 does not.
    expect(resumed.filter((l) => l.startsWith('exec'))[0]).toBe('exec 0-1');
  });
});
