import type { ToolAgentKind, ToolContext } from '@troupe/core';
import type { ForkResult, SubAgentSpec } from './orchestrator-types';

/** Key of the agent controls in `ToolContext.data` (namespaced so it never clashes with application data). */
export const AGENT_TOOL_CONTEXT_KEY = '@troupe/orchestrator:agent';

/** What a tool ending its agent reports (see `task_finish`). */
export interface AgentFinishRequest {
  /** The agent's result, handed to its parent. */
  result: string;
  /** False when the agent gives up on its task: it ends in `error` (and its parent's retry policy applies). Default true. */
  success?: boolean;
}

/** Options of {@link AgentToolControls.fork}. */
export interface AgentForkCallOptions {
  /** Terminates the fork's sub-agents when aborted (pass the tool's `abortSignal`). */
  signal?: AbortSignal;
  /** The tool call that forks (the runner sets it): a resumed session hands the fork's results back to this call. */
  toolCallId?: string;
}

/**
 * What a tool run by an agent can do to that agent: end it with a result
 * (`task_finish`), or fork sub-agents (`fork_agents`). The runner passes it in
 * `ToolContext.data`; read it with {@link getAgentToolContext}.
 */
export interface AgentToolControls {
  /** Id of the agent running the tool (empty for a runner used without an orchestrator and without an id). */
  readonly agentId: string;
  /** `main` for a root agent, `sub` for a sub-agent. */
  readonly agentKind: ToolAgentKind;
  /**
   * Ends the agent after the current step's tools: no further model call;
   * the run completes with `result` as its text (or fails when `success` is false).
   */
  finish(request: AgentFinishRequest): void;
  /**
   * Forks sub-agents that run in parallel while this agent waits; resolves
   * with their results. Absent when the runner has no orchestrator.
   */
  fork?: (subAgents: readonly SubAgentSpec[], options?: AgentForkCallOptions) => Promise<ForkResult>;
}

/**
 * The controls of the agent running a tool, or `undefined` when the tool runs
 * outside an `AgentRunner` (e.g. under core's `runToolLoop`).
 *
 * @example
 * ```ts
 * const done = defineTool({
 *   name: 'done', description: 'Stop here', parameters: z.object({ summary: z.string() }), scope: 'sub',
 *   execute: ({ summary }, context) => { getAgentToolContext(context)?.finish({ result: summary }); return 'ok'; },
 * });
 * ```
 */
export function getAgentToolContext(context: ToolContext): AgentToolControls | undefined {
  const value = context.data?.[AGENT_TOOL_CONTEXT_KEY];
  return value !== null && typeof value === 'object' && typeof (value as AgentToolControls).finish === 'function'
    ? (value as AgentToolControls)
    : undefined;
}
