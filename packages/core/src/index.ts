export { VERSION } from './version';

// Errors
export * from './errors/index';

// Events
export * from './events/index';
export { coreEventSchemas, serializedErrorSchema } from './events/event-map';
export { parseEvent, registerEventSchema, serializeEvent } from './events/event-schema-registry';
export { defineEventGroup } from './events/event-group';

// Usage and cost ledger, budgets
export * from './usage/index';

// Messages
export * from './messages/index';
export { messageInputSchema, messageRoleSchema, messageSchema } from './messages/message-schema';

// Processes
export { AgentProcess, runProcess, type ProcessRun, type RunOptions } from './process/agent-process';
export {
  matchesCompletionType,
  serializableCompletionStrategySchema,
  type CompletionStrategy,
} from './process/completion-strategy';
export { LineSplitter, parseJsonLine } from './process/line-splitter';
export type { ProcessConfig } from './process/process-config';
export { outputOrThrow, ProcessManager, type ProcessManagerOptions, type SendOptions } from './process/process-manager';
export type { ExitInfo, OutputLine, ProcessOutcome, ProcessOutcomeBase } from './process/process-outcome';
export * from './process/process-groups';

// Adapters
export type { AgentAdapter, AgentAdapterCapabilities, AgentAdapterV1, AgentLineContext, AgentTurnStart } from './adapter/v1/agent-adapter-v1';
export {
  agentStreamPartSchema,
  agentUsageSchema,
  type AgentStreamPart,
  type AgentUsage,
} from './adapter/v1/agent-stream-part';
export {
  memberAgentConfigSchema,
  type AgentTurnContext,
  type MemberAgentConfig,
} from './adapter/v1/member-agent-config';
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
} from './adapter/v1/mcp-server-config';
export { loadMcpConfigFile, parseMcpConfig, type ParseMcpConfigOptions } from './adapter/mcp-config-file';
export {
  TROUPE_TOOL_SERVER_NAME,
  type AgentToolHost,
  type AgentToolServeOptions,
  type AgentToolServer,
} from './adapter/agent-tool-host';
export {
  AdapterRegistry,
  defaultAdapterRegistry,
  registerAdapter,
  type AgentAdapterPlugin,
} from './adapter/adapter-registry';
export { createGenericAdapter } from './adapter/generic-adapter';
export {
  AgentManager,
  type AgentDefinitionSource,
  type AgentInstance,
  type AgentManagerOptions,
  type AgentSendOptions,
  type AgentTurn,
  type AgentTurnResult,
  type AgentPermissionDenial,
} from './adapter/agent-manager';

// Registry config
export {
  agentCapabilitiesSchema,
  agentDefinitionSchema,
  legacyRegistryConfigSchema,
  registryConfigSchema,
  type AgentCapabilities,
  type AgentDefinition,
  type LegacyRegistryConfig,
  type RegistryConfig,
} from './registry/registry-schema';
export {
  loadRegistryFile,
  parseRegistryConfig,
  resolveRegistryPaths,
  REGISTRY_SCHEMA_VERSION,
  type ParsedRegistry,
  type ParseRegistryOptions,
} from './registry/load-registry';
export { migrateRegistry, type MigrateRegistryOptions, type MigrateRegistryResult } from './registry/migrate-registry';
export type { RemovedSystemPrompt } from './registry/convert-legacy-registry';
export { knownAgentDefaults } from './registry/known-agent-defaults';
export {
  readRegistryAgentSettings,
  withCompletionStrategy,
  type RegistryAdapterFacts,
  type RegistryAgentSettings,
} from './registry/registry-agent-settings';

// Utilities
export * from './util/index';

// Store
export * from './store/index';

// Agent loop (Sense-Plan-Act-Reflect)
export * from './loop/index';

// Models and tools
export * from './model/index';
export * from './tools/index';

// Runnable agents, executor and background tasks
export * from './agents/index';
