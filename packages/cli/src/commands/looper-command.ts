import { EventBus } from '@troupe/core';
import { parseLooperCommand, type LooperCommand } from '@troupe/looper';
import { LOOPER_OPTIONS, helpText } from '../args/cli-commands';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { isLiveTerminal, type CliIo } from '../cli-io';
import { removeStaleSocket } from '../control/control-server';
import { reachRunner } from '../control/reach-runner';
import { createSessionLooperStateStore } from '../looper/create-cli-looper';
import { answerFromCheckpoint, LOOPER_ID } from '../looper/looper-checkpoint-commands';
import type { LooperReplySummary } from '../looper/looper-reply';
import { checkAgentClis, readLooperSetup } from '../looper/read-looper-setup';
import { SessionMessageLog } from '../workspace/session-message-log';
import { openWorkspace, type TroupeWorkspace } from '../workspace/troupe-workspace';
import { acquireRunner, newRunnerToken, releaseRunner } from '../workspace/workspace-runner-lock';
import { holdWorkspace, noteLeftovers, WorkspaceTakenError } from './hold-workspace';

/**
 * `troupe looper`: runs the Looper on a workspace, or sends the command to
 * the `troupe` process already running it. Returns the exit code.
 */
export async function runLooperCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCliArgs(argv, LOOPER_OPTIONS, 'looper');
  if (options.help) {
    io.stdout.write(`${helpText('looper')}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) {
    throw new CliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}; pass the Looper command with -p (quote it)`, { command: 'looper' });
  }
  const input = typeof options.prompt === 'string' ? options.prompt : undefined;
  let command: LooperCommand | undefined;
  if (input !== undefined) {
    const parsed = parseLooperCommand(input);
    if (!parsed.success) throw new CliUsageError(`invalid -p command: ${parsed.error}`, { command: 'looper' });
    command = parsed.command;
  }
  const { setup, summary } = readLooperSetup(options, io.env, 'looper');
  const workspace = await openWorkspace(typeof options.workspace === 'string' ? options.workspace : '.', io);
  const newSession = options.newsession === true;
  try {
    for (let attempt = 0; ; attempt++) {
      const forwarded = await forward(workspace, input, newSession, io);
      if (forwarded !== undefined) return forwarded;
      try {
        if (command && command.type !== 'start') return await answerWithoutRunner(workspace, command, input as string, newSession, setup.maxIterations ?? 5, io);
        return await holdWorkspace(workspace, {
          io,
          setup,
          mode: 'looper',
          newSession,
          banner: `troupe looper · ${workspace.root} · ${summary}`,
          channels: [LOOPER_ID],
          live: isLiveTerminal(io),
          preflight: () => checkAgentClis(setup, io.env),
          async work(runner, { resumed, progress }) {
            if (input === undefined && !resumed) {
              progress.line(`Nothing to resume in ${workspace.root}.\n${runner.looper.formatStatus()}\nStart a run with: troupe looper --workspace ${workspace.root} -p '{"type":"start","task":"…"}'`);
              return EXIT_CODES.ok;
            }
            if (input !== undefined) {
              const reply = await runner.looperCommand(input, 'local');
              if (!reply.ok && !resumed) return EXIT_CODES.failure;
            }
            return undefined;
          },
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

/** Sends the command to the process running the workspace; undefined when none runs. */
async function forward(workspace: TroupeWorkspace, input: string | undefined, newSession: boolean, io: CliIo): Promise<number | undefined> {
  const reached = await reachRunner(workspace.store);
  if (!reached) return undefined;
  const { client, holder } = reached;
  try {
    if (newSession) io.stderr.write(`troupe: note: --newsession ignored: a troupe process (pid ${holder.pid}) is running this workspace's session; the command goes to it\n`);
    const reply = await client.request<LooperReplySummary>({ op: 'looper', input: input ?? '{"type":"status"}' });
    io.stdout.write(`${reply.text}\n`);
    if (input === undefined) io.stdout.write(`(A troupe process, pid ${holder.pid}, is running this workspace; send it commands with -p.)\n`);
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
  if (!claim.acquired) throw new WorkspaceTakenError(claim.holder);
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
    const reply = await answerFromCheckpoint(command, stateStore, { maxIterations, workspace: workspace.root });
    log.messages.append(LOOPER_ID, { role: 'assistant', speaker: LOOPER_ID, content: reply.text, metadata: { reply: true, command: reply.command, accepted: reply.ok } });
    await log.flush();
    io.stdout.write(`${reply.text}\n`);
    return reply.ok ? EXIT_CODES.ok : EXIT_CODES.failure;
  } finally {
    log.close();
  }
}

