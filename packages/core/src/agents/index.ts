// The RunnableAgent contract and the agent/task event contracts; re-exported from the package root.
// defineAgent, AgentRegistry and the Executor are in `@troupe/core/agent-runtime`.
export type { AgentContext, AgentOutput, AgentSinks, ExecutionHandle, RunnableAgent } from './runnable-agent';
export { agentEventSchemas, taskFailureStatusSchema } from './agent-event-schemas';
