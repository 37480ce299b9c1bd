// The attempt runner `bestOfN({ runner })` takes to run its attempts on queue workers: each turn is a best-of-N
// attempt job, its change brought back into the attempt's workspace at the origin. Typed here by shape, so neither
// package depends on the other (`@troupe/best-of-n` knows no queue, this package no best-of-N run).
import { AgentError, InvalidArgumentError } from '@troupe/core';
import { applyPatchToFolder, GitCommandError } from '@troupe/worktree';
import { submitBestOfNAttempt, type BestOfNAttemptJob, type BestOfNAttemptJobResult } from './best-of-n-attempt-job';
import type { QueueClient, SubmitOptions } from './queue-client';
import type { JobWorkspaceResult } from './queue-job-workspace';

/** Options of {@link createQueuedBestOfNRunner}. */
export interface QueuedBestOfNRunnerOptions {
  /**
   * Where the workers get the repository: `{ gitUrl }` (each worker clones or fetches it) or `{ path }` (a folder
   * the workers can read). It must hold the origin's `HEAD` commit: the attempts start from it.
   */
  workspace: BestOfNAttemptJob['workspace'];
  /** The queue the workers take attempts from. Default `BEST_OF_N_QUEUE`. */
  queue?: string;
  /** Tries per job (a worker that dies mid-turn), backoff between them. Default: the client's. */
  maxAttempts?: SubmitOptions['maxAttempts'];
  backoff?: SubmitOptions['backoff'];
}

/** The attempt `bestOfN` asks for (`BestOfNAttemptTurnRequest` of `@troupe/best-of-n`). */
export interface QueuedBestOfNTurnRequest {
  runId: string;
  attemptId: string;
  agent: string;
  task: string;
  /** The attempt's workspace at the origin: its folder and the commit it was made from. */
  workspace: { path: string; baseCommit: string };
  timeoutMs: number | undefined;
}

/** A `BestOfNAttemptRunner` of `@troupe/best-of-n` that runs each turn on a queue worker. */
export interface QueuedBestOfNRunner {
  runTurn(request: QueuedBestOfNTurnRequest, options: { signal: AbortSignal }): Promise<{ status: 'completed' | 'error'; text: string; error?: unknown }>;
}

/** The job id of an attempt: one per attempt of a run (a second submit of it is the same job, never a second turn). */
function attemptJobId(runId: string, attemptId: string): string {
  return `${runId}-${attemptId.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * Runs the attempts of `bestOfN({ runner })` on queue workers: each attempt's turn is a best-of-N attempt job
 * ({@link submitBestOfNAttempt}) started from the attempt's base commit, taken by any worker with
 * `createBestOfNAttemptJobHandler`; its change comes back as a patch and is applied in the attempt's workspace at
 * the origin, where `bestOfN` commits, tests and selects as for a local attempt. Give the client the run's bus
 * (`createQueueClient({ eventBus: bus })` and `bestOfN({ bus })`): the workers' `agent:*` events come back there,
 * inside the attempt's event scope, so the ledger charges their usage to the attempt and the run and the budget
 * counts it. A stop (first pass, budget, `signal`) cancels the attempt's job: queued, it never runs; running, the
 * worker aborts its turn and kills its processes. A turn that had already ended on its worker is not thrown away: its
 * change comes back and is tested, as a local turn that ended before a budget stop.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const client = createQueueClient({ connection: 'redis://127.0.0.1:6379', eventBus: bus });
 * const { winner } = await bestOfN({
 *   task: 'Fix the date parser',
 *   repo: process.cwd(),
 *   candidates: [{ agent: 'claude', n: 2 }, { agent: 'codex', n: 2 }],
 *   select: 'tests',
 *   testCommand: ['npm', 'test'],
 *   bus,
 *   runner: createQueuedBestOfNRunner(client, { workspace: { gitUrl: 'https://github.com/acme/app.git' } }),
 * });
 * ```
 */
export function createQueuedBestOfNRunner(client: QueueClient, options: QueuedBestOfNRunnerOptions): QueuedBestOfNRunner {
  if (client === null || typeof client !== 'object' || typeof client.submit !== 'function') throw new InvalidArgumentError('client', 'expected a queue client (createQueueClient)');
  if (options === null || typeof options !== 'object' || options.workspace === null || typeof options.workspace !== 'object') {
    throw new InvalidArgumentError('options.workspace', 'expected where the workers get the repository: { gitUrl } or { path }');
  }
  return {
    async runTurn(request, { signal }) {
      const job = await submitBestOfNAttempt(
        client,
        {
          runId: request.runId,
          attemptId: request.attemptId,
          agent: request.agent,
          task: request.task,
          workspace: options.workspace,
          base: request.workspace.baseCommit,
          changeFormat: 'patch',
          ...(request.timeoutMs !== undefined ? { timeoutMs: Math.ceil(request.timeoutMs) } : {}),
        },
        {
          jobId: attemptJobId(request.runId, request.attemptId),
          ...(options.queue !== undefined ? { queue: options.queue } : {}),
          ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
          ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
        },
      );
      // A stop cancels the job while its turn runs. Once the turn has ended on the worker its work is paid for and
      // comes back to be tested, as a local turn that ended before a budget stop. The budget's stop fires while the
      // turn's own `agent:turn-completed` (its usage) is published, before the job's listeners hear it: decide after it.
      let turnEnded = false;
      const off = job.onEvent((event) => {
        if (event.type === 'agent:turn-completed' && (event.payload as { roleId?: string }).roleId === request.attemptId) turnEnded = true;
      });
      const onAbort = () => queueMicrotask(() => void (turnEnded ? undefined : job.cancel().catch(() => undefined)));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      let result: BestOfNAttemptJobResult;
      try {
        result = await job.result;
      } finally {
        off();
        signal.removeEventListener('abort', onAbort);
      }
      // Not canceled by the stop: the turn's work came back, it is brought in (a quick local git call) to be tested.
      await applyPatchInFolder(result.workspace, request.workspace);
      if (result.status === 'completed') return { status: 'completed', text: result.text };
      const message = result.error?.message ?? 'its turn failed';
      return { status: 'error', text: result.text, error: new AgentError(`attempt ${request.attemptId} on a worker: ${message}`, { adapterId: request.agent }) };
    },
  };
}

/** Applies a job's patch to the files of a folder of the origin (the attempt's workspace, made from the same base). */
async function applyPatchInFolder(result: JobWorkspaceResult, workspace: { path: string; baseCommit: string }): Promise<void> {
  if (result.baseCommit !== workspace.baseCommit) {
    throw new InvalidArgumentError('result', `the worker started from ${result.baseCommit}, the workspace from ${workspace.baseCommit}: the worker's copy lacks the origin's commit (push it)`);
  }
  if (!result.changed) return;
  if (typeof result.patch !== 'string') throw new InvalidArgumentError('result', `job ${result.jobId} sent its change as a ${result.format}, not the patch asked for`);
  try {
    await applyPatchToFolder(workspace.path, result.patch);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new InvalidArgumentError('result', `the change of job ${result.jobId} does not apply in ${workspace.path}: ${error.stderr}`, { cause: error });
  }
}
