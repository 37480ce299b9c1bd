import { describe, expect, it } from 'vitest';
import { EventBus, MemoryStore } from '@troupe/core';
import { createBatchPipeline, PipelineError, type TaskFailureInfo } from '@troupe/pipeline';

describe('empty batches', () => {
  for (const mode of ['serial', 'concurrent'] as const) {
    it(`${mode}: an empty batch is recorded, skipped and reported, and execution goes on`, async () => {
      const bus = new EventBus();
      const executed: string[] = [];
      const reported: unknown[] = [];
      bus.on('pipeline:batch-executed', (event) => void reported.push(event.payload));
      const pipeline = createBatchPipeline({
        planner: ({ batchIndex }) => ({ tasks: batchIndex === 1 ? [] : ['t'], totalBatches: 3 }),
        executor: (_task, { taskId }) => void executed.push(taskId),
        store: new MemoryStore(),
        mode,
        threadId: 'empty',
        eventBus: bus,
      });
      const result = await pipeline.run();
      expect(executed).toEqual(['0-0', '2-0']);
      expect(result).toMatchObject({ status: 'completed', skippedBatches: 1, executedTasks: 2 });
      expect(result.batches[1]).toMatchObject({ batchIndex: 1, status: 'executed', skipped: true, taskCount: 0, executedTasks: 0, failedTasks: 0 });
      expect(result.batches[1]?.executionCompletedAt).toBeTypeOf('number');
      expect(reported).toMatchObject([{ batchIndex: 0, skipped: false }, { batchIndex: 1, skipped: true, taskCount: 0 }, { batchIndex: 2, skipped: false }]);
      const events = await pipeline.getEvents();
      expect(events.filter((e) => e.batchIndex === 1 && e.type.startsWith('BATCH_')).map((e) => [e.type, e.processed, e.data])).toEqual([
        ['BATCH_PLANNED', true, { taskCount: 0 }],
        ['BATCH_EXECUTED', true, { taskCount: 0, executedTasks: 0, failedTasks: 0, status: 'executed', skipped: true }],
      ]);
    });
  }
});

/** An executor that fails the tasks in `failing` with a message naming them. */
function failingExecutor(calls: string[], failing: Set<string>) {
  return (_task: string, { taskId }: { taskId: string }) => {
    calls.push(taskId);
    if (failing.has(taskId)) throw new Error(`assertion failed in ${taskId}`);
    return { passed: true };
  };
}

const threeByTwo = ({ batchIndex }: { batchIndex: number }) => ({ tasks: ['a', 'b'], last: batchIndex === 2 });

describe('task failures', () => {
  it('continue: the failure is recorded, the batch goes on and ends "failed", later batches run, a resume does not retry it', async () => {
    const store = new MemoryStore();
    const bus = new EventBus();
    const completed: unknown[] = [];
    bus.on('pipeline:task-completed', (event) => void completed.push(event.payload));
    const calls: string[] = [];
    const pipeline = createBatchPipeline({ planner: threeByTwo, executor: failingExecutor(calls, new Set(['1-0'])), store, threadId: 'cont', onTaskFailure: 'continue', eventBus: bus });
    const result = await pipeline.run();
    expect(calls).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0', '2-1']);
    expect(result).toMatchObject({ status: 'completed', executedTasks: 6, failedTasks: 1 });
    expect(result.batches.map((b) => [b.status, b.executedTasks, b.failedTasks])).toEqual([
      ['executed', 2, 0],
      ['failed', 2, 1],
      ['executed', 2, 0],
    ]);
    expect((await pipeline.getTaskResults(1))[0]).toMatchObject({
      taskId: '1-0',
      status: 'failed',
      decision: 'continue',
      attempt: 1,
      error: { name: 'Error', message: 'assertion failed in 1-0' },
    });
    expect(completed[2]).toMatchObject({ taskId: '1-0', status: 'failed', decision: 'continue', error: { message: 'assertion failed in 1-0' } });
    expect((await pipeline.getEvents('EXECUTION_COMPLETED'))[0]?.data).toEqual({ executedTasks: 6, failedTasks: 1 });

    const again: string[] = [];
    await createBatchPipeline({ planner: threeByTwo, executor: failingExecutor(again, new Set()), store, threadId: 'cont' }).run();
    expect(again).toEqual([]);
  });

  it('stop: the failure is recorded, the run rejects naming the task, and a resume retries that task only', async () => {
    const store = new MemoryStore();
    const calls: string[] = [];
    const stopping = createBatchPipeline({ planner: threeByTwo, executor: failingExecutor(calls, new Set(['1-0'])), store, mode: 'serial', threadId: 'stop' });
    const error = await stopping.run().catch((e: unknown) => e);
    expect(PipelineError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'task', code: 'AGENT_ERROR', batchIndex: 1, taskIndex: 0, taskId: '1-0' });
    expect((error as Error).message).toBe('Task 1-0 (batch 1, task 0) of pipeline thread "stop" failed and the failure policy is "stop": assertion failed in 1-0');
    expect(((error as Error).cause as Error).message).toBe('assertion failed in 1-0');
    expect(calls).toEqual(['0-0', '0-1', '1-0']);
    const states = await stopping.getAllBatchStates();
    expect(states[1]).toMatchObject({ status: 'failed', executedTasks: 1, failedTasks: 1, error: { message: 'assertion failed in 1-0' } });
    expect((await stopping.getEvents('BATCH_PLANNED')).map((e) => e.processed)).toEqual([true, false, false]);

    const retried: string[] = [];
    const attempts: number[] = [];
    const resumed = await createBatchPipeline({
      planner: threeByTwo,
      executor: (task: string, context) => {
        attempts.push(context.attempt);
        return failingExecutor(retried, new Set())(task, context);
      },
      store,
      mode: 'serial',
      threadId: 'stop',
    }).run();
    expect(retried).toEqual(['1-0', '1-1', '2-0', '2-1']);
    expect(attempts[0]).toBe(2);
    expect(resumed.batches.map((b) => [b.status, b.executedTasks, b.failedTasks])).toEqual([
      ['executed', 2, 0],
      ['executed', 2, 0],
      ['executed', 2, 0],
    ]);
    expect(resumed.batches[1]?.error).toBeUndefined();
    expect((await stopping.getTaskResults(1))[0]).toMatchObject({ status: 'succeeded', attempt: 2 });
  });

  it('a policy function decides per failure', async () => {
    const seen: TaskFailureInfo[] = [];
    const calls: string[] = [];
    const pipeline = createBatchPipeline({
      planner: threeByTwo,
      executor: failingExecutor(calls, new Set(['0-1', '2-0'])),
      store: new MemoryStore(),
      threadId: 'fn',
      onTaskFailure: (failure) => {
        seen.push(failure);
        return failure.batchIndex === 0 ? 'continue' : 'stop';
      },
    });
    await expect(pipeline.run()).rejects.toMatchObject({ kind: 'task', taskId: '2-0' });
    expect(seen.map((f) => [f.taskId, f.task, (f.error as Error).message, f.attempt])).toEqual([
      ['0-1', 'b', 'assertion failed in 0-1', 1],
      ['2-0', 'a', 'assertion failed in 2-0', 1],
    ]);
    expect(calls).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0']);
  });

  it('a result that is not JSON fails the task with a clear error', async () => {
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: ['a'], last: true }),
      executor: () => ({ big: 1n }),
      store: new MemoryStore(),
      threadId: 'json',
    });
    await expect(pipeline.run()).rejects.toThrow(/Invalid argument "result": the executor's result for task 0-0 must be JSON-serializable/);
    expect(await pipeline.getTaskResults()).toMatchObject([{ status: 'failed', decision: 'stop', error: { name: 'InvalidArgumentError' } }]);
  });

  it('a planner failure marks the batch failed and rejects; a resume plans that batch again', async () => {
    const store = new MemoryStore();
    let fail = true;
    const planner = ({ batchIndex }: { batchIndex: number }) => {
      if (batchIndex === 1 && fail) throw new Error('rate limited');
      return { tasks: ['t'], totalBatches: 2 };
    };
    const first = createBatchPipeline({ planner, executor: () => 1, store, mode: 'serial', threadId: 'plan-fail' });
    await expect(first.run()).rejects.toMatchObject({ kind: 'planner', batchIndex: 1, message: 'The planner failed on batch 1 of pipeline thread "plan-fail": rate limited' });
    expect((await first.getAllBatchStates()).map((s) => s.status)).toEqual(['planned', 'failed']);
    fail = false;
    const result = await createBatchPipeline({ planner, executor: () => 1, store, mode: 'serial', threadId: 'plan-fail' }).run();
    expect(result.batches.map((s) => [s.status, s.error])).toEqual([
      ['executed', undefined],
      ['executed', undefined],
    ]);
  });

  it('redacts secrets from stored and emitted failures and from the run error', async () => {
    const bus = new EventBus();
    const emitted: string[] = [];
    bus.on('*', (event) => void emitted.push(JSON.stringify(event)));
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: ['call the API'], last: true }),
      executor: () => {
        throw new Error('401 for key hunter2-very-secret (also sk-abcdefghijklmnopqrstuvwx)');
      },
      store: new MemoryStore(),
      threadId: 'secrets',
      eventBus: bus,
      secrets: ['hunter2-very-secret'],
    });
    const error = (await pipeline.run().catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('Task 0-0 (batch 0, task 0) of pipeline thread "secrets" failed and the failure policy is "stop": 401 for key [REDACTED] (also [REDACTED])');
    const stored = JSON.stringify([await pipeline.getTaskResults(), await pipeline.getAllBatchStates()]);
    for (const text of [stored, ...emitted]) {
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('sk-abcdef');
    }
    expect(stored).toContain('401 for key [REDACTED]');
  });
});
