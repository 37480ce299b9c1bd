// @troupe/orchestrator: the agent tree orchestrator of seed 004 (Mutsumi root module), host-agnostic.
export { AgentOrchestrator } from './agent-orchestrator';
export {
  DEFAULT_MAX_CONCURRENCY,
  type AgentOrchestratorOptions,
  type ForkContext,
  type ResumeOptions,
  type RunAgentOptions,
} from './agent-orchestrator-options';
export { CLI_AGENT_STRATEGY_TYPE, type CliAgentOptions, type RunCliAgentOptions } from './agent-cli-options';
export type { CliAgentSpec } from './cli-agent-spec';
export { getDefaultOrchestrator, setDefaultOrchestrator } from './default-orchestrator';
export type {
  AgentInfo,
  AgentRunResult,
  AgentRuntimeStatus,
  AgentStatusChange,
  AgentTaskContext,
  AgentTerminalStatus,
  AgentTreeNode,
  AgentTreeSnapshot,
  ForkResult,
  OrchestratorResumeReport,
  SubAgentResult,
  SubAgentSpec,
} from './orchestrator-types';
export { AGENT_STATUS_TRANSITIONS, assertTransition, canTransition, isTerminalStatus } from './agent-status';
export {
  defineAgentStrategy,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_SUB_AGENT_STRATEGY,
  renderSystemPrompt,
  type AgentPromptVariables,
  type AgentRetryPolicy,
  type AgentStrategy,
} from './agent-strategy';
export { AgentRunner } from './agent-runner';
export type {
  AgentMarkupIssue,
  AgentRunnerOptions,
  AgentRunnerResult,
  AgentRunnerSinks,
  AgentRunnerState,
  AgentRunnerStep,
  AgentRunnerStopReason,
  AgentRunOptions,
  AgentToolCallInfo,
  AgentToolResultInfo,
} from './agent-runner-types';
export {
  AgentMarkupParser,
  type AgentMarkupEvent,
  type AgentMarkupIssueReason,
  type AgentMarkupParserOptions,
  type AgentMarkupSection,
} from './agent-markup-parser';
export { ToolManager, type AgentToolContext, type ToolManagerOptions } from './tool-manager';
export { createTaskFinishTool, TASK_FINISH_TOOL_NAME, type TaskFinishArgs } from './task-finish-tool';
export { createForkAgentsTool, FORK_AGENTS_TOOL_NAME, forkAgentsParameters, type ForkAgentsArgs } from './fork-agents-tool';
export {
  AGENT_TOOL_CONTEXT_KEY,
  getAgentToolContext,
  type AgentFinishRequest,
  type AgentForkCallOptions,
  type AgentToolControls,
} from './agent-tool-context';
export { FORK_RESULT_DIFF_LIMIT, formatForkResult, formatWorkspaceResult } from './agent-fork-format';
export type { AgentIsolation, AgentWorkspaceResult, AgentWorktreeIsolation } from './agent-isolation';
export { formatAgentTree, type FormatAgentTreeOptions } from './agent-tree-format';
export {
  AgentFailedError,
  AgentTerminatedError,
  AgentTimeoutError,
  IllegalStatusTransitionError,
  OrchestratorSessionError,
  UnknownAgentError,
} from './orchestrator-errors';
export { orchestratorEventSchemas, registerOrchestratorEvents, type OrchestratorEventPayloads } from './orchestrator-events';
