import { CapabilityUnsupportedError, InvalidArgumentError, type AgentAdapter } from '@troupe/core';
import type { AgentToolHost } from '@troupe/core/cli-turn';
import { assertKnownOptions } from '@troupe/core/util';
import { resolveQueryAgent, type ResolvedQueryAgent } from './query-agents';
import type { QueryAgentSpec } from './query-options';
import { loadQueryToolHost } from './query-tool-host';

// The one owner of the checks of an agent's options, for `query()` and for `defineCliAgent()`: the fields, when
// given, and whether the agent can honour them.

/** The keys of {@link QueryAgentSpec}. */
export const AGENT_SPEC_KEYS: readonly string[] = ['agent', 'cwd', 'model', 'systemPrompt', 'mcpServers', 'tools', 'env', 'timeoutMs'];

/** The keys of one turn, besides the spec: its message, its signal and where its session starts from. */
export const TURN_KEYS: readonly string[] = ['prompt', 'signal', 'resume', 'continue', 'forkSession'];

const STRING_KEYS = ['name', 'description', 'prompt', 'cwd', 'model', 'systemPrompt', 'resume'];
const BOOLEAN_KEYS = ['continue', 'forkSession'];

/**
 * Checks options of `what` (`query()`, `defineCliAgent()`, a run): an object, with only `keys`, each given field of
 * its type. A missing or mistyped field, or a key that is no option, is an `InvalidArgumentError` naming it.
 */
export function checkAgentOptions(options: unknown, what: string, keys: readonly string[], required: readonly string[]): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('options', `${what} expected an object of options (${keys.join(', ')}), got ${options === null ? 'null' : typeof options}`);
  }
  const given = options as Record<string, unknown>;
  assertKnownOptions(given, keys, 'options', { of: what });
  for (const key of required) {
    if (given[key] !== undefined) continue;
    const expected = key === 'agent' ? "'claude', 'codex', 'gemini', 'acp:…', a registry entry or an adapter" : 'a string';
    throw new InvalidArgumentError(`options.${key}`, `required by ${what}: ${expected}`);
  }
  for (const key of STRING_KEYS) {
    if (given[key] !== undefined && typeof given[key] !== 'string') throw new InvalidArgumentError(`options.${key}`, `expected a string, got ${typeof given[key]}`);
  }
  for (const key of BOOLEAN_KEYS) {
    if (given[key] !== undefined && typeof given[key] !== 'boolean') throw new InvalidArgumentError(`options.${key}`, `expected a boolean, got ${typeof given[key]}`);
  }
  if (given.tools !== undefined && !Array.isArray(given.tools)) throw new InvalidArgumentError('options.tools', 'expected an array of tools made by defineTool()');
  const { timeoutMs, env, signal } = given;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs))) {
    throw new InvalidArgumentError('options.timeoutMs', `expected a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  if (env !== undefined) {
    if (env === null || typeof env !== 'object' || Array.isArray(env)) throw new InvalidArgumentError('options.env', 'expected an object of variable names to string values');
    // The name only: a value may be a secret.
    for (const [name, value] of Object.entries(env)) if (typeof value !== 'string') throw new InvalidArgumentError(`options.env.${name}`, `expected a string, got ${typeof value}`);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError('options.signal', 'expected an AbortSignal');
}

/** An agent resolved and checked against its options: ready to run turns. */
export interface PreparedQueryAgent extends ResolvedQueryAgent {
  /** Serves the spec's `tools` to the CLI (`@troupe/mcp`), when it has any. */
  toolHost: AgentToolHost | undefined;
}

/**
 * Loads the spec's agent (its adapter package, on demand) and refuses an option it cannot honour
 * (`CapabilityUnsupportedError`), before anything starts: never silently dropped.
 */
export async function prepareQueryAgent(spec: QueryAgentSpec): Promise<PreparedQueryAgent> {
  const agent = await resolveQueryAgent(spec.agent, spec.model);
  refuseUnsupportedOptions(agent.adapter, agent.label, spec);
  const toolHost = spec.tools !== undefined && spec.tools.length > 0 ? await loadQueryToolHost(agent.label) : undefined;
  return { ...agent, toolHost };
}

function refuseUnsupportedOptions(adapter: AgentAdapter, label: string, options: QueryAgentSpec): void {
  const { capabilities } = adapter;
  if (options.systemPrompt !== undefined && capabilities.systemPrompt === 'none') {
    throw new CapabilityUnsupportedError(label, 'systemPrompt', `The agent "${label}" takes no system prompt (its adapter's capabilities.systemPrompt is 'none'), so it cannot honour systemPrompt; put the instructions in the prompt`);
  }
  const unsupportedMcp = capabilities.mcpServers !== true;
  if (unsupportedMcp && options.mcpServers !== undefined && Object.keys(options.mcpServers).length > 0) {
    throw new CapabilityUnsupportedError(label, 'mcpServers', `The agent "${label}" cannot be given MCP servers (its adapter has no capabilities.mcpServers), so it cannot honour mcpServers`);
  }
  if (unsupportedMcp && options.tools !== undefined && options.tools.length > 0) {
    throw new CapabilityUnsupportedError(label, 'tools', `The agent "${label}" cannot be given MCP servers (its adapter has no capabilities.mcpServers), which carry Troupe tools to a CLI, so it cannot honour tools`);
  }
  // The session options (`resume`, `continue`, `forkSession`) are checked against the adapter by their owner,
  // `AgentManager.ensureAgentStarted`, before anything is spawned.
}
