// `@troupe/core/agent-runtime`: define a RunnableAgent, register agents by id and run them with the
// Executor (seed 000). The contract (`RunnableAgent`, `AgentContext`…) is in the package root.
export { AGENT_ID_PATTERN, defineAgent, startExecution, type AgentRunContext, type RunnableAgentDefinition } from './define-agent';
export { AgentRegistry } from './agent-registry';
export { AgentNotFoundError } from './agent-not-found-error';
export { Executor, type ExecutionResult, type ExecutorOptions } from './agent-executor';
