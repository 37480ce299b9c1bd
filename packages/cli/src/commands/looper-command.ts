import { EventBus } from '@troupe/core/events';
import { parseLooperCommand, type LooperCommand } from '@troupe/looper/commands';
import { LOOPER_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, isLiveTerminal, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import type { WorkspaceRunner } from '../looper/workspace-runner';
import type { LooperProgress } from '../output/looper-progress';
import { removeStaleSocket } from '../control/control-socket-path';
import { reachRunner } from '../control/reach-runner';
import { createSessionLooperStateStore } from '../looper/session-looper-state-store';
import { answerFromCheckpoint, LOOPER_ID } from '../looper/looper-checkpoint-commands';
import type { LooperReplySummary } from '../looper/looper-reply';
import { readLooperOptions } from '../looper/read-looper-setup';
import { SessionMessageLog } from '../workspace/session-message-log';
import { openWorkspace, resolveWorkspacePath, type TroupeWorkspace } from '../workspace/troupe-workspace';
import { acquireRunner, newRunnerToken, releaseRunner } from '../workspace/workspace-runner-lock';
import { noteLeftovers, WorkspaceTakenError } from '../workspace/workspace-claim';

/** `troupe looper --queue URL …`: the run goes to the queue's workers (a start), or a command to a queued job (`--job ID`). */
async function runQueuedLooper(options: Record<string, string | boolean | undefined>, command: LooperCommand | undefined, io: CliIo): Promise<number> {
  // Loaded only with --queue: the queue client (BullMQ, ioredis) stays out of every other looper command.
  const { commandQueuedJob, looperJobSpecFromOptions, submitLooperRun } = await import('./submit-command');
  const { redisOption } = await import('../args/queue-options');
  const m = catalogueOf(io).cli;
  const url = redisOption(options.queue, 'queue', 'looper', m);
  if (command === undefined) throw new CliUsageError(m.queue.commandRequired, { command: 'looper' });
  if (command.type === 'start') return submitLooperRun({ url, spec: looperJobSpecFromOptions(options, command.task, io, 'looper'), follow: true, io });
  if (typeof options.job !== 'string' || options.job === '') throw new CliUsageError(m.queue.jobRequired(command.type), { command: 'looper' });
  return commandQueuedJob({ url, jobId: options.job, command, io });
}

/**
 * `troupe looper`: runs the Looper on a workspace, or sends the command to
 * the `troupe` process already running it. Returns the exit code: a run
 * this process carries to its end exits with how it ended (see
 * `exitCodeOfRun`).
 */
export async function runLooperCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const { options, positionals } = parseCliArgs(argv, LOOPER_OPTIONS, 'looper', m);
  if (options.help) {
    io.stdout.write(`${helpText('looper', catalogue)}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) {
    throw new CliUsageError(`${m.usage.unexpectedArgument(positionals[0] as string)}; ${m.usage.passWithP('command')}`, { command: 'looper' });
  }
  const input = typeof options.prompt === 'string' ? options.prompt : undefined;
  let command: LooperCommand | undefined;
  if (input !== undefined) {
    const parsed = parseLooperCommand(input, catalogue.looper.command);
    if (!parsed.success) throw new CliUsageError(m.usage.invalidLooperCommand(parsed.error), { command: 'looper' });
    command = parsed.command;
  }
  // A queued run would drop the policy on the way to the workers: refuse it rather than run the agents ungoverned.
  if (typeof options.queue === 'string' && typeof options.policy === 'string') throw new CliUsageError(m.queue.policyNotQueued, { command: 'looper' });
  if (typeof options.queue === 'string' && typeof options.attempts === 'string') throw new CliUsageError(m.queue.attemptsNotQueued, { command: 'looper' });
  if (typeof options.queue === 'string') return runQueuedLooper(options, command, io);
  const isolate = isolationOption(options, m);
  const read = await readLooperOptions(options, io, 'looper');
  const workspacePath = typeof options.workspace === 'string' ? options.workspace : '.';
  // Only a start (or a resume) may run agents here: resolve them, and fail on bad ones, before touching the workspace.
  // The adapters, model SDKs and the runner load only then: `status`, `add_pending` and `stop` start fast.
  const runs = command === undefined || command.type === 'start';
  const setupModule = runs ? await import('../looper/resolve-looper-setup') : undefined;
  const resolvedSetup = setupModule ? await setupModule.resolveLooperSetup(read, options, io, resolveWorkspacePath(workspacePath, io.cwd, m), 'looper') : undefined;
  const resolved = resolvedSetup && isolate.isolation === 'worktree' ? { ...resolvedSetup, setup: { ...resolvedSetup.setup, isolation: 'worktree' as const } } : resolvedSetup;
  const workspace = await openWorkspace(workspacePath, io);
  const newSession = options.newsession === true;
  try {
    for (let attempt = 0; ; attempt++) {
      const forwarded = await forward(workspace, input, newSession, io);
      if (forwarded !== undefined) return forwarded;
      try {
        if (command && command.type !== 'start') return await answerWithoutRunner(workspace, command, input as string, newSession, read.base.maxIterations ?? 5, io);
        const { setup, summary } = resolved as NonNullable<typeof resolved>;
        // A run on a branch of its own: first clean up what killed runs left (and fail here on a folder that is no checkout).
        if (isolate.isolation === 'worktree') {
          const { collectWorkspaceLeftovers } = await import('./workspaces-command');
          await collectWorkspaceLeftovers(workspace.root, io, m, { quietWhenNone: true, notRepository: m.looper.notARepository });
        }
        const { holdWorkspace } = await import('./hold-workspace');
        return await holdWorkspace(workspace, {
          io,
          setup,
          mode: 'looper',
          newSession,
          banner: m.looper.banner(workspace.root, summary),
          channels: [LOOPER_ID],
          live: isLiveTerminal(io),
          preflight: () => setupModule?.checkAgentClis(setup, io),
          async work(runner, { resumed, progress }) {
            if (input === undefined && !resumed) {
              progress.line(m.looper.nothingToResume(workspace.root, runner.looper.formatStatus()));
              return EXIT_CODES.ok;
            }
            if (input !== undefined) {
              const reply = await runner.looperCommand(input, 'local');
              if (!reply.ok && !resumed) return EXIT_CODES.failure;
            }
            return undefined;
          },
          ...(isolate.isolation === 'worktree' ? { afterRun: (runner, progress) => reportWorkspace(runner, progress, workspace.root, isolate.merge, m) } : {}),
        });
      } catch (error) {
        // Another process claimed the workspace between our check and our claim: send it the command.
        if (error instanceof WorkspaceTakenError && attempt < 2) continue;
        throw error;
      }
    }
  } finally {
    await workspace.close();
  }
}

/** `--isolate worktree|none` and `--merge STRATEGY` (which needs the first), checked. */
function isolationOption(options: Record<string, string | boolean | undefined>, m: CliMessages): { isolation: 'none' | 'worktree'; merge?: 'merge' | 'rebase' | 'squash' } {
  const { isolate, merge } = options;
  if (isolate !== undefined && isolate !== 'worktree' && isolate !== 'none') throw new CliUsageError(m.usage.choice('isolate', ['worktree', 'none'], isolate), { command: 'looper' });
  if (merge !== undefined && merge !== 'merge' && merge !== 'rebase' && merge !== 'squash') throw new CliUsageError(m.usage.choice('merge', ['merge', 'rebase', 'squash'], merge), { command: 'looper' });
  const isolation = isolate === 'worktree' ? 'worktree' : 'none';
  if (merge !== undefined && isolation !== 'worktree') throw new CliUsageError(m.looper.mergeNeedsIsolate, { command: 'looper' });
  return merge === undefined ? { isolation } : { isolation, merge };
}

/** The most of a run's diff printed at its end; the rest is on its branch. */
const PRINTED_DIFF_LIMIT = 20_000;

/**
 * The end of a `--isolate worktree` run: its diff (the branch and diffstat are in the Looper's last `[AUTO]` line),
 * then the merge with `--merge`, or how to merge. A merge that conflicts or is refused makes the exit code 1.
 */
async function reportWorkspace(
  runner: WorkspaceRunner,
  progress: LooperProgress,
  root: string,
  merge: 'merge' | 'rebase' | 'squash' | undefined,
  m: CliMessages,
): Promise<number | undefined> {
  const result = runner.looper.workspaceResult();
  if (!result || result.diff === '') return undefined;
  const diff = result.diff.length > PRINTED_DIFF_LIMIT ? `${result.diff.slice(0, PRINTED_DIFF_LIMIT)}\n${m.looper.diffCut(PRINTED_DIFF_LIMIT, result.diff.length)}` : result.diff.trimEnd();
  progress.line(`${m.looper.workspaceDiff(result.branch, result.baseCommit.slice(0, 12))}\n${diff}`);
  if (merge === undefined) {
    progress.line(m.looper.mergeHint(root, result.branch));
    return undefined;
  }
  // The Looper posts the merge's outcome as an [AUTO] line (printed with the others).
  const reply = await runner.looperCommand(JSON.stringify({ type: 'merge', strategy: merge }), 'local');
  return reply.ok ? undefined : EXIT_CODES.failure;
}

/** Sends the command to the process running the workspace; undefined when none runs. */
async function forward(workspace: TroupeWorkspace, input: string | undefined, newSession: boolean, io: CliIo): Promise<number | undefined> {
  const m = catalogueOf(io).cli;
  const reached = await reachRunner(workspace.store, { messages: m });
  if (!reached) return undefined;
  const { client, holder } = reached;
  try {
    if (newSession) io.stderr.write(`troupe: ${m.workspace.newSessionIgnored(holder.pid, 'command')}\n`);
    const reply = await client.request<LooperReplySummary>({ op: 'looper', input: input ?? '{"type":"status"}' });
    io.stdout.write(`${reply.text}\n`);
    if (input === undefined) io.stdout.write(`${m.looper.runnerNote(holder.pid)}\n`);
    return reply.ok ? EXIT_CODES.ok : EXIT_CODES.failure;
  } finally {
    client.close();
  }
}

/** `status`, `add_pending` or `stop` while no process runs the workspace: read or change the checkpoint. */
async function answerWithoutRunner(
  workspace: TroupeWorkspace,
  command: Exclude<LooperCommand, { type: 'start' }>,
  input: string,
  newSession: boolean,
  maxIterations: number,
  io: CliIo,
): Promise<number> {
  // Hold the workspace while changing the checkpoint, so no runner starts from a stale one meanwhile.
  const token = newRunnerToken();
  const claim = await acquireRunner(workspace.store, { startedAt: Date.now(), socketPath: '', sessionId: workspace.session.id, mode: 'looper', token });
  if (!claim.acquired) throw new WorkspaceTakenError(claim.holder, catalogueOf(io).cli);
  if (claim.stale) removeStaleSocket(claim.stale.socketPath);
  try {
    await noteLeftovers(workspace, token, io);
    if (newSession) await workspace.startNewSession();
    return await answerFromSession(workspace, command, input, maxIterations, io);
  } finally {
    await releaseRunner(workspace.store, token);
  }
}

async function answerFromSession(
  workspace: TroupeWorkspace,
  command: Exclude<LooperCommand, { type: 'start' }>,
  input: string,
  maxIterations: number,
  io: CliIo,
): Promise<number> {
  const bus = new EventBus();
  const log = await SessionMessageLog.open(workspace.store, (channelId) => workspace.messagesNamespace(channelId), bus);
  try {
    const stateStore = createSessionLooperStateStore(workspace, log);
    log.messages.append(LOOPER_ID, { role: 'user', speaker: 'user', content: input, metadata: { origin: 'local' } });
    const reply = await answerFromCheckpoint(command, stateStore, { maxIterations, workspace: workspace.root, catalogue: catalogueOf(io) });
    log.messages.append(LOOPER_ID, { role: 'assistant', speaker: LOOPER_ID, content: reply.text, metadata: { reply: true, command: reply.command, accepted: reply.ok } });
    await log.flush();
    io.stdout.write(`${reply.text}\n`);
    return reply.ok ? EXIT_CODES.ok : EXIT_CODES.failure;
  } finally {
    log.close();
  }
}
