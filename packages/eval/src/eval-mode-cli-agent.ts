import { defineCliAgent } from '@troupe/agents';
import type { MemberAgentConfig } from '@troupe/core';
import type { AdapterRegistry } from '@troupe/core/cli-turn';
import type { EvalAgent } from './eval-mode';
import type { EvalTrialKey } from './eval-trial-record';

/** An eval agent registered as an adapter type: what an `AgentManager` (a Looper, `bestOfN`) runs it by. */
export interface RegisteredEvalAgent {
  /** Its adapter type in the registry (the agent's id, made a valid adapter name). */
  configId: string;
  /** Its member settings: the workspace as its folder, and its model, instructions, tools, MCP servers, env. */
  member: MemberAgentConfig;
}

/** The agent's id as an adapter type and attempt name: lower case, letters, digits, `_` and `-`. */
function adapterName(id: string): string {
  const name = id.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64);
  return name === '' ? 'agent' : name;
}

/**
 * Registers the trial's agent (a fresh adapter when `agent.agent` is a function) in `adapters`, working in
 * `cwd`, so the runners that take their members by adapter type — the Looper and `bestOfN` — run the very agent
 * `single` runs with `query()`, with the same options. Rejects as `query()` would for an agent that cannot run
 * (not installed, an option it cannot honour).
 */
export async function registerEvalAgent(agent: EvalAgent, trial: EvalTrialKey, cwd: string, adapters: AdapterRegistry): Promise<RegisteredEvalAgent> {
  const defined = defineCliAgent({ ...agent.options, name: adapterName(agent.id), agent: typeof agent.agent === 'function' ? agent.agent(trial) : agent.agent, cwd });
  await defined.register(adapters);
  return defined.toMember();
}
