import { describe, expect, it } from 'vitest';
import { EventBus } from '@troupe/core';
import { createBatchPipeline } from '@troupe/pipeline';
import { gate, sleep, TestStore, until } from './testing/pipeline-test-kit';

describe('the executor waits on notifications, never polls', () => {
  for (const mode of ['serial', 'concurrent'] as const) {
    it(`${mode}: no store reads while the executor waits for the planner`, async () => {
      const store = new TestStore();
      const bus = new EventBus();
      const release = gate();
      const planned1 = gate();
      const waiting = gate();
      bus.on('pipeline:executor-waiting', () => waiting.open());
      // What the executor did last: it is idle when its last step was to start waiting.
      const executorSteps: string[] = [];
      bus.on('*', (event) => {
        if (/^pipeline:(batch-planned|batch-executed|task-|executor-waiting)/.test(event.type)) executorSteps.push(event.type);
      });
      // Run the executor alone, so it has to wait for a planner that is not there yet.
      const executor = createBatchPipeline({ planner: () => null, executor: (task: string) => task, store, mode, threadId: 'idle', eventBus: bus });
      const executing = executor.runExecutor();
      await waiting.promise;

      const readsWhileWaiting = store.reads;
      await sleep(250); // a polling executor would read the store again and again here
      expect(store.reads).toBe(readsWhileWaiting);

      const planner = createBatchPipeline({
        planner: async ({ batchIndex }) => {
          if (batchIndex === 1) {
            planned1.open();
            await release.promise;
          }
          return { tasks: [`t${batchIndex}`], totalBatches: 2 };
        },
        executor: () => 'unused',
        store,
        mode,
        threadId: 'idle',
        eventBus: bus,
      });
      const planning = planner.runPlanner();
      await planned1.promise;
      await until(
        () => executorSteps.at(-1) === 'pipeline:executor-waiting' && (mode === 'serial' || executorSteps.includes('pipeline:batch-executed')),
        'the executor to wait again',
      );
      const readsWhilePlanning = store.reads;
      await sleep(250);
      // The planner is busy with batch 1; the executor (done with batch 0 in concurrent mode) reads nothing meanwhile.
      expect(store.reads).toBe(readsWhilePlanning);

      release.open();
      await planning;
      const result = await executing;
      expect(result).toMatchObject({ status: 'completed', executedTasks: 2 });
    });
  }
});
