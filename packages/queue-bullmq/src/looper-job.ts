import { ConfigError, EventBus, InvalidArgumentError, MessageStore, type Store } from '@troupe/core';
import { createLooperStateStore, type Looper, type LooperRunOutcome, type LooperStateStore } from '@troupe/looper';
import { z } from 'zod';
import type { QueueJobContext, QueueJobHandler } from './queue-job';
import { QueueError } from './queue-error';
import type { JobWorkspaceResult } from './queue-job-workspace';
import { jobBaseSchema, jobRepositoryPolicy, looperWorkspaceSchema, runInJobWorktree, withJobRepository, type JobRepositoryOptions, type WorkspacePolicy } from './queue-job-repository';

/** The default queue of Looper runs. */
export const LOOPER_QUEUE = 'troupe-looper';

/**
 * A Looper run as a job: plain names and numbers only (no env, no keys).
 * `coder` / `reviewer` name agents of the **worker's** registry or adapters
 * (`claude`, `codex`, `gemini`, `tests`); `judge` is `rules` or a model name
 * the worker resolves with its own keys.
 */
export const looperJobSpecSchema = z
  .object({
    task: z.string().min(1),
    workspace: looperWorkspaceSchema,
    coder: z.string().min(1).optional(),
    reviewer: z.string().min(1).optional(),
    judge: z.string().min(1).optional(),
    maxIterations: z.number().int().positive().optional(),
    stepTimeoutMs: z.number().int().positive().optional(),
    /**
     * `'worktree'`: the run works in a workspace (its own git worktree and branch) of the worker's copy, and the
     * job's result carries its branch, diffstat and change (`workspace`), for `applyJobResult` at the origin.
     */
    isolation: z.literal('worktree').optional(),
    /** With `isolation`: the commit to start from (the origin's `HEAD`); it must be in the worker's copy. Default: the copy's `HEAD`. */
    base: jobBaseSchema.optional(),
    /** With `isolation`: the change comes back as a git `bundle` (default, its commits) or a `patch`. */
    changeFormat: z.enum(['bundle', 'patch']).optional(),
  })
  .strict()
  .refine((spec) => spec.isolation !== undefined || (spec.base === undefined && spec.changeFormat === undefined), {
    message: 'base and changeFormat need isolation: "worktree"',
    path: ['isolation'],
  });

/** A Looper run as a job (see {@link looperJobSpecSchema}). */
export type LooperJobSpec = z.infer<typeof looperJobSpecSchema>;

/** A Looper job's result: how its run ended. */
export interface LooperJobResult {
  runId: string;
  outcome: LooperRunOutcome;
  reason: string;
  iterations: number;
  /** The workspace folder on the worker (with `isolation`, the job's workspace: removed once the job ended). */
  workspacePath: string;
  /** With `isolation: 'worktree'`: the job's branch, diffstat and change, for `applyJobResult` at the origin. */
  workspace?: JobWorkspaceResult;
}

/** What a worker's Looper factory gets. */
export interface LooperJobEnvironment {
  spec: LooperJobSpec;
  /** The workspace folder on this worker (the path, or the clone). */
  workspacePath: string;
  /** Events here reach the origin's bus, in order: give it to the Looper (and its agent manager). */
  eventBus: EventBus;
  /** `[AUTO]` messages: a store on `eventBus`. */
  messages: MessageStore;
  /** The job's checkpoints (in Redis): give it to the Looper so a retry resumes. */
  stateStore: LooperStateStore;
  jobId: string;
  /** 1 for the first attempt; a retry resumes from the checkpoint. */
  attempt: number;
  signal: AbortSignal;
}

/** Options for {@link createLooperJobHandler}. */
export interface LooperJobHandlerOptions extends JobRepositoryOptions {
  /**
   * Builds the Looper for a job on this worker: its agents come from the
   * worker's own registry and env (API keys never travel with the job). Pass
   * `eventBus`, `messages`, `stateStore` and `workspacePath` through.
   */
  createLooper(environment: LooperJobEnvironment): Looper | Promise<Looper>;
}

/**
 * The worker side of Looper jobs: prepares the workspace, builds the Looper
 * with the worker's factory on a Redis checkpoint store, and runs the whole
 * Looper there. A retried job (its worker died) resumes from the last
 * checkpoint; one whose run had already ended returns that result without
 * running again. Origin commands (`stop`, `add_pending`, `status`) reach the
 * Looper; a cancel stops it at once, killing its agent CLI.
 *
 * @example
 * ```ts
 * createQueueWorker({
 *   connection: 'redis://127.0.0.1:6379',
 *   handlers: {
 *     [LOOPER_QUEUE]: createLooperJobHandler({
 *       createLooper: ({ eventBus, messages, stateStore, workspacePath }) =>
 *         new Looper({ coder: { configId: 'claude' }, review: { configId: 'codex' }, eventBus, messages, stateStore, workspacePath }),
 *     }),
 *   },
 * });
 * ```
 */
export function createLooperJobHandler(options: LooperJobHandlerOptions): QueueJobHandler<LooperJobSpec, LooperJobResult> {
  if (typeof options?.createLooper !== 'function') throw new InvalidArgumentError('createLooper', 'expected a function that builds the Looper for a job');
  const { policy, start } = jobRepositoryPolicy(options);
  return {
    kind: 'looper',
    start,
    parse(payload) {
      const parsed = looperJobSpecSchema.safeParse(payload);
      if (!parsed.success) throw ConfigError.fromZod('Looper job', parsed.error);
      return parsed.data;
    },
    async run(spec, context) {
      return runLooperJob(spec, context, options.createLooper, policy);
    },
  };
}

/** The namespace of a job's Looper checkpoints. */
export function looperJobNamespace(queue: string, jobId: string): string[] {
  return ['queue', queue, jobId];
}

/** The checkpoint store of a Looper job (also readable at the origin, e.g. for `status`). */
export function looperJobStateStore(store: Store, queue: string, jobId: string): LooperStateStore {
  return createLooperStateStore(store, { namespace: looperJobNamespace(queue, jobId) });
}

async function runLooperJob(
  spec: LooperJobSpec,
  context: QueueJobContext,
  createLooper: LooperJobHandlerOptions['createLooper'],
  policy: WorkspacePolicy,
): Promise<LooperJobResult> {
  // A worker killed mid-job (kill -9) leaves its agent CLIs running: the retry stops them before it starts its own.
  return await withJobRepository(spec.workspace, context, policy, looperJobNamespace(context.queue, context.jobId), async (workspacePath) => {
    if (spec.isolation !== 'worktree') return await runLooper(spec, context, createLooper, workspacePath);
    const { value, workspace } = await runInJobWorktree(workspacePath, spec, context, policy, (path) => runLooper(spec, context, createLooper, path));
    return { ...value, workspace };
  });
}

async function runLooper(spec: LooperJobSpec, context: QueueJobContext, createLooper: LooperJobHandlerOptions['createLooper'], workspacePath: string): Promise<LooperJobResult> {
  const stateStore = looperJobStateStore(context.store, context.queue, context.jobId);
  const messages = new MessageStore(context.eventBus);
  const looper = await createLooper({ spec, workspacePath, eventBus: context.eventBus, messages, stateStore, jobId: context.jobId, attempt: context.attempt, signal: context.signal });
  const stopNow = () => looper.command({ type: 'stop', now: true });
  context.signal.addEventListener('abort', stopNow, { once: true });
  const offCommand = context.onCommand((input) => looper.command(input));
  try {
    const resumed = await looper.resume();
    const saved = looper.getStatus();
    if (!resumed && saved.lastRun === null) {
      const reply = looper.command({ type: 'start', task: spec.task }, { workspacePath });
      if (!reply.ok) throw new QueueError('QUEUE_LOOPER_REFUSED', { reply: reply.text });
    }
    await looper.whenIdle();
    await looper.flush();
    if (context.signal.aborted) throw context.signal.reason;
    const last = looper.getStatus().lastRun;
    if (!last) throw new QueueError('QUEUE_LOOPER_NO_RESULT', {});
    return { runId: last.runId, outcome: last.outcome, reason: last.reason, iterations: last.iterations, workspacePath };
  } finally {
    offCommand();
    context.signal.removeEventListener('abort', stopNow);
    await looper.dispose();
  }
}
