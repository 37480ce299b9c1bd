// Runnable agents, agent registry, executor and task manager (seed 000); re-exported from the package root.
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
export {
  TaskEmitter,
  TaskManager,
  waitForCompletion,
  type BackgroundTask,
  type BackgroundTaskStatus,
  type StartBackgroundOptions,
  type TaskEvents,
  type TaskManagerOptions,
} from './task-manager';
export { createAdapterAgent, type AdapterAgentData, type AdapterAgentOptions } from './adapter-agent';
export { agentEventSchemas, taskFailureStatusSchema } from './agent-event-schemas';
