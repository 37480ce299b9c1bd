import type { ChatModel } from '@troupe/core';
import { CliError, EXIT_CODES, exitCodeOfRun } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import { controlSocketPath, removeStaleSocket } from '../control/control-socket-path';
import type { CliLooperSetup } from '../looper/create-cli-looper';
import { describeRunError, WorkspaceRunner } from '../looper/workspace-runner';
import { LooperProgress } from '../output/looper-progress';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';
import { noteLeftovers, WorkspaceTakenError } from '../workspace/workspace-claim';
import { acquireRunner, newRunnerToken, releaseRunner } from '../workspace/workspace-runner-lock';

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
  /**
   * Once the Looper is IDLE after `work` returned `undefined` (not after an interruption): e.g. the run's diff and
   * its merge. Returns an exit code that replaces a successful run's, or `undefined`.
   */
  afterRun?(runner: WorkspaceRunner, progress: LooperProgress): Promise<number | undefined>;
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
    // A runner that died (kill -9) may have left its Coder or tests running: stop them before anything resumes.
    await noteLeftovers(workspace, token, options.io);
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
  let interrupted: number | undefined;
  // `troupe looper`: SIGTERM and SIGINT. The interactive session: SIGTERM (its prompt handles Ctrl-C).
  const stopSignals = io.handleSignals
    ? handleSignals(runner, progress, m, options.mode === 'looper' ? ['SIGTERM', 'SIGINT'] : ['SIGTERM'], (code) => {
        interrupted = code;
      })
    : () => {};
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
    if (interrupted !== undefined) return interrupted;
    if (code !== undefined) return code;
    await runner.whenIdle();
    if (interrupted !== undefined) return interrupted;
    const after = await options.afterRun?.(runner, progress);
    if (interrupted !== undefined) return interrupted;
    const status = runner.looper.getStatus();
    const ranHere = resumed || (status.lastRun !== null && (endedBefore === null || status.lastRun.runId !== endedBefore.runId || status.lastRun.endedAt !== endedBefore.endedAt));
    const runCode = ranHere ? exitCodeOfRun(status) : EXIT_CODES.ok;
    const exitCode = runCode === EXIT_CODES.ok && after !== undefined ? after : runCode;
    if (exitCode !== EXIT_CODES.ok) progress.line(m.looper.exitLine(exitCode, m.exitCodes[exitCode] ?? ''));
    return exitCode;
  } finally {
    await runner.close();
    stopSignals();
    progress.close();
  }
}

/** If stopping the agents hangs, exit anyway after this long. */
const SIGNAL_EXIT_DEADLINE_MS = 15_000;

/**
 * SIGTERM or SIGINT (Ctrl-C) end the runner within seconds, wherever the run
 * is (a Coder or Review turn, JUDGE, between steps, idle): the step in
 * flight is canceled and its processes killed, the checkpoint stays RUNNING
 * (the next `troupe looper` resumes it), and the command exits 143 or 130.
 * A second signal exits at once.
 */
function handleSignals(runner: WorkspaceRunner, progress: LooperProgress, m: CliMessages, signals: readonly NodeJS.Signals[], onSignal: (code: number) => void): () => void {
  let code: number | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    if (code !== undefined) process.exit(code); // asked twice: leave now (the exit hook still kills the agent processes)
    const exitCode = signal === 'SIGINT' ? EXIT_CODES.interrupted : EXIT_CODES.terminated;
    code = exitCode;
    onSignal(exitCode);
    progress.line(m.looper.interrupted(signal));
    setTimeout(() => process.exit(exitCode), SIGNAL_EXIT_DEADLINE_MS).unref();
    // The command's own flow returns the code once the runner is closed; a session waiting at its prompt never would.
    void runner.close().then(() => setTimeout(() => process.exit(exitCode), 1000).unref());
  };
  for (const signal of signals) process.on(signal, interrupt);
  return () => {
    for (const signal of signals) process.off(signal, interrupt);
  };
}
