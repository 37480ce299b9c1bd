import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, EventBus, InvalidArgumentError, MessageStore, type Store } from '@troupe/core';
import { createLooperStateStore, type Looper, type LooperRunOutcome, type LooperStateStore } from '@troupe/looper';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import type { QueueJobContext, QueueJobHandler } from './queue-job';

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
  })
  .strict();

/** A Looper run as a job (see {@link looperJobSpecSchema}). */
export type LooperJobSpec = z.infer<typeof looperJobSpecSchema>;

/** A Looper job's result: how its run ended. */
export interface LooperJobResult {
  runId: string;
  outcome: LooperRunOutcome;
  reason: string;
  iterations: number;
  /** The workspace folder on the worker. */
  workspacePath: string;
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
}

function run(command: string, args: string[], cwd: string | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], signal, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done() : fail(new Error(`${command} ${args[0]} exited with ${code}: ${stderr.trim()}`))));
  });
}

/** The workspace folder for a job: checks a path, or clones the repository once (a retry reuses the clone). */
async function prepareWorkspace(spec: LooperJobSpec, jobId: string, workRoot: string, signal: AbortSignal): Promise<string> {
  const workspace = spec.workspace;
  if ('path' in workspace) {
    const path = resolve(workspace.path);
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new UnrecoverableError(`workspace ${path} is not a folder on worker`);
    return path;
  }
  const target = join(workRoot, jobId.replace(/[^\w.-]/g, '_'));
  if (existsSync(join(target, '.git'))) return target;
  mkdirSync(workRoot, { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  await run('git', ['clone', '--quiet', ...(workspace.ref ? ['--branch', workspace.ref] : []), '--', workspace.gitUrl, partial], undefined, signal);
  renameSync(partial, target);
  return target;
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
  const workRoot = options.workRoot ?? join(tmpdir(), 'troupe-worker');
  return {
    kind: 'looper',
    parse(payload) {
      const parsed = looperJobSpecSchema.safeParse(payload);
      if (!parsed.success) throw ConfigError.fromZod('Looper job', parsed.error);
      return parsed.data;
    },
    async run(spec, context) {
      return runLooperJob(spec, context, options.createLooper, workRoot);
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
  workRoot: string,
): Promise<LooperJobResult> {
  const workspacePath = await prepareWorkspace(spec, context.jobId, workRoot, context.signal);
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
      if (!reply.ok) throw new UnrecoverableError(reply.text);
    }
    await looper.whenIdle();
    await looper.flush();
    if (context.signal.aborted) throw context.signal.reason;
    const last = looper.getStatus().lastRun;
    if (!last) throw new Error('the Looper ended without a run result');
    return { runId: last.runId, outcome: last.outcome, reason: last.reason, iterations: last.iterations, workspacePath };
  } finally {
    offCommand();
    context.signal.removeEventListener('abort', stopNow);
    await looper.dispose();
  }
}
