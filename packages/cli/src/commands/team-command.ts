import { createInterface } from 'node:readline/promises';
import { AgentManager, EventBus, TroupeError } from '@troupe/core';
import { runTeam } from '@troupe/team';
import { helpText, TEAM_OPTIONS } from '../args/cli-commands';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import type { CliIo } from '../cli-io';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { resolveWorkspacePath } from '../workspace/troupe-workspace';

/**
 * `troupe team`: runs the team in `.troupe/team.json` (or `--config`) through
 * `@troupe/team`'s `runTeam`, printing each message; human members type
 * their turns at the prompt; Ctrl-C ends the conversation. Exits 0 when it
 * ended normally, 1 on an error or failed members, 130 when interrupted.
 */
export async function runTeamCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCliArgs(argv, TEAM_OPTIONS, 'team');
  if (options.help) {
    io.stdout.write(`${helpText('team')}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}; pass the first message with -p (quote it)`, { command: 'team' });
  const root = resolveWorkspacePath(typeof options.workspace === 'string' ? options.workspace : '.', io.cwd);
  const bus = new EventBus();
  bus.on('team:message', (event) => {
    const { message } = event.payload;
    io.stdout.write(`${message.speakerName}: ${message.content}\n`);
  });
  const agentManager = new AgentManager({ adapters: createCliAdapterRegistry(options['auto-allow'] === true), eventBus: bus });
  const rl = createInterface({ input: io.stdin, output: io.stdout as NodeJS.WritableStream, terminal: Boolean(io.stdin.isTTY) });
  // Ctrl-C ends the conversation (reason "aborted"); the running member's CLI is stopped.
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  if (io.handleSignals) process.on('SIGINT', onInterrupt);
  rl.on('SIGINT', onInterrupt);
  try {
    const result = await runTeam({
      cwd: root,
      ...(typeof options.config === 'string' ? { config: options.config } : {}),
      ...(typeof options.prompt === 'string' ? { firstMessage: options.prompt } : {}),
      ...(typeof options.from === 'string' ? { from: options.from } : {}),
      ...(typeof options.to === 'string' ? { to: options.to } : {}),
      agentManager,
      eventBus: bus,
      onHumanTurn: ({ member, signal }) => rl.question(`${member.displayName ?? member.name}> `, { signal }),
      signal: controller.signal,
    });
    io.stdout.write(`Conversation ended (${result.reason}) after ${result.turns} turn(s): ${result.detail}\n`);
    if (result.reason === 'aborted') return EXIT_CODES.interrupted;
    return ['error', 'member-failed', 'too-many-failures'].includes(result.reason) ? EXIT_CODES.failure : EXIT_CODES.ok;
  } catch (error) {
    if (TroupeError.isInstance(error)) throw error;
    throw new CliError(`the team could not run: ${(error as Error).message}`, { cause: error });
  } finally {
    if (io.handleSignals) process.off('SIGINT', onInterrupt);
    rl.close();
    await agentManager.cleanup();
  }
}
