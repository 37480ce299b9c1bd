import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type AgentAdapterV1 } from '@troupe/core';
import { type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core/cli-turn';
import { parseShoutLine, parseShoutResponse, startShoutTurn, type ShoutTurnState } from './parse-shout-line';

/** Absolute path of the bundled `shout-agent` script (plain JavaScript, run with `node`). */
export const shoutAgentPath: string = fileURLToPath(new URL('./bin/shout-agent.mjs', import.meta.url));

/** Settings of {@link createShoutAdapter}; all optional. */
export interface ShoutAdapterSettings {
  /** Executable to start. Default: the running Node (`process.execPath`). */
  command?: string;
  /** Arguments before Troupe's own. Default: the bundled script, `[shoutAgentPath]`. */
  baseArgs?: readonly string[];
  /** Pause between streamed words, in ms. Default 100. */
  delayMs?: number;
}

/**
 * An `AgentAdapterV1` for `shout-agent`, a plain command that reads a message
 * on stdin and prints JSON lines. Everything a CLI adapter needs is here:
 * the process to start (member args, env and working directory layered on
 * top), how the system prompt travels (a flag), how a turn ends (the `done`
 * line), what a turn remembers (`startTurn`: streamed words, the last error)
 * and how each line maps to stream parts. The adapter keeps no state of its
 * own, so one instance serves any number of members at once.
 *
 * @example
 * ```ts
 * import { AgentManager, registerAdapter } from '@troupe/core/cli-turn';
 * const unregister = registerAdapter({ type: 'shout', create: () => createShoutAdapter({ delayMs: 0 }) });
 * const manager = new AgentManager();
 * await manager.ensureAgentStarted('crier', 'shout', { systemInstruction: 'a town crier' });
 * console.log(await manager.sendAndReceive('crier', 'hear ye')); // A TOWN CRIER SAYS: HEAR YE!
 * await manager.cleanup();
 * unregister();
 * ```
 */
export function createShoutAdapter(settings: ShoutAdapterSettings = {}): AgentAdapterV1<ShoutTurnState> {
  const command = settings.command ?? process.execPath;
  const baseArgs = [...(settings.baseArgs ?? [shoutAgentPath])];
  const delayMs = settings.delayMs ?? 100;
  if (typeof command !== 'string' || command === '') throw new InvalidArgumentError('settings.command', 'expected a non-empty string');
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new InvalidArgumentError('settings.delayMs', `expected a number >= 0, got ${String(settings.delayMs)}`);
  }
  return {
    specificationVersion: 'v1',
    adapterId: 'shout',
    // The prompt goes on the command line, once; no session to resume; words stream.
    capabilities: { systemPrompt: 'flag', resume: false, streamingText: true },
    getProcessConfig(member, workDir) {
      const cwd = workDir ?? member.workDir;
      return {
        command,
        args: [
          ...baseArgs,
          '--delay',
          String(delayMs),
          ...(member.systemInstruction ? ['--system-prompt', member.systemInstruction] : []),
          ...(member.additionalArgs ?? []),
        ],
        ...(cwd ? { cwd } : {}),
        ...(member.env ? { env: member.env } : {}),
        messageDelivery: 'stdin',
        installHint: `shout-agent ships with this example (${shoutAgentPath}); run it with Node >= 20`,
      };
    },
    // The system prompt already went as a flag: the message stays as it is.
    prepareMessage: (message) => message,
    parseResponse: parseShoutResponse,
    getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ['done'] }),
    // The turn-start hook: a fresh state for each turn, given back with each of its lines.
    startTurn: () => startShoutTurn(),
    parseLine: (_line, json, context) => parseShoutLine(json, context?.state),
  };
}

/**
 * The plugin to register: `registerAdapter(shoutAdapterPlugin)`. With a
 * registry entry (`{ name: 'shout', command, baseArgs, … }`) it runs that
 * command instead of the bundled script.
 */
export const shoutAdapterPlugin: AgentAdapterPlugin = {
  type: 'shout',
  displayName: 'Shout agent (example)',
  create: (definition?: AgentDefinition) =>
    createShoutAdapter(definition ? { command: definition.command, baseArgs: definition.baseArgs } : {}),
};
