import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MemoryStore } from '@troupe/core';
import { BatchEventLog, BatchStateManager } from '@troupe/pipeline';

describe('BatchStateManager', () => {
  it('merges updates per batch and lists states sorted by batch index (numerically)', async () => {
    const store = new MemoryStore();
    const states = new BatchStateManager(store, ['plans', 'proj']);
    for (const index of [10, 2, 0]) await states.updateBatchState('t1', index, { status: 'planning', planningStartedAt: 100 + index });
    await states.updateBatchState('t1', 2, { status: 'planned', planningCompletedAt: 150, taskCount: 4 });
    await states.updateBatchState('t1', 2, { status: 'executing', executionStartedAt: 160, executedTasks: 0, failedTasks: 0 });
    await states.updateBatchState('t2', 0, { status: 'planning' });

    expect(await states.getBatchState('t1', 2)).toEqual({
      batchIndex: 2,
      status: 'executing',
      planningStartedAt: 102,
      planningCompletedAt: 150,
      executionStartedAt: 160,
      taskCount: 4,
      executedTasks: 0,
      failedTasks: 0,
    });
    expect((await states.getAllBatchStates('t1')).map((s) => [s.batchIndex, s.status])).toEqual([
      [0, 'planning'],
      [2, 'executing'],
      [10, 'planning'],
    ]);
    expect(await states.getBatchState('t1', 5)).toBeUndefined();
    expect((await store.list(['plans', 'proj', 't1', 'batch-states'])).map((i) => i.key)[0]).toBe('batch-state-00000000');
    expect(await states.deleteBatchState('t1', 10)).toBe(true);
    expect(await states.deleteBatchState('t1', 10)).toBe(false);
  });

  it('keeps every field when updates of one batch race (updates hold the write lock)', async () => {
    const states = new BatchStateManager(new MemoryStore());
    await states.updateBatchState('t', 0, { status: 'executing' });
    await Promise.all([
      states.updateBatchState('t', 0, { executedTasks: 3 }),
      states.updateBatchState('t', 0, { failedTasks: 1 }),
      states.updateBatchState('t', 0, { taskCount: 5 }),
    ]);
    expect(await states.getBatchState('t', 0)).toMatchObject({ executedTasks: 3, failedTasks: 1, taskCount: 5 });
  });

  it('rejects bad input clearly', async () => {
    const states = new BatchStateManager(new MemoryStore());
    await expect(states.updateBatchState('t', 0, { executedTasks: 1 })).rejects.toThrow(/batch 0 has no state yet; the first update needs a status/);
    await expect(states.updateBatchState('t', -1, { status: 'planning' })).rejects.toThrow(InvalidArgumentError);
    await expect(states.updateBatchState('t', 0, { status: 'done' as never })).rejects.toThrow(/expected planning, planned, executing, executed or failed, got "done"/);
    await expect(states.getAllBatchStates('')).rejects.toThrow(/threadId/);
    expect(() => new BatchStateManager({} as never)).toThrow(/Invalid argument "store"/);
    expect(() => new BatchStateManager(new MemoryStore(), [])).toThrow(/Invalid argument "namespace"/);
  });
});

describe('BatchEventLog', () => {
  it('stores events with processed flags and lists the unprocessed ones by batch', async () => {
    let clock = 1_000;
    const log = new BatchEventLog(new MemoryStore(), ['events', 'proj'], () => clock++);
    for (const batchIndex of [2, 0, 1]) await log.publishEvent({ type: 'BATCH_PLANNED', threadId: 't', batchIndex, totalBatches: 3, data: { taskCount: 2 } });
    await log.publishEvent({ type: 'BATCH_EXECUTED', threadId: 't', batchIndex: 0, processed: true });
    expect(await log.markEventProcessed('t', 'BATCH_PLANNED', 0)).toBe(true);
    expect(await log.markEventProcessed('t', 'BATCH_PLANNED', 9)).toBe(false);

    expect((await log.getUnprocessedEvents('t', 'BATCH_PLANNED')).map((e) => e.batchIndex)).toEqual([1, 2]);
    expect(await log.getEvents('t', 'BATCH_PLANNED')).toMatchInlineSnapshot(`
      [
        {
          "batchIndex": 0,
          "data": {
            "taskCount": 2,
          },
          "id": "t-BATCH_PLANNED-0",
          "processed": true,
          "processedAt": 1004,
          "threadId": "t",
          "timestamp": 1001,
          "totalBatches": 3,
          "type": "BATCH_PLANNED",
        },
        {
          "batchIndex": 1,
          "data": {
            "taskCount": 2,
          },
          "id": "t-BATCH_PLANNED-1",
          "processed": false,
          "threadId": "t",
          "timestamp": 1002,
          "totalBatches": 3,
          "type": "BATCH_PLANNED",
        },
        {
          "batchIndex": 2,
          "data": {
            "taskCount": 2,
          },
          "id": "t-BATCH_PLANNED-2",
          "processed": false,
          "threadId": "t",
          "timestamp": 1000,
          "totalBatches": 3,
          "type": "BATCH_PLANNED",
        },
      ]
    `);
    expect((await log.getEvents('t')).map((e) => `${e.type}:${e.batchIndex}`)).toEqual(['BATCH_PLANNED:0', 'BATCH_PLANNED:1', 'BATCH_PLANNED:2', 'BATCH_EXECUTED:0']);
    expect(await log.getEvents('other')).toEqual([]);
  });

  it('rejects unknown event types and bad indexes', async () => {
    const log = new BatchEventLog(new MemoryStore());
    await expect(log.publishEvent({ type: 'BATCH_DONE' as never, threadId: 't', batchIndex: 0 })).rejects.toThrow(
      /expected one of BATCH_PLANNED, BATCH_EXECUTED, PLANNING_COMPLETED, EXECUTION_COMPLETED, got "BATCH_DONE"/,
    );
    await expect(log.publishEvent({ type: 'BATCH_PLANNED', threadId: 't', batchIndex: 1.5 })).rejects.toThrow(/batchIndex/);
    await expect(log.getUnprocessedEvents('t', 'nope' as never)).rejects.toThrow(/Invalid argument "type"/);
  });
});
