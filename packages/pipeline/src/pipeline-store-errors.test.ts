import { describe, expect, it } from 'vitest';
import { EventBus, MemoryStore } from '@troupe/core';
import { BatchEventLog, BatchStateManager, createBatchPipeline, PipelineError, type PipelineMode } from '@troupe/pipeline';
import { gate, TestStore } from './testing/pipeline-test-kit';

function parts(log: string[]) {
  return {
    planner: ({ batchIndex }: { batchIndex: number }) => {
      log.push(`plan ${batchIndex}`);
      return { tasks: ['x', 'y'], totalBatches: 3 };
    },
    executor: (_task: string, { taskId }: { taskId: string }) => {
      log.push(`exec ${taskId}`);
      return taskId;
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<PipelineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(PipelineError.isInstance(error), `expected a PipelineError, got ${String(error)}`).toBe(true);
  return error as PipelineError;
}

describe('store errors fail the run with a clear error (never swallowed)', () => {
  for (const mode of ['serial', 'concurrent'] as const satisfies readonly PipelineMode[]) {
    it(`${mode}: a failed write while recording a planned batch rejects the run and leaves none of that batch's records`, async () => {
      const store = new TestStore();
      const bus = new EventBus();
      const finished: unknown[] = [];
      bus.on('pipeline:run-finished', (event) => void finished.push(event.payload));
      store.failWhen(({ method, namespace, key }) => method === 'put' && namespace?.at(-1) === 'batches' && key === '00000001');
      const log: string[] = [];
      const error = await failure(createBatchPipeline({ ...parts(log), store, mode, threadId: 'flaky', eventBus: bus }).run());
      expect(error).toMatchObject({ kind: 'store', code: 'INVALID_STATE', threadId: 'flaky', batchIndex: 1, operation: 'put [pipeline, flaky, batches] 00000001' });
      expect(error.message).toBe(
        'Pipeline thread "flaky" could not record batch 1 as planned: the store failed on put [pipeline, flaky, batches] 00000001: disk I/O error (SQLITE_IOERR) on put',
      );
      expect((error.cause as Error).message).toMatch(/SQLITE_IOERR/);
      expect(finished).toMatchObject([{ status: 'failed', error: { name: 'PipelineError', code: 'INVALID_STATE' } }]);

      // The transaction kept nothing of batch 1 but its "planning" state.
      store.heal();
      const pipeline = createBatchPipeline({ ...parts([]), store, mode, threadId: 'flaky' });
      expect((await pipeline.getEvents('BATCH_PLANNED')).map((e) => e.batchIndex)).toEqual([0]);
      expect((await pipeline.getAllBatchStates()).map((s) => [s.batchIndex, s.status])[1]).toEqual([1, 'planning']);

      // Healed, the thread resumes: batch 1 is planned again and every task runs to one recorded outcome.
      const resumed: string[] = [];
      const result = await createBatchPipeline({ ...parts(resumed), store, mode, threadId: 'flaky' }).run();
      expect(result.status).toBe('completed');
      expect(resumed.filter((l) => l.startsWith('plan'))).toEqual(['plan 1', 'plan 2']);
      expect((await pipeline.getTaskResults()).map((r) => r.taskId)).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0', '2-1']);
    });
  }

  it('a failed write of a task outcome rejects the run; the unrecorded task runs again on resume, the recorded ones do not', async () => {
    const store = new TestStore();
    store.failWhen(({ method, namespace, key }) => method === 'put' && namespace?.includes('results') === true && namespace.at(-1) === '00000001' && key === '00000001');
    const log: string[] = [];
    const error = await failure(createBatchPipeline({ ...parts(log), store, mode: 'concurrent', threadId: 'task-write' }).run());
    expect(error).toMatchObject({ kind: 'store', batchIndex: 1, taskIndex: 1 });
    expect(error.message).toMatch(/could not record the outcome of task 1-1 \(batch 1, task 1\): the store failed on put \[pipeline, task-write, results, 00000001\] 00000001/);
    store.heal();
    const resumed: string[] = [];
    await createBatchPipeline({ ...parts(resumed), store, mode: 'concurrent', threadId: 'task-write' }).run();
    expect(resumed.filter((l) => l.startsWith('exec'))).toEqual(['exec 1-1', 'exec 2-0', 'exec 2-1']);
  });

  it('a failed read in the executor rejects the run, and in concurrent mode stops the planner too', async () => {
    const store = new TestStore();
    let plannerSignal: AbortSignal | undefined;
    const plannerBusy = gate();
    // Once the planner is busy with batch 1, the executor's next read of the event log fails.
    store.failWhen(({ method, namespace }) => plannerBusy.opened && method === 'list' && namespace?.at(-1) === 'BATCH_PLANNED');
    const error = await failure(
      createBatchPipeline({
        planner: async ({ batchIndex, signal }) => {
          if (batchIndex > 0) {
            plannerSignal = signal;
            plannerBusy.open();
            await new Promise(() => {}); // only the executor's failure can end this run
          }
          return { tasks: ['x'] };
        },
        executor: () => plannerBusy.promise,
        store,
        threadId: 'read',
      }).run(),
    );
    expect(error.message).toMatch(/could not list the unprocessed BATCH_PLANNED events: the store failed on list \[pipeline, read, events, BATCH_PLANNED\]/);
    expect(plannerSignal?.aborted).toBe(true);
  });

  it('a failed transaction commit is reported too', async () => {
    const store = new TestStore();
    store.failWhen(({ method }) => method === 'transaction');
    const error = await failure(createBatchPipeline({ ...parts([]), store, threadId: 'commit' }).run());
    expect(error.message).toBe('Pipeline thread "commit" could not record batch 0 as planned: the store failed on transaction: disk I/O error (SQLITE_IOERR) on transaction');
  });

  it('a record the pipeline did not write is a corrupt-state error naming the record', async () => {
    const store = new MemoryStore();
    await store.put(['pipeline', 'corrupt'], 'planning', { nextBatchIndex: 'two' });
    const error = await failure(createBatchPipeline({ ...parts([]), store, threadId: 'corrupt' }).run());
    expect(error).toMatchObject({ kind: 'corrupt-state', code: 'INVALID_STATE' });
    expect(error.message).toMatch(/the stored record at \[pipeline, corrupt\] planning is not what the pipeline writes \(nextBatchIndex: .*number/);
  });

  it('BatchStateManager and BatchEventLog reject on store errors instead of returning empty results', async () => {
    const store = new TestStore();
    const states = new BatchStateManager(store, ['plans']);
    const log = new BatchEventLog(store, ['plans']);
    await states.updateBatchState('t', 0, { status: 'planning' });
    await log.publishEvent({ type: 'BATCH_PLANNED', threadId: 't', batchIndex: 0 });
    store.failWhen(() => true);
    await expect(states.getAllBatchStates('t')).rejects.toThrow('Pipeline thread "t" could not list the batch states: the store failed on list [plans, t, batch-states]');
    await expect(states.getBatchState('t', 0)).rejects.toThrow(/could not read the state of batch 0/);
    await expect(states.updateBatchState('t', 0, { status: 'planned' })).rejects.toThrow(/could not update the state of batch 0/);
    await expect(log.getUnprocessedEvents('t', 'BATCH_PLANNED')).rejects.toThrow(/could not list the BATCH_PLANNED events/);
    await expect(log.markEventProcessed('t', 'BATCH_PLANNED', 0)).rejects.toThrow(/could not mark the BATCH_PLANNED event of batch 0 processed/);
    await expect(log.publishEvent({ type: 'BATCH_EXECUTED', threadId: 't', batchIndex: 0 })).rejects.toThrow(/could not store the BATCH_EXECUTED event of batch 0/);
  });
});
