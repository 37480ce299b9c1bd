import type { ChatModel } from '@troupe/core';
import { CliError, EXIT_CODES, exitCodeOfRun } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';
import { controlSocketPath, removeStaleSocket } from '../control/control-server';
import type { CliLooperSetup } from '../looper/create-cli-looper';
import { describeRunError, WorkspaceRunner } from '../looper/workspace-runner';
import { LooperProgress } from '../output/looper-progress';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';
import { acquireRunner, newRunnerToken, releaseRunner, type RunnerRecord } from '../workspace/workspace-runner-lock';

/** What the holder does once it runs the workspace. */
export interface HoldWorkspaceOptions {
  io: CliIo;
  setup: CliLooperSetup;
  devhubModel?: ChatModel | undefined;
  mode: 'looper' | 'interactive';
  /** Start a new session once the workspace is held. */
  newSession: boolean;
  /** First line printed (what runs where). */
  banner: string;
  /** Channels whose messages are printed. */
  channels: readonly string[];
  /** Spinner and status line (TTY), or plain lines. */
  live: boolean;
  /** Checks run before anything starts (the workspace is held); throw to refuse. */
  preflight?: () => void;
  /**
   * The command's work, after an interrupted run (if any) was resumed.
   * Returns the exit code, or `undefined` to wait until the Looper is IDLE
   * and exit with the code of how its last run ended (see `exitCodeOfRun`).
   */
  work(runner: WorkspaceRunner, context: { resumed: boolean; progress: LooperProgress }): Promise<number | undefined>;
}

/** Thrown when another process holds the workspace after all; callers forward the request to it. */
export class WorkspaceTakenError extends CliError {
  constructor(
    readonly holder: RunnerRecord,
    messages: CliMessages = englishCliMessages,
  ) {
    super(messages.workspace.taken(holder.pid));
    this.name = 'WorkspaceTakenError';
  }
}

/**
 * Runs the workspace in this process: claims it (one runner per workspace),
 * listens on its control socket, resumes an interrupted Looper run from its
 * checkpoint, does the command's work, shows progress, and gives the
 * workspace up at the end (a run still in progress stays resumable).
 *
 * @throws WorkspaceTakenError when another live process holds the workspace.
 */
export async function holdWorkspace(workspace: TroupeWorkspace, options: HoldWorkspaceOptions): Promise<number> {
  const token = newRunnerToken();
  const socketPath = controlSocketPath(workspace.dir);
  const claim = await acquireRunner(workspace.store, { startedAt: Date.now(), socketPath, sessionId: workspace.session.id, mode: options.mode, token });
  const m = catalogueOf(options.io).cli;
  if (!claim.acquired) {
    removeStaleSocket(socketPath);
    throw new WorkspaceTakenError(claim.holder, m);
  }
  if (claim.stale) removeStaleSocket(claim.stale.socketPath);
  let runner: WorkspaceRunner;
  try {
    options.preflight?.();
    if (options.newSession) await workspace.startNewSession();
    runner = await WorkspaceRunner.start({
      workspace,
      setup: options.setup,
      token,
      socketPath,
      mode: options.mode,
      devhubModel: options.devhubModel,
      devhubTexts: catalogueOf(options.io).devhub,
      devhubNoModelMessage: m.devhub.runnerNeedsModel,
    });
  } catch (error) {
    await releaseRunner(workspace.store, token).catch(() => {});
    removeStaleSocket(socketPath);
    throw error;
  }
  const { io } = options;
  const progress = new LooperProgress(runner.bus, {
    write: (text) => io.stdout.write(text),
    live: options.live,
    channels: options.channels,
    showChannel: options.channels.length > 1,
    messages: m,
  });
  const stopSignals = io.handleSignals && options.mode === 'looper' ? handleSignals(runner, progress, m) : () => {};
  try {
    progress.line(options.banner);
    let resumed: boolean;
    try {
      resumed = await runner.resume();
    } catch (error) {
      throw new CliError(m.looper.cannotResume(describeRunError(error)), { cause: error });
    }
    if (resumed) progress.begin(runner.looper.getStatus());
    // A run that ended before this process (the session's last run) does not decide its exit code.
    const endedBefore = runner.looper.getStatus().lastRun;
    const code = await options.work(runner, { resumed, progress });
    if (code !== undefined) return code;
    await runner.whenIdle();
    const status = runner.looper.getStatus();
    const ranHere = resumed || (status.lastRun !== null && (endedBefore === null || status.lastRun.runId !== endedBefore.runId || status.lastRun.endedAt !== endedBefore.endedAt));
    const exitCode = ranHere ? exitCodeOfRun(status) : EXIT_CODES.ok;
    if (exitCode !== EXIT_CODES.ok) progress.line(m.looper.exitLine(exitCode, m.exitCodes[exitCode] ?? ''));
    return exitCode;
  } finally {
    stopSignals();
    progress.close();
    await runner.close();
  }
}

/** Ctrl-C once: stop after the current iteration. Twice (or SIGTERM): leave now; the run stays resumable. */
function handleSignals(runner: WorkspaceRunner, progress: LooperProgress, m: CliMessages): () => void {
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1 && runner.looper.getStatus().state === 'RUNNING') {
      progress.line(m.looper.ctrlCOnce);
      void runner.looperCommand('{"type":"stop"}', 'local').catch(() => {});
      return;
    }
    progress.line(m.looper.interrupted);
    void runner.close().finally(() => process.exit(EXIT_CODES.interrupted));
  };
  const onTerminate = () => {
    void runner.close().finally(() => process.exit(143));
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  return () => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  };
}
