import type { AgentManager, AgentOutputSchema } from '@troupe/core/cli-turn';
import type { MemberAgentConfig } from '@troupe/core';

/**
 * Runs the agents of a strategy as an agent CLI (Claude Code, Codex, Gemini,
 * any ACP agent…) driven by an `AgentManager`, instead of on a chat model.
 * The orchestrator serves the agent's tools (`fork_agents`, `task_finish`)
 * to the CLI as the member's Troupe `tools` (over MCP: give the manager a
 * tool host such as `createMcpToolHost()` from `@troupe/mcp`), with the
 * agent's controls in their `toolData`.
 */
export interface CliAgentSpec {
  /** Runs the CLI; needs a `toolHost` (`new AgentManager({ toolHost: createMcpToolHost() })`). */
  manager: AgentManager;
  /** Adapter type or registry config id, as for `AgentManager.ensureAgentStarted` (`claude`, `codex`, `gemini`, `acp`…). */
  configId: string;
  /**
   * Member role of the CLI in the manager. Default: the agent's id (each
   * agent gets its own role). The role must not be started already; the
   * orchestrator stops it when the agent's run ends.
   */
  roleId?: string;
  /**
   * The member config (workDir, model, env, `mcpServers`, more `tools`…).
   * The orchestrator adds its agent tools and their controls, the
   * strategy's rendered system prompt as `systemInstruction` (unless set
   * here), and the agent's workspace root as `workDir` (unless set here).
   * Under `isolation: 'worktree'` the `workDir` is moved to the same place
   * inside the agent's workspace.
   */
  member?: MemberAgentConfig;
  /**
   * Ask the CLI for a typed result: a zod 4 schema or a JSON Schema object,
   * checked as `AgentManager.sendAndReceive(role, prompt, { schema })`
   * checks it (the CLI's native flag, or the JSON asked for in the prompt
   * with one repair turn). The agent's run result (`AgentRunResult.object`)
   * and, for a sub-agent, its parent's fork result carry the validated
   * object. A turn without a valid object fails the agent with a
   * `StructuredOutputError` as its cause (the fork's error, with the raw answer).
   */
  schema?: AgentOutputSchema;
}
