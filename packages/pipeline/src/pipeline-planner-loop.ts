import { AbortError, TroupeError, withEventScope } from '@troupe/core';
import { raceAbort } from '@troupe/core/util';
import { writeBatchEvent } from './batch-event-log';
import { PipelineError } from './pipeline-error';
import { batchStateKey, padIndex, PLANNING_KEY, type BatchRecord } from './pipeline-store-layout';
import type { PipelineThread } from './pipeline-thread';
import type { PipelinePlanner, PlanBatchResult, PlannedBatch, PlanningProgress } from './pipeline-types';

/** How tasks get their ids. */
export type TaskIdFunction = (task: unknown, batchIndex: number, taskIndex: number) => string;

/** Default task id: `<batch>-<task>`. */
export const defaultTaskId: TaskIdFunction = (_task, batchIndex, taskIndex) => `${batchIndex}-${taskIndex}`;

/**
 * The planning role (seed §1.2.1 / §2.2.2): plans batch after batch from the
 * stored progress, storing each batch, its state, its `BATCH_PLANNED` event
 * and the new progress in one transaction before announcing it on the bus;
 * after the last batch, `PLANNING_COMPLETED` likewise. Resumes at the first
 * batch not yet stored.
 *
 * @internal
 */
export async function runPlannerLoop(thread: PipelineThread, planner: PipelinePlanner, taskId: TaskIdFunction): Promise<void> {
  const { signal, threadId } = thread;
  let progress = await thread.read('read the planning progress', (store) => thread.readPlanning(store));
  while (!progress.planningCompleted) {
    AbortError.throwIfAborted(signal, `Planning of pipeline thread "${threadId}"`);
    const batchIndex = progress.nextBatchIndex;
    const planningStartedAt = thread.now();
    const planning = { batchIndex, status: 'planning' as const, planningStartedAt };
    await thread.write(`record batch ${batchIndex} as planning`, (store) => store.put(thread.layout.states, batchStateKey(batchIndex), planning), { batchIndex });
    thread.emitState(planning);

    const batch = await planBatch(thread, planner, batchIndex, progress);
    if (batch === null) {
      progress = { nextBatchIndex: batchIndex, totalBatches: batchIndex, planningCompleted: true, completedAt: thread.now() };
      const done = progress;
      await thread.atomic(`record planning as completed after ${batchIndex} batches`, async (tx) => {
        await tx.delete(thread.layout.states, batchStateKey(batchIndex));
        await tx.put(thread.layout.base, PLANNING_KEY, done);
        await writeBatchEvent(tx, thread.namespace, { type: 'PLANNING_COMPLETED', threadId, batchIndex, totalBatches: batchIndex }, thread.now());
      });
      thread.emit('pipeline:planning-completed', { totalBatches: batchIndex });
      return;
    }

    let built: ReturnType<typeof toBatchRecord>;
    try {
      built = toBatchRecord(thread, batch, batchIndex, progress, taskId);
    } catch (error) {
      if (PipelineError.isInstance(error)) await failPlanning(thread, batchIndex, error);
      throw error;
    }
    const { record, last, totalBatches } = built;
    progress = { nextBatchIndex: batchIndex + 1, totalBatches, planningCompleted: last, ...(last ? { completedAt: record.plannedAt } : {}) };
    const next = progress;
    const state = await thread.atomic(
      `record batch ${batchIndex} as planned`,
      async (tx) => {
        await tx.put(thread.layout.batches, padIndex(batchIndex), record);
        const planned = await thread.updateState(tx, batchIndex, { status: 'planned', planningCompletedAt: record.plannedAt, taskCount: record.tasks.length }, ['error']);
        await writeBatchEvent(tx, thread.namespace, { type: 'BATCH_PLANNED', threadId, batchIndex, totalBatches, data: { taskCount: record.tasks.length } }, record.plannedAt);
        await tx.put(thread.layout.base, PLANNING_KEY, next);
        if (last) await writeBatchEvent(tx, thread.namespace, { type: 'PLANNING_COMPLETED', threadId, batchIndex: batchIndex + 1, totalBatches: batchIndex + 1 }, record.plannedAt);
        return planned;
      },
      { batchIndex },
    );
    thread.stats.plannedBatches++;
    thread.emitState(state);
    thread.emit('pipeline:batch-planned', { batchIndex, taskCount: record.tasks.length, totalBatches });
    if (last) thread.emit('pipeline:planning-completed', { totalBatches: batchIndex + 1 });
  }
}

/** Asks the planner for one batch; a failure marks the batch `failed` and fails the run. */
async function planBatch(thread: PipelineThread, planner: PipelinePlanner, batchIndex: number, progress: PlanningProgress): Promise<PlanBatchResult> {
  const { signal, threadId } = thread;
  let result: PlanBatchResult;
  try {
    result = await raceAbort(() => withEventScope({ agentId: 'planner' }, () => planner.planBatch({ batchIndex, threadId, totalBatches: progress.totalBatches ?? undefined, signal })), signal);
  } catch (error) {
    if (signal.aborted) throw new AbortError(`Planning batch ${batchIndex} of pipeline thread "${threadId}" was aborted`, { cause: signal.reason });
    const message = thread.messageOf(error);
    return failPlanning(thread, batchIndex, new PipelineError(`The planner failed on batch ${batchIndex} of pipeline thread "${threadId}": ${message}`, { kind: 'planner', threadId, batchIndex, cause: error }));
  }
  AbortError.throwIfAborted(signal, `Planning of pipeline thread "${threadId}"`);
  const problem = checkPlannedBatch(result, batchIndex, progress);
  if (problem) {
    return failPlanning(thread, batchIndex, new PipelineError(`The planner returned an unusable batch ${batchIndex} for pipeline thread "${threadId}": ${problem}`, { kind: 'planner', threadId, batchIndex }));
  }
  return result;
}

/** Records the failure in the batch's state, then throws it. */
async function failPlanning(thread: PipelineThread, batchIndex: number, error: PipelineError): Promise<never> {
  const state = await thread.write(`record batch ${batchIndex} as failed`, (store) => thread.updateState(store, batchIndex, { status: 'failed', error: thread.serialize(error) }), { batchIndex });
  thread.emitState(state);
  throw error;
}

/** What is wrong with a planner's answer, or undefined. */
function checkPlannedBatch(result: unknown, batchIndex: number, progress: PlanningProgress): string | undefined {
  if (result === null) return undefined;
  if (result === undefined) return 'it returned undefined; return { tasks: [...] }, or null when there is no further batch';
  if (typeof result !== 'object' || !Array.isArray((result as PlannedBatch).tasks)) {
    return `expected { tasks: [...], last?, totalBatches? } or null, got ${describe(result)}`;
  }
  const { last, totalBatches } = result as PlannedBatch;
  if (last !== undefined && typeof last !== 'boolean') return `"last" must be a boolean, got ${describe(last)}`;
  if (totalBatches !== undefined) {
    if (!Number.isInteger(totalBatches) || totalBatches <= batchIndex) {
      return `"totalBatches" must be an integer greater than the batch index ${batchIndex}, got ${describe(totalBatches)}`;
    }
    if (progress.totalBatches !== null && totalBatches !== progress.totalBatches) {
      return `"totalBatches" changed from ${progress.totalBatches} to ${totalBatches}`;
    }
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${JSON.stringify(Object.keys(value))}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Builds the stored batch: ids for each task, JSON-checked. */
function toBatchRecord(
  thread: PipelineThread,
  batch: PlannedBatch,
  batchIndex: number,
  progress: PlanningProgress,
  taskId: TaskIdFunction,
): { record: BatchRecord; last: boolean; totalBatches: number | null } {
  const fail = (problem: string, cause?: unknown): never => {
    throw new PipelineError(`The planner returned an unusable batch ${batchIndex} for pipeline thread "${thread.threadId}": ${problem}`, {
      kind: 'planner',
      threadId: thread.threadId,
      batchIndex,
      ...(cause !== undefined ? { cause } : {}),
    });
  };
  let tasks: BatchRecord['tasks'];
  try {
    tasks = JSON.parse(JSON.stringify(batch.tasks.map((input) => ({ taskId: '', input: input === undefined ? null : input })))) as BatchRecord['tasks'];
  } catch (error) {
    return fail(`its tasks must be JSON-serializable (${thread.messageOf(error)})`, error);
  }
  const seen = new Set<string>();
  tasks.forEach((task, index) => {
    let id: unknown;
    try {
      id = taskId(batch.tasks[index], batchIndex, index);
    } catch (error) {
      if (TroupeError.isInstance(error)) throw error;
      fail(`the taskId option threw for task ${index}: ${thread.messageOf(error)}`, error);
    }
    if (typeof id !== 'string' || id === '') fail(`the taskId option returned ${describe(id)} for task ${index}; expected a non-empty string`);
    if (seen.has(id as string)) fail(`task id "${String(id)}" is used twice`);
    seen.add(id as string);
    task.taskId = id as string;
  });
  let totalBatches = batch.totalBatches ?? progress.totalBatches;
  const last = batch.last === true || (totalBatches !== null && batchIndex + 1 >= totalBatches);
  if (last) totalBatches = batchIndex + 1;
  return { record: { batchIndex, tasks, plannedAt: thread.now() }, last, totalBatches };
}
