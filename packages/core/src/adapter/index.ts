// AgentAdapter v1: what a CLI agent plugin implements, the stream parts it emits, how a turn ends, and
// the member and MCP server settings it receives; re-exported from the package root.
export type { AgentAdapter, AgentAdapterCapabilities, AgentAdapterV1, AgentLineContext, AgentTurnStart } from './v1/agent-adapter-v1';
export { agentStreamPartSchema, agentUsageSchema, EMPTY_ANSWER_STOP_REASON, type AgentStreamPart, type AgentUsage } from './v1/agent-stream-part';
export { matchesCompletionType, serializableCompletionStrategySchema, type CompletionStrategy } from './v1/completion-strategy';
export type { ProcessConfig } from './v1/process-config';
export type { ProcessControl, ProcessControlIo, ProcessControlStart } from './v1/process-control';
export { memberAgentConfigSchema, type AgentTurnContext, type MemberAgentConfig } from './v1/member-agent-config';
export {
  isMcpHttpServer,
  MCP_SERVER_NAME_PATTERN,
  mcpServerConfigSchema,
  mcpServerSecrets,
  mcpServersSchema,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
} from './v1/mcp-server-config';
