import { InvalidArgumentError, type EventBus } from '@troupe/core';
import type { ExecuteTaskContext, PipelineExecutor } from '@troupe/pipeline';
import { z } from 'zod';
import type { QueueClient, SubmitOptions } from './queue-client';
import type { QueueJobHandler } from './queue-job';

/** The default queue of pipeline tasks. */
export const PIPELINE_QUEUE = 'troupe-pipeline';

/** A pipeline task as a job: the task (JSON) and where it sits in its pipeline. */
export const pipelineTaskJobSchema = z
  .object({
    task: z.unknown(),
    batchIndex: z.number().int().nonnegative(),
    taskIndex: z.number().int().nonnegative(),
    taskId: z.string().min(1),
    threadId: z.string().min(1),
    attempt: z.number().int().positive(),
  })
  .strict();

/** A pipeline task as a job (see {@link pipelineTaskJobSchema}). */
export type PipelineTaskJob = z.infer<typeof pipelineTaskJobSchema>;

/** BullMQ job ids may not contain `:`; the id is stable per task attempt, so a re-submit is the same job. */
function pipelineJobId(context: ExecuteTaskContext): string {
  return `${context.threadId}-${context.taskId}-a${context.attempt}`.replace(/[:\s]/g, '_');
}

/**
 * The executor side of a batch pipeline on workers, planning staying at the
 * origin: give it to `createBatchPipeline({ executor })`. Each task becomes a
 * job; its result (or failure) comes back as the task's, its events reach the
 * client's bus, and a stopped run cancels its jobs. A task's job id is stable
 * per attempt, so an origin that restarts and resumes waits for the same job
 * instead of running the task again.
 *
 * @example
 * ```ts
 * const pipeline = createBatchPipeline({
 *   planner: ({ batchIndex }) => ({ tasks: files.slice(batchIndex * 10, batchIndex * 10 + 10), last: batchIndex === 9 }),
 *   executor: createQueuedPipelineExecutor({ client }),
 *   store, threadId: 'tests-pass', mode: 'concurrent', batchConcurrency: 8,
 * });
 * ```
 */
export function createQueuedPipelineExecutor<TTask = unknown, TResult = unknown>(options: {
  client: QueueClient;
  /** Default `troupe-pipeline`. */
  queue?: string;
  /** Retries and backoff of each task's job. */
  submit?: Omit<SubmitOptions, 'jobId' | 'signal'>;
}): PipelineExecutor<TTask, TResult> {
  if (!options?.client) throw new InvalidArgumentError('client', 'expected a QueueClient');
  const queue = options.queue ?? PIPELINE_QUEUE;
  return {
    async executeTask(task, context) {
      const payload: PipelineTaskJob = {
        task,
        batchIndex: context.batchIndex,
        taskIndex: context.taskIndex,
        taskId: context.taskId,
        threadId: context.threadId,
        attempt: context.attempt,
      };
      const job = await options.client.submit<TResult>(queue, 'pipeline-task', payload, { ...options.submit, jobId: pipelineJobId(context), signal: context.signal });
      return job.result;
    },
  };
}

/** What a worker's pipeline executor factory gets. */
export interface PipelineTaskEnvironment {
  /** Events here reach the origin's bus. */
  eventBus: EventBus;
  jobId: string;
  /** The job's attempt on the queue (1 first; a worker crash or failure retries it). */
  jobAttempt: number;
}

/**
 * The worker side of pipeline tasks: runs each task with the executor the
 * worker builds (its agents, its keys).
 *
 * @example
 * ```ts
 * createQueueWorker({ connection, handlers: { [PIPELINE_QUEUE]: createPipelineTaskJobHandler({ createExecutor: () => executorFromAgent(agent) }) } });
 * ```
 */
export function createPipelineTaskJobHandler<TTask = unknown, TResult = unknown>(options: {
  createExecutor(environment: PipelineTaskEnvironment): PipelineExecutor<TTask, TResult> | Promise<PipelineExecutor<TTask, TResult>>;
}): QueueJobHandler<PipelineTaskJob, TResult> {
  if (typeof options?.createExecutor !== 'function') throw new InvalidArgumentError('createExecutor', 'expected a function that builds the task executor');
  return {
    kind: 'pipeline-task',
    parse: (payload) => pipelineTaskJobSchema.parse(payload),
    async run(payload, context) {
      const executor = await options.createExecutor({ eventBus: context.eventBus, jobId: context.jobId, jobAttempt: context.attempt });
      const { task, ...position } = payload;
      return executor.executeTask(task as TTask, { ...position, signal: context.signal });
    },
  };
}
