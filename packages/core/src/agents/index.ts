// Runnable agents, agent registry and executor (seed 000); re-exported from the package root.
// The task manager moved to `@troupe/looper`, its only user; its `task:*` event contracts stay here.
export type { AgentContext, AgentOutput, AgentSinks, ExecutionHandle, RunnableAgent } from './runnable-agent';
export {
  AGENT_ID_PATTERN,
  defineAgent,
  startExecution,
  type AgentRunContext,
  type RunnableAgentDefinition,
} from './define-agent';
export { AgentRegistry } from './agent-registry';
export { AgentNotFoundError } from './agent-not-found-error';
export { Executor, type ExecutionResult, type ExecutorOptions } from './agent-executor';
export { createAdapterAgent, type AdapterAgentData, type AdapterAgentOptions } from './adapter-agent';
export { agentEventSchemas, taskFailureStatusSchema } from './agent-event-schemas';
