// The origin side of evals on the queue: `runEval({ runTrial: createQueuedEvalTrialRunner(client) })` sends each
// pending trial to the workers as an eval-trial job (eval-trial-job.ts) and gets its record back; `runEval` keeps
// records in its store, resumes and reports as it does for trials run in-process.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { AbortError, InvalidArgumentError, TroupeError } from '@troupe/core';
import { evalTrialRecordSchema, runEvalTrial, type EvalTask, type EvalTrialInput, type EvalTrialRecord, type EvalTrialRunner } from '@troupe/eval';
import { runGit } from '@troupe/worktree';
import type { QueueClient, SubmitOptions } from './queue-client';
import { EVAL_QUEUE, submitEvalTrial, type EvalTrialJob } from './eval-trial-job';

/** Options of {@link createQueuedEvalTrialRunner}. */
export interface QueuedEvalTrialRunnerOptions {
  /** The queue the workers take eval trials from. Default {@link EVAL_QUEUE}. */
  queue?: string;
  /** Attempts per trial, the first one included (a worker that dies mid-trial is one). Default: the client's `maxAttempts`. */
  maxAttempts?: SubmitOptions['maxAttempts'];
  /**
   * Largest starting commit (git bundle) and hidden tests a job carries, in bytes: jobs live in Redis. A larger task's
   * trials are recorded as `error` (its setup failed), like a task whose starting files could not be set up. Default 32 MiB.
   */
  maxTaskBytes?: number;
}

const DEFAULT_MAX_TASK_BYTES = 32 * 1024 * 1024;

/** A task as it travels: its starting commit as a bundle and its hidden tests' contents (made once per task and commit). */
interface ShippedTask {
  bundle: string;
  base: string;
  hidden: EvalTrialJob['hidden'];
}

/** The starting commit `base` of `repo` (default its `HEAD`) as a git bundle whose `main` is that commit; nothing in `repo` changes. */
async function bundleCommit(repo: string, base: string | undefined, signal: AbortSignal): Promise<{ bundle: Buffer; base: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-eval-bundle-'));
  try {
    await runGit(['init', '--quiet', '--bare', dir], { cwd: dir, signal });
    await runGit(['fetch', '--quiet', '--no-tags', '--', repo, base ?? 'HEAD'], { cwd: dir, signal });
    const commit = (await runGit(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], { cwd: dir, signal })).stdout.trim();
    await runGit(['update-ref', 'refs/heads/main', commit], { cwd: dir, signal });
    await runGit(['bundle', 'create', '--quiet', join(dir, 'task.bundle'), 'main'], { cwd: dir, signal });
    return { bundle: await readFile(join(dir, 'task.bundle')), base: commit };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every file under `dir` (symlinks followed), as workspace paths with `/`. */
async function filesUnder(dir: string, root = dir): Promise<EvalTrialJob['hidden']> {
  const files: EvalTrialJob['hidden'] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const info = await stat(path);
    if (info.isDirectory()) files.push(...(await filesUnder(path, root)));
    else if (info.isFile()) files.push({ path: relative(root, path).split(sep).join('/'), content: (await readFile(path)).toString('base64'), ...((info.mode & 0o111) !== 0 ? { executable: true } : {}) });
  }
  return files;
}

async function shipTask(task: EvalTask, repo: string, base: string | undefined, maxBytes: number, signal: AbortSignal): Promise<ShippedTask> {
  const bundled = await bundleCommit(repo, base, signal);
  const hidden = task.hiddenDir ? await filesUnder(task.hiddenDir) : [];
  const bytes = bundled.bundle.length + hidden.reduce((sum, file) => sum + Math.ceil((file.content.length * 3) / 4), 0);
  if (bytes > maxBytes) throw new InvalidArgumentError('maxTaskBytes', `task "${task.id}" needs ${bytes} bytes in each job (starting commit and hidden tests), more than the limit of ${maxBytes}`);
  return { bundle: bundled.bundle.toString('base64'), base: bundled.base, hidden };
}

/**
 * Runs `runEval`'s trials on queue workers (`createEvalTrialJobHandler`): each pending trial becomes one job carrying
 * the task (its starting commit as a git bundle, its hidden tests for grading), the agent's id (and its `query()`
 * name and `options.model` when the agent is a name), the mode's name and the trial number. Other agent options
 * (env, MCP servers, system prompt) do not travel: give the worker an agent of the same id for those. The worker's record comes back and `runEval`
 * stores it, so resume, scores and reports are the same as in-process. Set `runEval`'s `concurrency` to how many
 * trials may be queued at once (e.g. all of them): the workers' own concurrency decides how many run.
 *
 * A trial whose job fails for good (its attempts used up, or refused by the worker: unknown agent or mode) is
 * recorded as `error` with the reason, as a trial whose agent could not start is in-process. Aborting `runEval`'s
 * signal cancels the queued and running jobs.
 *
 * @example
 * ```ts
 * const client = createQueueClient({ connection: 'redis://127.0.0.1:6379' });
 * const run = await runEval({ suite, agents: [{ id: 'claude', agent: 'claude' }], trials: 3, concurrency: 100, runTrial: createQueuedEvalTrialRunner(client) });
 * await client.close();
 * ```
 */
export function createQueuedEvalTrialRunner(client: QueueClient, options: QueuedEvalTrialRunnerOptions = {}): EvalTrialRunner {
  const maxTaskBytes = options.maxTaskBytes ?? DEFAULT_MAX_TASK_BYTES;
  if (!(Number.isSafeInteger(maxTaskBytes) && maxTaskBytes > 0)) throw new InvalidArgumentError('maxTaskBytes', `expected a positive integer, got ${String(options.maxTaskBytes)}`);
  const shipped = new Map<string, Promise<ShippedTask | Error>>();
  const shipOnce = (input: EvalTrialInput & { repo: { repo: string; base: string | undefined } }) => {
    const id = `${input.task.id}\0${input.repo.repo}\0${input.repo.base ?? ''}`;
    let found = shipped.get(id);
    if (!found) {
      found = shipTask(input.task, input.repo.repo, input.repo.base, maxTaskBytes, input.signal).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      shipped.set(id, found);
    }
    return found;
  };

  return async (input) => {
    const { key, task, agent, signal } = input;
    // A task that could not be set up here is recorded here, as in-process.
    if (input.repo instanceof Error) return await runEvalTrial(input);
    const ship = await shipOnce({ ...input, repo: input.repo });
    AbortError.throwIfAborted(signal, 'The eval trial');
    if (ship instanceof Error) return await runEvalTrial({ ...input, repo: new Error(`the task could not be sent to the workers: ${ship.message}`, { cause: ship }) });
    const job: EvalTrialJob = {
      trial: { task: key.task, agent: key.agent, mode: key.mode, trial: key.trial },
      ...(typeof agent.agent === 'string' ? { agent: agent.agent, ...(agent.options?.model ? { model: agent.options.model } : {}) } : {}),
      task: { prompt: task.prompt, ...(task.setupCommand ? { setupCommand: task.setupCommand } : {}), gradingCommand: task.gradingCommand, timeLimitMs: task.timeLimitMs, tags: task.tags },
      bundle: ship.bundle,
      base: ship.base,
      hidden: ship.hidden,
    };
    const queued = await submitEvalTrial(client, job, { signal, ...(options.queue ? { queue: options.queue } : {}), ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}) });
    let result: EvalTrialRecord;
    try {
      result = await queued.result;
    } catch (error) {
      // Canceled (by this eval's signal, or someone canceling the job): no outcome, the trial runs again on resume.
      if (signal.aborted) throw new AbortError('The eval trial was aborted', { cause: error });
      if (TroupeError.hasCode(error, 'ABORTED')) throw error;
      return await runEvalTrial({ ...input, repo: new Error(`the trial's job failed on the queue: ${error instanceof Error ? error.message : String(error)}`, { cause: error }) });
    }
    const parsed = evalTrialRecordSchema.safeParse(result);
    if (!parsed.success || parsed.data.task !== key.task || parsed.data.agent !== key.agent || parsed.data.mode !== key.mode || parsed.data.trial !== key.trial) {
      return await runEvalTrial({ ...input, repo: new Error(`job ${queued.id} returned something other than this trial's record`) });
    }
    return parsed.data;
  };
}
