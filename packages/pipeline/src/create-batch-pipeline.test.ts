import { describe, expect, it } from 'vitest';
import { EventBus, InvalidArgumentError, MemoryStore, parseEvent, serializeEvent, type AnyTroupeEvent } from '@troupe/core';
import { createBatchPipeline, PipelineError, type PlanBatchContext } from '@troupe/pipeline';
import { gate, TestStore } from './testing/pipeline-test-kit';

/** A planner of `batches` batches of `size` string tasks, logging each call. */
function countingPlanner(log: string[], batches: number, size: number) {
  return ({ batchIndex }: PlanBatchContext) => {
    log.push(`plan ${batchIndex}`);
    return { tasks: Array.from({ length: size }, (_, i) => `t${batchIndex}.${i}`), totalBatches: batches };
  };
}

function collect(bus: EventBus): AnyTroupeEvent[] {
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => {
    if (event.type.startsWith('pipeline:')) events.push(event);
  });
  return events;
}

describe('createBatchPipeline — serial mode (§1)', () => {
  it('plans every batch, marks planning complete, then executes batch after batch, task after task', async () => {
    const log: string[] = [];
    const store = new MemoryStore();
    const bus = new EventBus();
    const events = collect(bus);
    const pipeline = createBatchPipeline({
      planner: countingPlanner(log, 3, 2),
      executor: (task: string, { batchIndex, taskIndex, taskId }) => {
        log.push(`exec ${taskId}`);
        return { task, ok: true, at: [batchIndex, taskIndex] };
      },
      store,
      mode: 'serial',
      namespace: ['plans', 'proj', 'dev'],
      threadId: 't1',
      eventBus: bus,
    });

    const result = await pipeline.run();

    expect(log).toEqual(['plan 0', 'plan 1', 'plan 2', 'exec 0-0', 'exec 0-1', 'exec 1-0', 'exec 1-1', 'exec 2-0', 'exec 2-1']);
    expect(result).toMatchObject({ status: 'completed', threadId: 't1', plannedBatches: 3, executedTasks: 6, failedTasks: 0, skippedBatches: 0 });
    expect(result.batches.map((b) => [b.batchIndex, b.status, b.taskCount, b.executedTasks, b.failedTasks])).toEqual([
      [0, 'executed', 2, 2, 0],
      [1, 'executed', 2, 2, 0],
      [2, 'executed', 2, 2, 0],
    ]);
    for (const state of result.batches) {
      expect(state.planningStartedAt).toBeLessThanOrEqual(state.planningCompletedAt as number);
      expect(state.planningCompletedAt).toBeLessThanOrEqual(state.executionStartedAt as number);
      expect(state.executionStartedAt).toBeLessThanOrEqual(state.executionCompletedAt as number);
    }
    // Serial: execution of batch 0 starts after the last batch was planned.
    expect(result.batches[0]?.executionStartedAt).toBeGreaterThanOrEqual(result.batches[2]?.planningCompletedAt as number);

    const results = await pipeline.getTaskResults();
    expect(results.map((r) => [r.taskId, r.status, r.attempt])).toEqual([
      ['0-0', 'succeeded', 1],
      ['0-1', 'succeeded', 1],
      ['1-0', 'succeeded', 1],
      ['1-1', 'succeeded', 1],
      ['2-0', 'succeeded', 1],
      ['2-1', 'succeeded', 1],
    ]);
    expect(results[3]?.result).toEqual({ task: 't1.1', ok: true, at: [1, 1] });

    // Stored under the namespace and thread.
    expect((await store.list(['plans', 'proj', 'dev', 't1', 'batches'])).map((i) => i.key)).toEqual(['00000000', '00000001', '00000002']);

    const stored = await pipeline.getEvents();
    expect(stored.map((e) => [e.type, e.batchIndex, e.processed])).toEqual([
      ['BATCH_PLANNED', 0, true],
      ['BATCH_PLANNED', 1, true],
      ['BATCH_PLANNED', 2, true],
      ['BATCH_EXECUTED', 0, true],
      ['BATCH_EXECUTED', 1, true],
      ['BATCH_EXECUTED', 2, true],
      ['PLANNING_COMPLETED', 3, true],
      ['EXECUTION_COMPLETED', 3, true],
    ]);
    expect(stored[0]).toMatchObject({ id: 't1-BATCH_PLANNED-0', threadId: 't1', totalBatches: 3, data: { taskCount: 2 } });
    expect(stored.at(-1)).toMatchObject({ data: { executedTasks: 6, failedTasks: 0 } });

    const types = events.map((e) => e.type);
    expect(types.indexOf('pipeline:planning-completed')).toBeLessThan(types.indexOf('pipeline:task-started'));
    expect(types.filter((t) => t === 'pipeline:task-completed')).toHaveLength(6);
    expect(events.every((e) => (e.payload as { channelId: string }).channelId === 'plans/proj/dev:t1')).toBe(true);
    expect(await pipeline.getStatus()).toMatchObject({
      planning: { nextBatchIndex: 3, totalBatches: 3, planningCompleted: true },
      executionCompleted: true,
    });
  });

  it('emits progress events for each batch and task that parse with the registered schemas', async () => {
    const bus = new EventBus();
    const events = collect(bus);
    const pipeline = createBatchPipeline({
      planner: ({ batchIndex }) => (batchIndex < 2 ? { tasks: batchIndex === 0 ? ['a'] : [] } : null),
      executor: (task) => task,
      store: new MemoryStore(),
      mode: 'serial',
      threadId: 'events',
      eventBus: bus,
    });
    await pipeline.run();
    for (const event of events) expect(parseEvent(serializeEvent(event))).toEqual(event);
    expect(events.map((e) => summarize(e))).toMatchInlineSnapshot(`
      [
        "run-started serial both",
        "batch-state-changed 0 planning",
        "batch-state-changed 0 planned",
        "batch-planned 0 tasks=1",
        "batch-state-changed 1 planning",
        "batch-state-changed 1 planned",
        "batch-planned 1 tasks=0",
        "batch-state-changed 2 planning",
        "planning-completed total=2",
        "batch-state-changed 0 executing",
        "task-started 0-0",
        "task-completed 0-0 succeeded 1/1",
        "batch-state-changed 0 executed",
        "batch-executed 0 executed skipped=false",
        "batch-state-changed 1 executed",
        "batch-executed 1 executed skipped=true",
        "execution-completed total=2 tasks=1",
        "run-finished completed",
      ]
    `);
  });
});

/** One line per event, for snapshots. */
function summarize(event: AnyTroupeEvent): string {
  const p = event.payload as Record<string, unknown>;
  const name = event.type.slice('pipeline:'.length);
  switch (event.type) {
    case 'pipeline:run-started':
      return `${name} ${String(p.mode)} ${String(p.role)}`;
    case 'pipeline:run-finished':
      return `${name} ${String(p.status)}`;
    case 'pipeline:batch-state-changed':
      return `${name} ${String(p.batchIndex)} ${String(p.status)}`;
    case 'pipeline:batch-planned':
      return `${name} ${String(p.batchIndex)} tasks=${String(p.taskCount)}`;
    case 'pipeline:batch-executed':
      return `${name} ${String(p.batchIndex)} ${String(p.status)} skipped=${String(p.skipped)}`;
    case 'pipeline:planning-completed':
      return `${name} total=${String(p.totalBatches)}`;
    case 'pipeline:execution-completed':
      return `${name} total=${String(p.totalBatches)} tasks=${String(p.executedTasks)}`;
    case 'pipeline:task-started':
      return `${name} ${String(p.taskId)}`;
    case 'pipeline:task-completed':
      return `${name} ${String(p.taskId)} ${String(p.status)} ${String(p.completedInBatch)}/${String(p.taskCount)}`;
    default:
      return `${name} ${String(p.waitingFor ?? '')}`;
  }
}

describe('createBatchPipeline — concurrent mode (§2)', () => {
  it('executes each batch as soon as it is planned, while the planner plans the next', async () => {
    const log: string[] = [];
    // The planner cannot plan batch 1 until batch 0 has been executed: this only finishes if the roles overlap.
    const batch0Executed = gate();
    const pipeline = createBatchPipeline({
      planner: async ({ batchIndex }) => {
        log.push(`plan ${batchIndex} start`);
        if (batchIndex === 1) await batch0Executed.promise;
        log.push(`plan ${batchIndex} done`);
        return { tasks: [`a${batchIndex}`, `b${batchIndex}`], last: batchIndex === 2 };
      },
      executor: (task: string, { taskId }) => {
        log.push(`exec ${taskId}`);
        if (taskId === '0-1') batch0Executed.open();
        return task.toUpperCase();
      },
      store: new MemoryStore(),
      mode: 'concurrent',
      threadId: 'c1',
    });
    const result = await pipeline.run();
    expect(result).toMatchObject({ status: 'completed', plannedBatches: 3, executedTasks: 6 });
    expect(log.slice(0, 5)).toEqual(['plan 0 start', 'plan 0 done', 'plan 1 start', 'exec 0-0', 'exec 0-1']);
    expect(log.indexOf('plan 1 done')).toBeGreaterThan(log.indexOf('exec 0-1'));
    const states = await pipeline.getAllBatchStates();
    // Batch 0 was executing before batch 1 was planned: the two overlapped.
    expect(states[0]?.executionStartedAt).toBeLessThanOrEqual(states[1]?.planningCompletedAt as number);
    expect((await pipeline.getTaskResults(2)).map((r) => r.result)).toEqual(['A2', 'B2']);
    expect((await pipeline.getEvents('BATCH_PLANNED')).every((e) => e.processed)).toBe(true);
    expect(await pipeline.getEvents('EXECUTION_COMPLETED')).toHaveLength(1);
  });

  it('executes batches in batch order and tasks in task order, even when planning runs ahead', async () => {
    const order: string[] = [];
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: [0, 1, 2], totalBatches: 5 }),
      executor: async (_task: number, { taskId }) => {
        order.push(taskId);
        await new Promise((resolve) => setImmediate(resolve));
      },
      store: new MemoryStore(),
      threadId: 'order',
    });
    await pipeline.run();
    expect(order).toEqual(Array.from({ length: 15 }, (_, i) => `${Math.floor(i / 3)}-${i % 3}`));
  });

  it('runs several batches at once when batchConcurrency allows it', async () => {
    const started: number[] = [];
    const release = gate();
    const pipeline = createBatchPipeline({
      planner: ({ batchIndex }) => ({ tasks: ['x'], totalBatches: 3, last: batchIndex === 2 }),
      executor: async (_task, { batchIndex }) => {
        started.push(batchIndex);
        if (started.length === 2) release.open();
        await release.promise;
      },
      store: new MemoryStore(),
      threadId: 'parallel',
      batchConcurrency: 2,
    });
    const result = await pipeline.run();
    // Batches 0 and 1 both started before either could finish.
    expect(started.slice(0, 2).sort()).toEqual([0, 1]);
    expect(result.batches.map((b) => b.status)).toEqual(['executed', 'executed', 'executed']);
  });

  it('uses the taskId option and hands the executor its context', async () => {
    const contexts: unknown[] = [];
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: [{ tool: 'search' }, { tool: 'fetch' }], last: true }),
      executor: (_task: { tool: string }, context) => {
        contexts.push({ ...context, signal: context.signal instanceof AbortSignal });
        return null;
      },
      taskId: (task) => `test-${task.tool}`,
      store: new MemoryStore(),
      threadId: 'ids',
    });
    await pipeline.run();
    expect(contexts).toEqual([
      { batchIndex: 0, taskIndex: 0, taskId: 'test-search', threadId: 'ids', attempt: 1, signal: true },
      { batchIndex: 0, taskIndex: 1, taskId: 'test-fetch', threadId: 'ids', attempt: 1, signal: true },
    ]);
  });
});

describe('several pipelines over one store', () => {
  it('loses no write when threads run at once over one MemoryStore (transactions included)', async () => {
    const store = new MemoryStore();
    const threads = ['a', 'b', 'c'];
    await Promise.all(
      threads.map((threadId) =>
        createBatchPipeline({
          // Instant agents: the three threads interleave at every await.
          planner: ({ batchIndex }) => ({ tasks: [1, 2, 3], totalBatches: 4, last: batchIndex === 3 }),
          executor: (n: number) => n * 2,
          store,
          threadId,
        }).run(),
      ),
    );
    for (const threadId of threads) {
      const pipeline = createBatchPipeline({ planner: () => null, executor: () => 1, store, threadId });
      expect(await pipeline.getTaskResults()).toHaveLength(12);
      expect((await pipeline.getAllBatchStates()).map((state) => state.status)).toEqual(['executed', 'executed', 'executed', 'executed']);
      expect((await pipeline.getEvents()).every((event) => event.processed)).toBe(true);
    }
  });
});

describe('planner answers', () => {
  it('ends planning on null without adding a batch, and on last or totalBatches', async () => {
    const byNull = createBatchPipeline({ planner: ({ batchIndex }) => (batchIndex < 2 ? { tasks: ['t'] } : null), executor: () => 1, store: new MemoryStore(), threadId: 'n' });
    const result = await byNull.run();
    expect(result.batches.map((b) => b.batchIndex)).toEqual([0, 1]);
    expect(await byNull.getStatus()).toMatchObject({ planning: { nextBatchIndex: 2, totalBatches: 2, planningCompleted: true } });

    const contexts: PlanBatchContext[] = [];
    const byTotal = createBatchPipeline({
      planner: (context) => {
        contexts.push(context);
        return { tasks: ['t'], ...(context.batchIndex === 0 ? { totalBatches: 2 } : {}) };
      },
      executor: () => 1,
      store: new MemoryStore(),
      threadId: 't',
    });
    await byTotal.run();
    expect(contexts.map((c) => [c.batchIndex, c.totalBatches])).toEqual([
      [0, undefined],
      [1, 2],
    ]);
  });

  it('fails the run with a planner error naming what was wrong, and records the batch as failed', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /returned undefined/],
      [{ items: [] }, /expected \{ tasks/],
      [{ tasks: [], last: 'yes' }, /"last" must be a boolean/],
      [{ tasks: [], totalBatches: 0 }, /"totalBatches" must be an integer greater than the batch index 0/],
      [{ tasks: [1n] }, /JSON-serializable/],
    ];
    for (const [answer, message] of cases) {
      const pipeline = createBatchPipeline({ planner: () => answer as never, executor: () => 1, store: new MemoryStore(), threadId: 'bad' });
      const error = await pipeline.run().catch((e: unknown) => e);
      expect(PipelineError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'planner', code: 'AGENT_ERROR', batchIndex: 0, message });
      expect(await pipeline.getAllBatchStates()).toMatchObject([{ batchIndex: 0, status: 'failed', error: { name: 'PipelineError' } }]);
    }
  });

  it('rejects duplicate task ids', async () => {
    const pipeline = createBatchPipeline({ planner: () => ({ tasks: ['a', 'a'], last: true }), executor: () => 1, taskId: (task) => task, store: new MemoryStore(), threadId: 'dup' });
    await expect(pipeline.run()).rejects.toThrow(/task id "a" is used twice/);
  });
});

describe('options', () => {
  it('rejects bad options with errors naming the option', () => {
    const base = { planner: () => null, executor: () => 1, store: new MemoryStore(), threadId: 't' };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ store: {} }, 'store'],
      [{ threadId: '' }, 'threadId'],
      [{ mode: 'parallel' }, 'mode'],
      [{ namespace: [] }, 'namespace'],
      [{ namespace: ['a', ''] }, 'namespace'],
      [{ planner: 42 }, 'planner'],
      [{ executor: {} }, 'executor'],
      [{ onTaskFailure: 'retry' }, 'onTaskFailure'],
      [{ batchConcurrency: 0 }, 'batchConcurrency'],
      [{ eventBus: {} }, 'eventBus'],
    ];
    for (const [override, argument] of bad) {
      let thrown: unknown;
      try {
        createBatchPipeline({ ...base, ...override } as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, argument).toBeInstanceOf(InvalidArgumentError);
      expect(thrown).toMatchObject({ argument });
    }
  });

  it('refuses a second run of the same thread and role while one is running', async () => {
    const store = new TestStore();
    const hold = gate();
    const first = createBatchPipeline({ planner: async () => (await hold.promise, null), executor: () => 1, store, threadId: 'busy' });
    const running = first.run();
    await expect(first.run()).rejects.toThrow(/already running/);
    const second = createBatchPipeline({ planner: () => null, executor: () => 1, store, threadId: 'busy' });
    await expect(second.runExecutor()).rejects.toThrow(/already runs the executor of thread "busy"/);
    hold.open();
    expect((await running).status).toBe('completed');
    expect((await second.runExecutor()).status).toBe('completed');
  });
});
