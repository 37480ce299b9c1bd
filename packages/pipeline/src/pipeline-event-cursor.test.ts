import { describe, expect, it } from 'vitest';
import { MemoryStore, type Namespace, type StoreItem, type StoreListOptions } from '@troupe/core';
import { createBatchPipeline } from '@troupe/pipeline';
import { PlannedBatchQueue } from './pipeline-planned-queue';
import { TestStore } from './testing/pipeline-test-kit';
import type { BatchEventRecord } from './pipeline-types';

/** Counts the BATCH_PLANNED records the executor's reads return. */
class CountingStore extends TestStore {
  plannedRead = 0;
  plannedLists = 0;

  override async list<V = unknown>(namespace: Namespace, options?: StoreListOptions): Promise<StoreItem<V>[]> {
    const items = await super.list<V>(namespace, options);
    if (namespace.at(-1) === 'BATCH_PLANNED') {
      this.plannedLists++;
      this.plannedRead += items.length;
    }
    return items;
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the executor reads the event log with a cursor', () => {
  it('reads each BATCH_PLANNED event once while the planner runs ahead (concurrent)', async () => {
    const batches = 200;
    const store = new CountingStore();
    const result = await createBatchPipeline({
      planner: ({ batchIndex }) => ({ tasks: [`t${batchIndex}`], totalBatches: batches }),
      // A slow executor: the planner gets far ahead, so every read finds many unprocessed events.
      executor: async (task: string) => {
        await tick();
        return task;
      },
      store,
      mode: 'concurrent',
      threadId: 'cursor',
    }).run();
    expect(result).toMatchObject({ status: 'completed', executedTasks: batches });
    expect(store.plannedLists).toBeGreaterThan(1);
    expect(store.plannedRead).toBe(batches);
  });

  it('a resumed executor reads the processed prefix once and runs only what is left', async () => {
    const inner = new MemoryStore();
    const planner = ({ batchIndex }: { batchIndex: number }) => ({ tasks: [`t${batchIndex}`], totalBatches: 30 });
    let ran = 0;
    const first = createBatchPipeline({
      planner,
      executor: (task: string) => {
        if (++ran === 12) throw new Error('crash');
        return task;
      },
      onTaskFailure: 'stop',
      store: inner,
      mode: 'serial',
      threadId: 'resume',
    });
    await first.run().catch(() => undefined);
    const store = new CountingStore(inner);
    const executed: string[] = [];
    const result = await createBatchPipeline({
      planner,
      executor: (task: string) => void executed.push(task),
      store,
      mode: 'serial',
      threadId: 'resume',
    }).run();
    expect(result.status).toBe('completed');
    expect(executed).toEqual(Array.from({ length: 19 }, (_, i) => `t${i + 11}`));
    expect(store.plannedRead).toBe(30);
  });
});

describe('PlannedBatchQueue', () => {
  const event = (batchIndex: number, processed = false) => ({ batchIndex, processed }) as BatchEventRecord;

  it('moves its cursor over contiguous batches and queues the unprocessed ones in order', () => {
    const queue = new PlannedBatchQueue();
    queue.add([event(0, true), event(1), event(2)]);
    expect(queue.readThrough).toBe(2);
    expect(queue.size).toBe(2);
    queue.add([event(2), event(3)]); // a repeat is ignored
    expect([queue.take().batchIndex, queue.take().batchIndex, queue.take().batchIndex]).toEqual([1, 2, 3]);
    expect(queue.size).toBe(0);
  });

  it('keeps its cursor below a gap, so a batch written late is still found, and never queues a batch twice', () => {
    const queue = new PlannedBatchQueue();
    queue.add([event(0), event(2), event(3)]);
    expect(queue.readThrough).toBe(0);
    expect(queue.take().batchIndex).toBe(0);
    // The next read starts after batch 0 again: 2 and 3 come back with the late 1.
    queue.add([event(1), event(2), event(3), event(4)]);
    expect(queue.readThrough).toBe(4);
    const order: number[] = [];
    while (queue.size > 0) order.push(queue.take().batchIndex);
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('stays in order across many takes', () => {
    const queue = new PlannedBatchQueue();
    const taken: number[] = [];
    for (let round = 0; round < 30; round++) {
      queue.add(Array.from({ length: 100 }, (_, i) => event(round * 100 + i)));
      for (let i = 0; i < 90; i++) taken.push(queue.take().batchIndex);
    }
    while (queue.size > 0) taken.push(queue.take().batchIndex);
    expect(taken).toEqual(Array.from({ length: 3000 }, (_, i) => i));
  });
});
