import { InvalidArgumentError } from '@troupe/core';
import type { CliAgentSpec } from './cli-agent-spec';
import type { RunAgentOptions } from './agent-orchestrator-options';
import { defineAgentStrategy, type AgentStrategy } from './agent-strategy';
import type { AgentTaskContext } from './orchestrator-types';

/** Type of the strategy a CLI agent gets when its options name none. */
export const CLI_AGENT_STRATEGY_TYPE = 'cli';

/**
 * A CLI agent for {@link AgentOrchestrator.createCliAgent}: which member of
 * which `AgentManager` runs it (see {@link CliAgentSpec}), its task, and its
 * place in the tree.
 */
export interface CliAgentOptions extends Omit<CliAgentSpec, 'configId'>, Omit<AgentTaskContext, 'task' | 'messages' | 'waitForInput'> {
  /** Adapter type or registry config id (`claude`, `codex`, `gemini`, `acp`, a registry entry…). */
  configId?: string;
  /** Same as `configId` (give one of them). */
  type?: string;
  /** What the CLI agent must do: sent as its message. */
  task: string;
  /**
   * The node's strategy (or the type of a registered one): its `type` names
   * the node, its rendered `systemPrompt` becomes the CLI's system
   * instruction, its `tools` whitelists the orchestrator tools the CLI gets,
   * its `timeoutMs` limits the run. Its `cli` is set from these options.
   * Default: `{ type: 'cli', systemPrompt: '' }`.
   */
  strategy?: AgentStrategy | string;
}

/** Options of {@link AgentOrchestrator.runCliAgent}: the agent, and how to run it. */
export interface RunCliAgentOptions extends CliAgentOptions, RunAgentOptions {}

/** @internal The context and strategy of a CLI agent's record. */
export function cliAgentParts(
  options: CliAgentOptions,
  resolveStrategy: (strategy: AgentStrategy | string) => AgentStrategy,
): { context: AgentTaskContext; strategy: AgentStrategy } {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected CLI agent options ({ manager, configId, task })');
  const { manager, configId, type, roleId, member, schema, task, strategy, parentId, variables, labels, workspaceRoot, data } = options;
  if (configId !== undefined && type !== undefined && configId !== type) {
    throw new InvalidArgumentError('configId', `give configId or type, not both (got "${configId}" and "${type}")`);
  }
  const adapter = configId ?? type;
  if (typeof adapter !== 'string' || adapter === '') throw new InvalidArgumentError('configId', 'expected the adapter type or registry config id of the CLI (e.g. "claude")');
  const base = strategy === undefined ? { type: CLI_AGENT_STRATEGY_TYPE, systemPrompt: '' } : resolveStrategy(strategy);
  const cli: CliAgentSpec = { manager, configId: adapter, ...(roleId !== undefined ? { roleId } : {}), ...(member !== undefined ? { member } : {}), ...(schema !== undefined ? { schema } : {}) };
  const context: AgentTaskContext = {
    task,
    ...(parentId !== undefined ? { parentId } : {}),
    ...(variables !== undefined ? { variables } : {}),
    ...(labels !== undefined ? { labels } : {}),
    ...(workspaceRoot !== undefined ? { workspaceRoot } : {}),
    ...(data !== undefined ? { data } : {}),
  };
  return { context, strategy: defineAgentStrategy({ ...base, cli }) };
}
