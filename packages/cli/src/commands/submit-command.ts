import { resolve } from 'node:path';
import { EventBus, TroupeError } from '@troupe/core';
import type { LooperCommand } from '@troupe/looper';
import {
  applyJobResult,
  createQueueClient,
  gitUrlKind,
  LOOPER_QUEUE,
  looperJobStateStore,
  QueueJobError,
  readOriginCheckout,
  redactUrl,
  submitLooperJob,
  type JobWorkspaceResult,
  type LooperJobSpec,
  type QueueClient,
} from '@troupe/queue-bullmq';
import { SUBMIT_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs, positiveIntegerOption } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES, exitCodeOfRun } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { redisOption } from '../args/queue-options';
import { queueFailureText } from '../i18n/cli-queue-failures';

type Options = Record<string, string | boolean | undefined>;

/** The Looper job `troupe submit` / `troupe looper --queue` sends: names and numbers only, no secret. */
export function looperJobSpecFromOptions(options: Options, task: string, io: CliIo, command: string): LooperJobSpec {
  const m = catalogueOf(io).cli;
  const git = typeof options.git === 'string' ? options.git : undefined;
  if (git !== undefined && typeof options.workspace === 'string') throw new CliUsageError(m.queue.workspaceOrGit, { command });
  // Workers refuse any other transport: say so now rather than after the job is queued (whether local URLs are allowed is the worker's call).
  if (git !== undefined) {
    try {
      gitUrlKind(git, true);
    } catch {
      throw new CliUsageError(m.queue.gitUrlRefused(redactUrl(git)), { command });
    }
  }
  const maxIterations = positiveIntegerOption(options['max-iterations'], 'max-iterations', command, m);
  const stepTimeout = positiveIntegerOption(options['step-timeout'], 'step-timeout', command, m);
  const judge = typeof options.judge === 'string' ? options.judge : typeof options.model === 'string' ? options.model : undefined;
  if (options.isolate !== undefined && options.isolate !== 'worktree') throw new CliUsageError(m.usage.choice('isolate', ['worktree'], options.isolate), { command });
  return {
    task,
    workspace: git !== undefined ? { gitUrl: git, ...(typeof options.ref === 'string' ? { ref: options.ref } : {}) } : { path: resolve(io.cwd, typeof options.workspace === 'string' ? options.workspace : '.') },
    ...(typeof options.coder === 'string' ? { coder: options.coder } : {}),
    ...(typeof options.reviewer === 'string' ? { reviewer: options.reviewer } : {}),
    ...(judge !== undefined ? { judge } : {}),
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    ...(stepTimeout !== undefined ? { stepTimeoutMs: stepTimeout * 1000 } : {}),
    ...(options.isolate === 'worktree' ? { isolation: 'worktree' as const } : {}),
  };
}

/**
 * Prints a worktree job's branch and diffstat and, unless `repo` is undefined, fetches its change into that
 * checkout as branch `troupe/job-<id>` (the checked-out branch and files untouched). False when that failed.
 */
async function deliverJobWorkspace(workspace: JobWorkspaceResult, repo: string | undefined, io: CliIo): Promise<boolean> {
  const m = catalogueOf(io).cli.queue.worktree;
  if (!workspace.changed) {
    io.stdout.write(`${m.unchanged(workspace.jobId)}\n`);
    return true;
  }
  const { files, insertions, deletions } = workspace.diffstat;
  io.stdout.write(`${[m.branch(workspace.jobId, workspace.branch, files.length, insertions, deletions), ...files.map((file) => m.file(file.file, file.insertions, file.deletions))].join('\n')}\n`);
  if (repo === undefined) {
    io.stdout.write(`${m.notApplied(workspace.branch)}\n`);
    return true;
  }
  try {
    const applied = await applyJobResult(workspace, { repo });
    io.stdout.write(`${m.applied(applied.branch, repo, applied.baseCommit)}\n`);
    return true;
  } catch (error) {
    io.stderr.write(`troupe: ${m.applyFailed(workspace.jobId, (error as Error).message)}\n`);
    return false;
  }
}

/**
 * Sends a Looper run to the queue and, when `follow`, prints its `[AUTO]`
 * progress as it streams back and exits with how the run ended (like an
 * in-process `troupe looper`). Ctrl-C while following sends `stop`; twice
 * cancels the job (its agent CLI is killed on the worker).
 */
export async function submitLooperRun(options: {
  url: string;
  spec: LooperJobSpec;
  follow: boolean;
  attempts?: number | undefined;
  /** With an `isolation: 'worktree'` spec: the checkout its change is fetched into (undefined: printed only). */
  applyTo?: string | undefined;
  io: CliIo;
}): Promise<number> {
  const { io } = options;
  const m = catalogueOf(io).cli;
  const bus = new EventBus();
  const client = createQueueClient({ connection: options.url, eventBus: bus, env: io.env, ...(options.attempts !== undefined ? { maxAttempts: options.attempts } : {}) });
  try {
    if (options.follow) {
      bus.on('message:added', (event) => void io.stdout.write(`${event.payload.message.content}\n`), { channelId: 'looper' });
      bus.on('queue:job-started', ({ payload }) => void io.stdout.write(`${m.queue.jobStarted(payload.jobId, payload.resumed, payload.workerId, payload.attempt)}\n`));
      bus.on('queue:job-failed', ({ payload }) => {
        const reason = queueFailureText({ code: payload.code, params: payload.params, message: payload.error.message }, m);
        io.stdout.write(`${m.queue.jobAttemptFailed(payload.jobId, payload.attempt, reason, payload.willRetry)}\n`);
      });
    }
    const job = await submitLooperJob(client, options.spec);
    io.stdout.write(`${m.queue.submitted(job.id, LOOPER_QUEUE)}\n`);
    if (!options.follow) return EXIT_CODES.ok;
    let interrupts = 0;
    const onSignal = () => {
      interrupts++;
      if (interrupts === 1) {
        io.stdout.write(`${m.queue.stopping}\n`);
        void job.command(JSON.stringify({ type: 'stop' })).catch(() => {});
      } else void job.cancel().catch(() => {});
    };
    if (io.handleSignals) process.on('SIGINT', onSignal);
    try {
      const result = await job.result;
      const saved = await looperJobStateStore(client.store, job.queue, job.id).load('looper');
      io.stdout.write(`${m.queue.ended(job.id, result.outcome, result.iterations, result.reason)}\n`);
      if (result.workspace && !(await deliverJobWorkspace(result.workspace, options.applyTo, io))) return EXIT_CODES.failure;
      return saved ? exitCodeOfRun(saved) : EXIT_CODES.ok;
    } catch (error) {
      const text =
        error instanceof QueueJobError
          ? m.queue.jobFailed(error.jobId, error.queue, queueFailureText({ code: error.failureCode, params: error.params, message: error.reason }, m))
          : TroupeError.hasCode(error, 'ABORTED')
            ? m.queue.jobCanceled(job.id)
            : m.queue.jobError(job.id, (error as Error).message);
      io.stderr.write(`troupe: ${text}\n`);
      return interrupts > 1 ? EXIT_CODES.interrupted : EXIT_CODES.failure;
    } finally {
      if (io.handleSignals) process.off('SIGINT', onSignal);
    }
  } finally {
    await client.close();
  }
}

/** A Looper command other than `start`, sent to a queued job (`troupe looper --queue URL --job ID -p …`). */
export async function commandQueuedJob(options: { url: string; jobId: string; command: Exclude<LooperCommand, { type: 'start' }>; io: CliIo }): Promise<number> {
  const { io, jobId, command } = options;
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const client: QueueClient = createQueueClient({ connection: options.url, env: io.env });
  try {
    const job = client.job(LOOPER_QUEUE, jobId);
    const state = await job.state();
    if (state === 'unknown') throw new CliUsageError(m.queue.noJob(jobId, LOOPER_QUEUE), { command: 'looper' });
    if (command.type === 'status') {
      const saved = await looperJobStateStore(client.store, LOOPER_QUEUE, jobId).load('looper');
      io.stdout.write(`${m.queue.jobState(jobId, state)}\n${saved ? `${catalogue.looper.status(saved)}\n` : ''}`);
      return EXIT_CODES.ok;
    }
    if (state !== 'active' && state !== 'waiting' && state !== 'delayed') {
      io.stdout.write(`${m.queue.nothingTo(jobId, state, command.type)}\n`);
      return EXIT_CODES.failure;
    }
    await job.command(JSON.stringify(command));
    io.stdout.write(`${m.queue.sent(command.type, jobId)}\n`);
    return EXIT_CODES.ok;
  } finally {
    await client.close();
  }
}

/**
 * `troupe submit --redis URL -p TASK [--workspace DIR | --git URL] [--wait] [--isolate worktree [--no-apply]]`:
 * sends a Looper run to the workers; prints the job id, or with `--wait`
 * follows it to its end. With `--isolate worktree` the job works on its own
 * branch from this checkout's `HEAD`, and its change is fetched here as
 * branch `troupe/job-<id>`.
 */
export async function runSubmitCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, SUBMIT_OPTIONS, 'submit', m);
  if (options.help) {
    io.stdout.write(`${helpText('submit', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'submit' });
  const url = redisOption(options.redis, 'redis', 'submit', m);
  const task = typeof options.prompt === 'string' ? options.prompt.trim() : '';
  if (task === '') throw new CliUsageError(m.queue.taskRequired, { command: 'submit' });
  const spec = looperJobSpecFromOptions(options, task, io, 'submit');
  const attempts = positiveIntegerOption(options.attempts, 'attempts', 'submit', m);
  if (spec.isolation !== 'worktree') return submitLooperRun({ url, spec, follow: options.wait === true, attempts, io });
  // The job starts from this checkout's HEAD, and its change comes back here as a new branch.
  const origin = await readOriginCheckout(io.cwd);
  if (!origin) io.stdout.write(`${m.queue.worktree.noCheckout(io.cwd)}\n`);
  return submitLooperRun({
    url,
    spec: origin ? { ...spec, base: origin.head } : spec,
    follow: options.wait === true,
    attempts,
    applyTo: options['no-apply'] === true ? undefined : origin?.repo,
    io,
  });
}
