import { AbortError, InvalidArgumentError, withEventScope } from '@troupe/core';
import { raceAbort } from '@troupe/core/util';
import { markBatchEventProcessed, writeBatchEvent } from './batch-event-log';
import { readBatchState } from './batch-state-manager';
import { PipelineError } from './pipeline-error';
import { batchRecordSchema, batchStateKey, padIndex, taskRecordSchema, type BatchRecord } from './pipeline-store-layout';
import { parseStored } from './pipeline-store-guard';
import type { PipelineThread } from './pipeline-thread';
import type { BatchEventRecord, BatchState, PipelineExecutor, TaskFailureDecision, TaskFailurePolicy, TaskRecord } from './pipeline-types';

/**
 * Executes one planned batch, task after task, storing each task's outcome
 * and the batch's counts after every task. Tasks that already have a final
 * outcome (succeeded, or failed under `continue`) are skipped, so a resumed
 * batch never re-runs them. An empty batch is recorded as skipped. The
 * batch's end (state, `BATCH_PLANNED` processed, `BATCH_EXECUTED`) is one
 * transaction.
 *
 * @internal
 */
export async function runBatch(thread: PipelineThread, executor: PipelineExecutor, event: BatchEventRecord, policy: TaskFailurePolicy, signal: AbortSignal): Promise<void> {
  const { threadId } = thread;
  const batchIndex = event.batchIndex;
  const batch = await thread.read(
    `read the tasks of batch ${batchIndex}`,
    async (store) => {
      const item = await store.get(thread.layout.batches, padIndex(batchIndex), { signal });
      if (!item) {
        throw new PipelineError(`Pipeline thread "${threadId}" has a BATCH_PLANNED event for batch ${batchIndex} but no stored batch`, { kind: 'corrupt-state', threadId, batchIndex });
      }
      return parseStored(batchRecordSchema, item, { threadId, batchIndex });
    },
    { batchIndex },
  );
  const taskCount = batch.tasks.length;
  if (taskCount === 0) return skipEmptyBatch(thread, event);

  const records = await thread.read(
    `read the task outcomes of batch ${batchIndex}`,
    async (store) => {
      const items = await store.list(thread.layout.results(batchIndex), { signal });
      return new Map(items.map((item) => {
        const record = parseStored(taskRecordSchema, item, { threadId, batchIndex }) as TaskRecord;
        return [record.taskIndex, record] as const;
      }));
    },
    { batchIndex },
  );
  let failedCount = 0;
  for (const record of records.values()) if (record.status === 'failed') failedCount++;
  const counts = () => ({ taskCount, executedTasks: records.size, failedTasks: failedCount });
  const executing = await thread.write(
    `record batch ${batchIndex} as executing`,
    async (store) => {
      const existing = await readBatchState(store, thread.namespace, threadId, batchIndex);
      const startedAt = existing?.executionStartedAt ?? thread.now();
      return thread.updateState(store, batchIndex, { status: 'executing', executionStartedAt: startedAt, ...counts() }, ['error', 'executionCompletedAt']);
    },
    { batchIndex },
  );
  thread.emitState(executing);

  // The executor is the only writer of this batch's state while it runs, so it writes it whole.
  let current = executing;
  for (let taskIndex = 0; taskIndex < taskCount; taskIndex++) {
    const previous = records.get(taskIndex);
    if (previous && (previous.status === 'succeeded' || previous.decision === 'continue')) continue;
    AbortError.throwIfAborted(signal, `Execution of batch ${batchIndex} of pipeline thread "${threadId}"`);
    const record = await runTask(thread, executor, batch, taskIndex, (previous?.attempt ?? 0) + 1, policy, signal);
    if (previous?.status === 'failed') failedCount--;
    if (record.status === 'failed') failedCount++;
    records.set(taskIndex, record);
    const progress = counts();
    const state: BatchState = record.decision === 'stop' && record.error ? { ...current, ...progress, status: 'failed', error: record.error } : { ...current, ...progress };
    await thread.write(
      `record the outcome of task ${record.taskId} (batch ${batchIndex}, task ${taskIndex})`,
      async (store) => {
        const { cause: _cause, ...stored } = record;
        await store.put(thread.layout.results(batchIndex), padIndex(taskIndex), stored);
        await store.put(thread.layout.states, batchStateKey(batchIndex), state);
      },
      { batchIndex, taskIndex },
    );
    current = state;
    thread.stats.executedTasks++;
    if (record.status === 'failed') thread.stats.failedTasks++;
    thread.emit('pipeline:task-completed', {
      batchIndex,
      taskIndex,
      taskId: record.taskId,
      attempt: record.attempt,
      status: record.status,
      durationMs: record.finishedAt - record.startedAt,
      completedInBatch: progress.executedTasks,
      taskCount,
      ...(record.error ? { error: record.error } : {}),
      ...(record.decision ? { decision: record.decision } : {}),
    });
    if (record.decision === 'stop') {
      thread.emitState(state);
      throw new PipelineError(
        `Task ${record.taskId} (batch ${batchIndex}, task ${taskIndex}) of pipeline thread "${threadId}" failed and the failure policy is "stop": ${record.error?.message ?? 'unknown error'}`,
        { kind: 'task', threadId, batchIndex, taskIndex, taskId: record.taskId, cause: record.cause },
      );
    }
  }

  const final = counts();
  const status = final.failedTasks > 0 ? ('failed' as const) : ('executed' as const);
  const done = await thread.atomic(
    `record batch ${batchIndex} as ${status}`,
    async (tx) => {
      const now = thread.now();
      const state = await thread.updateState(tx, batchIndex, { status, executionCompletedAt: now, ...final }, ['error']);
      await markBatchEventProcessed(tx, thread.namespace, threadId, 'BATCH_PLANNED', batchIndex, now);
      await writeBatchEvent(tx, thread.namespace, { type: 'BATCH_EXECUTED', threadId, batchIndex, totalBatches: event.totalBatches, processed: true, data: { ...final, status } }, now);
      return state;
    },
    { batchIndex },
  );
  thread.emitState(done);
  thread.emit('pipeline:batch-executed', { batchIndex, status, ...final, skipped: false });
}

/** A task outcome plus, for a failure, the original error (not stored). */
type TaskOutcome = TaskRecord & { cause?: unknown };

/** Runs one task; a failure becomes a record with the policy's decision. */
async function runTask(
  thread: PipelineThread,
  executor: PipelineExecutor,
  batch: BatchRecord,
  taskIndex: number,
  attempt: number,
  policy: TaskFailurePolicy,
  signal: AbortSignal,
): Promise<TaskOutcome> {
  const { threadId } = thread;
  const { batchIndex } = batch;
  const task = batch.tasks[taskIndex] as BatchRecord['tasks'][number];
  const started = thread.emit('pipeline:task-started', { batchIndex, taskIndex, taskId: task.taskId, attempt });
  const startedAt = thread.now();
  const base = { batchIndex, taskIndex, taskId: task.taskId, attempt, startedAt };
  let failure: unknown;
  try {
    const result = await raceAbort(
      () => withEventScope({ event: started, agentId: 'executor' }, () => executor.executeTask(task.input, { batchIndex, taskIndex, taskId: task.taskId, threadId, attempt, signal })),
      signal,
    );
    const stored = toJson(result);
    if (stored.ok) return { ...base, status: 'succeeded', result: stored.value, finishedAt: thread.now() };
    failure = new InvalidArgumentError('result', `the executor's result for task ${task.taskId} must be JSON-serializable (${stored.message})`);
  } catch (error) {
    // A stopped run leaves the task without an outcome: it runs again on resume.
    if (signal.aborted) throw new AbortError(`Task ${task.taskId} of pipeline thread "${threadId}" was aborted`, { cause: signal.reason });
    failure = error;
  }
  const finishedAt = thread.now();
  let decision: TaskFailureDecision;
  try {
    decision = typeof policy === 'function' ? await policy({ batchIndex, taskIndex, taskId: task.taskId, task: task.input, error: failure, attempt }) : policy;
  } catch (error) {
    throw new PipelineError(`The onTaskFailure policy threw for task ${task.taskId} of pipeline thread "${threadId}": ${thread.messageOf(error)}`, {
      kind: 'task',
      threadId,
      batchIndex,
      taskIndex,
      taskId: task.taskId,
      cause: error,
    });
  }
  if (decision !== 'continue' && decision !== 'stop') {
    throw new InvalidArgumentError('onTaskFailure', `the policy must return "continue" or "stop", got ${JSON.stringify(decision)}`);
  }
  return { ...base, status: 'failed', error: thread.serialize(failure), decision, finishedAt, cause: failure };
}

/** Records an empty batch as executed and skipped. */
async function skipEmptyBatch(thread: PipelineThread, event: BatchEventRecord): Promise<void> {
  const { threadId } = thread;
  const { batchIndex } = event;
  const state = await thread.atomic(
    `record empty batch ${batchIndex} as skipped`,
    async (tx) => {
      const now = thread.now();
      const skipped = await thread.updateState(
        tx,
        batchIndex,
        { status: 'executed', skipped: true, taskCount: 0, executedTasks: 0, failedTasks: 0, executionStartedAt: now, executionCompletedAt: now },
        ['error'],
      );
      await markBatchEventProcessed(tx, thread.namespace, threadId, 'BATCH_PLANNED', batchIndex, now);
      await writeBatchEvent(
        tx,
        thread.namespace,
        { type: 'BATCH_EXECUTED', threadId, batchIndex, totalBatches: event.totalBatches, processed: true, data: { taskCount: 0, executedTasks: 0, failedTasks: 0, status: 'executed', skipped: true } },
        now,
      );
      return skipped;
    },
    { batchIndex },
  );
  thread.stats.skippedBatches++;
  thread.emitState(state);
  thread.emit('pipeline:batch-executed', { batchIndex, status: 'executed', taskCount: 0, executedTasks: 0, failedTasks: 0, skipped: true });
}

/** Checks that a value can be stored as JSON (`undefined` is stored as `null`); the store makes the copy. */
function toJson(value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (value === undefined) return { ok: true, value: null };
  try {
    if (JSON.stringify(value) === undefined) return { ok: false, message: `a ${typeof value} has no JSON form` };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
