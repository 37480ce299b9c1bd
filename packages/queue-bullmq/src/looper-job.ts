import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, EventBus, InvalidArgumentError, MessageStore, type Store } from '@troupe/core';
import { createLooperStateStore, type Looper, type LooperRunOutcome, type LooperStateStore } from '@troupe/looper';
import { z } from 'zod';
import { cloneJobRepository } from './queue-git-clone';
import type { QueueJobContext, QueueJobHandler } from './queue-job';
import { jobFolderName } from './queue-job-folder';
import { recordJobProcesses, stopLeftoverJobProcesses } from './queue-job-processes';
import { QueueError } from './queue-error';
import { checkInsideRoots } from './queue-workspace-roots';
import { checkJobRepository, runJobInWorkspace, type JobWorkspaceResult } from './queue-job-workspace';
import { collectJobWorkspaces, logJobWorkspaceGc, repositoriesUnder, type JobWorkspaceGcReport } from './queue-workspace-gc';

/** The default queue of Looper runs. */
export const LOOPER_QUEUE = 'troupe-looper';

/** Where a Looper job works: a folder every worker can reach, or a git repository each worker clones. */
export const looperWorkspaceSchema = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z.object({ gitUrl: z.string().min(1), ref: z.string().min(1).optional() }).strict(),
]);

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
    base: z
      .string()
      .min(1)
      .refine((value) => !value.startsWith('-'), 'must not start with "-"')
      .optional(),
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
export interface LooperJobHandlerOptions {
  /**
   * Builds the Looper for a job on this worker: its agents come from the
   * worker's own registry and env (API keys never travel with the job). Pass
   * `eventBus`, `messages`, `stateStore` and `workspacePath` through.
   */
  createLooper(environment: LooperJobEnvironment): Looper | Promise<Looper>;
  /** Where git workspaces are cloned. Default `<tmpdir>/troupe-worker`. */
  workRoot?: string;
  /**
   * The folders jobs may work in: a job's `path` workspace (symlinks
   * resolved) and a local `gitUrl` must be inside one of them, or the job
   * fails without retry and its Coder never starts. A job names folders on
   * the worker, which runs its agents there with the worker's keys. Default:
   * `[workRoot]`.
   */
  allowedRoots?: readonly string[];
  /**
   * Accept `file://` URLs and plain paths as `gitUrl` (inside `allowedRoots`).
   * Default false: only `https://`, `ssh://` and `user@host:path`.
   */
  allowLocalGitUrls?: boolean;
  /** Time limit of a job's `git clone`, in ms; its `git` and ssh are then killed. Default 600 000 (10 min). */
  cloneTimeoutMs?: number;
  /**
   * Largest change (bundle or patch, in bytes) an `isolation: 'worktree'` job sends back in its result, which
   * BullMQ keeps in Redis. A larger one fails the job without retry; its branch stays on the worker. Default 8 MiB.
   */
  maxResultBytes?: number;
  /**
   * Told what the start-up cleanup of job workspaces did in each repository copy (leftovers of a killed worker:
   * removed when empty, kept when they hold work). Default: a line on stderr per kept workspace.
   */
  onWorkspaceGc?: (report: JobWorkspaceGcReport) => void;
}

/** The worker's rules for the workspaces jobs name. */
interface WorkspacePolicy {
  workRoot: string;
  allowedRoots: readonly string[];
  allowLocalGitUrls: boolean;
  cloneTimeoutMs: number;
  maxResultBytes: number | undefined;
}

/**
 * The workspace folder for a job: checks a path is an allowed folder, or
 * clones the repository once into a folder named from the job id (a retry
 * reuses the clone).
 */
async function prepareWorkspace(spec: LooperJobSpec, jobId: string, policy: WorkspacePolicy, signal: AbortSignal, onProcess: (processId: string) => void): Promise<string> {
  const workspace = spec.workspace;
  if ('path' in workspace) return await checkInsideRoots(workspace.path, policy.allowedRoots, 'workspace');
  mkdirSync(policy.workRoot, { recursive: true });
  const target = join(policy.workRoot, jobFolderName(jobId));
  if (existsSync(join(target, '.git'))) return await checkInsideRoots(target, [policy.workRoot], 'workspace');
  await cloneJobRepository({
    gitUrl: workspace.gitUrl,
    ref: workspace.ref,
    target,
    allowLocal: policy.allowLocalGitUrls,
    allowedRoots: policy.allowedRoots,
    timeoutMs: policy.cloneTimeoutMs,
    signal,
    onProcess,
  });
  return await checkInsideRoots(target, [policy.workRoot], 'workspace');
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
  const workRoot = resolve(options.workRoot ?? join(tmpdir(), 'troupe-worker'));
  if (options.allowedRoots !== undefined && (!Array.isArray(options.allowedRoots) || options.allowedRoots.some((root) => typeof root !== 'string' || root === ''))) {
    throw new InvalidArgumentError('allowedRoots', 'expected an array of folder paths');
  }
  const cloneTimeoutMs = options.cloneTimeoutMs ?? 600_000;
  if (!(Number.isInteger(cloneTimeoutMs) && cloneTimeoutMs > 0)) throw new InvalidArgumentError('cloneTimeoutMs', `expected a positive integer, got ${String(options.cloneTimeoutMs)}`);
  const maxResultBytes = options.maxResultBytes;
  if (maxResultBytes !== undefined && !(Number.isInteger(maxResultBytes) && maxResultBytes > 0)) throw new InvalidArgumentError('maxResultBytes', `expected a positive integer, got ${String(maxResultBytes)}`);
  const onReport = options.onWorkspaceGc ?? logJobWorkspaceGc;
  const policy: WorkspacePolicy = {
    workRoot,
    allowedRoots: (options.allowedRoots ?? [workRoot]).map((root) => resolve(root)),
    allowLocalGitUrls: options.allowLocalGitUrls === true,
    cloneTimeoutMs,
    maxResultBytes,
  };
  return {
    kind: 'looper',
    // The job clones in the work folder are this machine's own. A job's `path` repository may be shared with workers
    // on other machines, whose workspaces' processes cannot be checked from here: there the retry of a job cleans up
    // after its own earlier attempts (see runJobInWorkspace).
    async start({ signal }) {
      await collectJobWorkspaces(repositoriesUnder(workRoot), onReport, signal);
    },
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
  // A worker killed mid-job (kill -9) leaves its agent CLIs running: stop them before this attempt starts its own.
  const processes = [...looperJobNamespace(context.queue, context.jobId), 'processes'];
  await stopLeftoverJobProcesses(context.store, processes);
  const recorder = recordJobProcesses(context.store, processes);
  try {
    const workspacePath = await prepareWorkspace(spec, context.jobId, policy, context.signal, (processId) => recorder.claimProcess(processId));
    recorder.claimFolder(workspacePath);
    if (spec.isolation !== 'worktree') return await runLooper(spec, context, createLooper, workspacePath);
    // Refused before any agent starts: a folder that is not a repository, a base the copy lacks.
    await checkJobRepository(workspacePath, context.signal);
    const { value, workspace } = await runJobInWorkspace(
      { repo: workspacePath, jobId: context.jobId, base: spec.base, format: spec.changeFormat, maxResultBytes: policy.maxResultBytes, bus: context.eventBus, signal: context.signal },
      (path) => runLooper(spec, context, createLooper, path),
    );
    return { ...value, workspace };
  } finally {
    await recorder.stop();
  }
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
