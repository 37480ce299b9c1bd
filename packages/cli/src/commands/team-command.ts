import { createInterface } from 'node:readline';
import { AbortError, EventBus, TroupeError } from '@troupe/core';
import { loadTeamConfig, runTeam, type TeamConfig, type TeamRunResult } from '@troupe/team';
import { TEAM_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import { createCliAdapterRegistry, createCliAgentManager } from '../looper/create-cli-looper';
import { readPolicyOption } from '../permissions/cli-policy';
import { loadCliRegistry, registryEntry } from '../registry/cli-registry';
import { openSessionLedger } from '../usage/session-ledger';
import { openWorkspace, resolveWorkspacePath } from '../workspace/troupe-workspace';

/**
 * `troupe team`: runs the team in `.troupe/team.json` (or `--config`) through
 * `@troupe/team`'s `runTeam`, printing each message. AI members run through
 * their agents (a registry entry or a built-in adapter), in their `workDir`
 * or else the workspace; human members' turns are the lines of stdin (typed
 * at a prompt, or piped); Ctrl-C ends the conversation. Exits 0 when it
 * ended normally with every member turn done, 1 on an error or when any
 * member's turn failed (also when the conversation went on past it), 2 for a
 * bad team file or registry, 130 when interrupted.
 */
export async function runTeamCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, TEAM_OPTIONS, 'team', m);
  if (options.help) {
    io.stdout.write(`${helpText('team', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(`${m.usage.unexpectedArgument(positionals[0] as string)}; ${m.usage.passWithP('message')}`, { command: 'team' });
  const root = resolveWorkspacePath(typeof options.workspace === 'string' ? options.workspace : '.', io.cwd, m);
  const isolate = typeof options.isolate === 'string' ? options.isolate : undefined;
  const config = withTeamIsolation(withWorkspaceWorkDir(await loadTeamConfig(typeof options.config === 'string' ? options.config : undefined, { cwd: root }), root), isolate, m);
  const registry = await loadCliRegistry(
    { option: typeof options.registry === 'string' ? options.registry : undefined, workspaceRoot: root, env: io.env, cwd: io.cwd },
    m,
    (warning) => io.stderr.write(`troupe: ${m.config.warning(warning)}\n`),
  );
  const bus = new EventBus();
  bus.on('team:message', (event) => {
    const { message } = event.payload;
    io.stdout.write(`${message.speakerName}: ${message.content}\n`);
  });
  // The conversation's tokens and cost go to the workspace session's ledger (`troupe usage`).
  const usage = await recordUsage(root, bus, io);
  const policy = typeof options.policy === 'string' ? await readPolicyOption(options.policy, io.cwd) : undefined;
  if (policy !== undefined) {
    // Every AI member's adapter is built now, so one that cannot enforce the policy fails before the conversation starts.
    const adapters = createCliAdapterRegistry(options['auto-allow'] === true, registry, policy);
    for (const member of config.members) {
      if (member.agentConfigId !== undefined) adapters.create(registryEntry(registry, member.agentConfigId) ?? member.agentConfigId);
    }
  }
  const agentManager = createCliAgentManager({ autoAllow: options['auto-allow'] === true, registry, bus, policy });
  const lines = createLineReader(io);
  // Ctrl-C ends the conversation (reason "aborted"); the running member's CLI is stopped.
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  if (io.handleSignals) process.on('SIGINT', onInterrupt);
  lines.onInterrupt(onInterrupt);
  try {
    const result = await runTeam({
      config,
      ...(typeof options.prompt === 'string' ? { firstMessage: options.prompt } : {}),
      ...(typeof options.from === 'string' ? { from: options.from } : {}),
      ...(typeof options.to === 'string' ? { to: options.to } : {}),
      agentManager,
      eventBus: bus,
      // Isolated members' workspaces come from the workspace's checkout.
      cwd: root,
      onHumanTurn: async ({ member, signal }) => {
        const name = member.displayName ?? member.name;
        const line = await lines.next(`${name}> `, signal);
        if (line !== undefined) return line;
        // stdin is closed (a pipe that ran out): the human cannot answer any more.
        io.stdout.write(`\n${m.team.noMoreInput(name)}\n`);
        return '/end';
      },
      signal: controller.signal,
    });
    io.stdout.write(`${m.team.ended(result.reason, result.turns, result.detail)}\n`);
    for (const line of workspaceLines(result, m)) io.stdout.write(`${line}\n`);
    if (result.reason === 'aborted') return EXIT_CODES.interrupted;
    // A failed member turn fails the command, even when the conversation went on past it (`onMemberError: continue`).
    if (result.failures.length > 0) {
      const members = [...new Set(result.failures.map((failure) => `${failure.memberId} on turn ${failure.turn}: ${failure.kind}`))].join(', ');
      io.stderr.write(`troupe: ${m.team.failedTurns(result.failures.length, members)}\n`);
      return EXIT_CODES.failure;
    }
    return ['error', 'member-failed', 'too-many-failures'].includes(result.reason) ? EXIT_CODES.failure : EXIT_CODES.ok;
  } catch (error) {
    if (TroupeError.isInstance(error)) throw error;
    throw new CliError(m.team.couldNotRun((error as Error).message), { cause: error });
  } finally {
    if (io.handleSignals) process.off('SIGINT', onInterrupt);
    lines.close();
    await agentManager.cleanup();
    await usage?.close();
  }
}

/**
 * Records the conversation's usage with the workspace's session. A workspace
 * whose database cannot be opened (read-only, locked, too new) does not stop
 * the conversation: a warning says its usage is not recorded.
 */
async function recordUsage(root: string, bus: EventBus, io: CliIo): Promise<{ close(): Promise<void> } | undefined> {
  const m = catalogueOf(io).cli;
  let workspace: Awaited<ReturnType<typeof openWorkspace>> | undefined;
  try {
    workspace = await openWorkspace(root, io);
    const ledger = await openSessionLedger(workspace, bus);
    const opened = workspace;
    return {
      async close() {
        await ledger.flush().catch((error: unknown) => io.stderr.write(`troupe: ${m.usageReport.notRecorded((error as Error).message)}\n`));
        ledger.dispose();
        await opened.close();
      },
    };
  } catch (error) {
    await workspace?.close().catch(() => undefined);
    io.stderr.write(`troupe: ${m.usageReport.notRecorded((error as Error).message)}\n`);
    return undefined;
  }
}

/** AI members without a `workDir` run in the workspace (`--workspace`), not in the shell's folder. */
export function withWorkspaceWorkDir(config: TeamConfig, root: string): TeamConfig {
  return { ...config, members: config.members.map((member) => (member.type === 'ai' && member.workDir === undefined ? { ...member, workDir: root } : member)) };
}

/**
 * `--isolate worktree|none` sets the team-wide default of the members' `isolation` (members that set their own keep
 * it). Any other value is a usage error naming it.
 */
export function withTeamIsolation(config: TeamConfig, isolate: string | undefined, m: CliMessages): TeamConfig {
  if (isolate === undefined) return config;
  if (isolate !== 'worktree' && isolate !== 'none') throw new CliUsageError(m.team.isolate(isolate), { command: 'team' });
  return { ...config, settings: { ...config.settings, isolation: isolate } };
}

/** One line per isolated member's workspace: its branch and diffstat, and where it is kept (or that it was removed). */
export function workspaceLines(result: TeamRunResult, m: CliMessages): string[] {
  return (result.workspaces ?? []).map(({ memberId, workspace, result: changes, removed, error }) => {
    if (!changes) return m.team.workspaceUnreadable(memberId, error?.message ?? 'unknown error');
    const { files, insertions, deletions } = changes.diffstat;
    return m.team.workspace(memberId, changes.branch, files.length, insertions, deletions, removed ? undefined : workspace.path);
  });
}

/** Lines of stdin, queued as they arrive, so piped input is never lost between turns. */
interface LineReader {
  /** The next line (showing `prompt` first), or undefined once stdin is closed and every line was read. */
  next(prompt: string, signal: AbortSignal): Promise<string | undefined>;
  onInterrupt(listener: () => void): void;
  close(): void;
}

function createLineReader(io: CliIo): LineReader {
  const terminal = Boolean(io.stdin.isTTY);
  const rl = createInterface({ input: io.stdin, output: io.stdout as NodeJS.WritableStream, terminal });
  const queued: string[] = [];
  let closed = false;
  let waiter: ((line: string | undefined) => void) | undefined;
  rl.on('line', (line) => {
    if (waiter) {
      const wake = waiter;
      waiter = undefined;
      wake(line);
    } else queued.push(line);
  });
  rl.on('close', () => {
    closed = true;
    waiter?.(undefined);
    waiter = undefined;
  });
  return {
    next(prompt, signal) {
      if (queued.length > 0) return Promise.resolve(queued.shift());
      if (closed) return Promise.resolve(undefined);
      if (terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      } else io.stdout.write(prompt);
      return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(new AbortError('The human turn was aborted', { cause: signal.reason }));
        const onAbort = () => {
          waiter = undefined;
          reject(new AbortError('The human turn was aborted', { cause: signal.reason }));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter = (line) => {
          signal.removeEventListener('abort', onAbort);
          resolve(line);
        };
      });
    },
    onInterrupt: (listener) => rl.on('SIGINT', listener),
    close: () => rl.close(),
  };
}
