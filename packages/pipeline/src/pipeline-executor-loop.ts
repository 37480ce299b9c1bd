import { AbortError } from '@troupe/core';
import { listBatchEvents, markBatchEventProcessed, readBatchEvent, writeBatchEvent } from './batch-event-log';
import { PlannedBatchQueue } from './pipeline-planned-queue';
import { runBatch } from './pipeline-run-batch';
import { batchStateSchema } from './pipeline-store-layout';
import { parseStored } from './pipeline-store-guard';
import type { PipelineThread } from './pipeline-thread';
import type { PipelineWakeups } from './pipeline-wakeups';
import type { BatchEventRecord, BatchState, PipelineExecutor, PipelineMode, TaskFailurePolicy } from './pipeline-types';

/** How the executor loop runs. */
export interface ExecutorLoopOptions {
  mode: PipelineMode;
  /** Batches run at once; 1 keeps batch order. */
  batchConcurrency: number;
  onTaskFailure: TaskFailurePolicy;
  wakeups: PipelineWakeups;
}

/**
 * The executing role (seed §1.2.2 / §2.2.3): runs the batches whose
 * `BATCH_PLANNED` event is not processed yet, lowest index first, and ends
 * with `EXECUTION_COMPLETED` once planning is complete and no batch is left.
 * In serial mode it starts only after `PLANNING_COMPLETED`. When nothing is
 * runnable it sleeps on the bus notifications ({@link PipelineWakeups}):
 * one store read per notification, never a timer.
 *
 * @internal
 */
export async function runExecutorLoop(thread: PipelineThread, executor: PipelineExecutor, options: ExecutorLoopOptions): Promise<void> {
  const { signal, threadId } = thread;
  const { wakeups, batchConcurrency } = options;
  // Aborts the batches still running when one of them fails.
  const siblings = new AbortController();
  const batchSignal = AbortSignal.any([signal, siblings.signal]);
  const inFlight = new Map<number, Promise<void>>();
  let failure: { error: unknown } | undefined;
  const planned = new PlannedBatchQueue();
  const throwIfBatchFailed = () => {
    if (failure) throw failure.error;
  };

  const start = (event: BatchEventRecord) => {
    const running = runBatch(thread, executor, event, options.onTaskFailure, batchSignal).then(
      () => {
        inFlight.delete(event.batchIndex);
        wakeups.bump();
      },
      (error: unknown) => {
        inFlight.delete(event.batchIndex);
        if (!failure) {
          failure = { error };
          siblings.abort(error);
        }
        wakeups.bump();
      },
    );
    inFlight.set(event.batchIndex, running);
  };

  try {
    for (;;) {
      throwIfBatchFailed();
      AbortError.throwIfAborted(signal, `Execution of pipeline thread "${threadId}"`);
      const version = wakeups.version;
      const planning = await thread.read('read the planning progress', (store) => thread.readPlanning(store));
      if (options.mode === 'serial' && !planning.planningCompleted) {
        thread.emit('pipeline:executor-waiting', { waitingFor: 'planning-completed', nextBatchIndex: null });
        await wakeups.wait(version, signal);
        continue;
      }
      const afterBatch = planned.readThrough;
      const listed = await thread.read('list the unprocessed BATCH_PLANNED events', (store) =>
        listBatchEvents(store, thread.namespace, threadId, 'BATCH_PLANNED', { signal, ...(afterBatch >= 0 ? { afterBatch } : {}) }),
      );
      throwIfBatchFailed();
      planned.add(listed);
      while (inFlight.size < batchConcurrency && planned.size > 0) start(planned.take());
      if (inFlight.size === 0 && planned.size === 0 && planning.planningCompleted) {
        await completeExecution(thread, planning.totalBatches ?? planning.nextBatchIndex);
        return;
      }
      // A finished batch bumps the wakeups too, so this also returns when a slot frees up.
      if (inFlight.size === 0) thread.emit('pipeline:executor-waiting', { waitingFor: 'batch-planned', nextBatchIndex: planning.nextBatchIndex });
      await wakeups.wait(version, signal);
    }
  } finally {
    if (inFlight.size > 0) {
      siblings.abort(new AbortError('The pipeline executor stopped'));
      await Promise.allSettled([...inFlight.values()]);
    }
  }
}

/** Stores `EXECUTION_COMPLETED` (once) and consumes `PLANNING_COMPLETED`. */
async function completeExecution(thread: PipelineThread, totalBatches: number): Promise<void> {
  const { threadId } = thread;
  const totals = await thread.atomic('record execution as completed', async (tx) => {
    const states = (await tx.list(thread.layout.states)).map((item) => parseStored(batchStateSchema, item, { threadId }) as BatchState);
    const executedTasks = states.reduce((sum, state) => sum + (state.executedTasks ?? 0), 0);
    const failedTasks = states.reduce((sum, state) => sum + (state.failedTasks ?? 0), 0);
    const already = await readBatchEvent(tx, thread.namespace, threadId, 'EXECUTION_COMPLETED', totalBatches);
    if (already) return undefined;
    const now = thread.now();
    await markBatchEventProcessed(tx, thread.namespace, threadId, 'PLANNING_COMPLETED', totalBatches, now);
    await writeBatchEvent(tx, thread.namespace, { type: 'EXECUTION_COMPLETED', threadId, batchIndex: totalBatches, totalBatches, processed: true, data: { executedTasks, failedTasks } }, now);
    return { executedTasks, failedTasks };
  });
  if (totals) thread.emit('pipeline:execution-completed', { totalBatches, ...totals });
}
