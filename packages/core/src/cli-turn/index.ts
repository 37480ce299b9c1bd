// `@troupe/core/cli-turn`: running a coding-agent CLI's turn — AgentManager (agents by name, turns,
// sessions, per-role tool servers), the adapter plugin registry, the generic adapter, ProcessManager and
// AgentProcess with process containment (`process/`), and the registry config format (`registry/`).
// The contracts it runs (AgentAdapter v1, stream parts, CompletionStrategy) are in the package root.

// Agents and turns
export {
  AgentManager,
  type AgentDefinitionSource,
  type AgentInstance,
  type AgentManagerOptions,
  type AgentSendOptions,
  type AgentTurn,
  type AgentTurnResult,
  type AgentPermissionDenial,
  type AgentObjectResult,
  type AgentReceiveObjectOptions,
} from './agent-manager';
export { dropNullOptionals, resolveOutputSchema, type AgentOutputOf, type AgentOutputSchema, type ResolvedOutputSchema } from './agent-structured-output';
export type { AgentSessionOptions } from './agent-session-options';
export { AdapterRegistry, defaultAdapterRegistry, registerAdapter, type AgentAdapterPlugin } from './adapter-registry';
export { createGenericAdapter } from './generic-adapter';
export { createAdapterAgent, type AdapterAgentData, type AdapterAgentOptions } from './adapter-agent';
export {
  TROUPE_TOOL_SERVER_NAME,
  type AgentToolHost,
  type AgentToolServeOptions,
  type AgentToolServer,
} from './agent-tool-host';
export { loadMcpConfigFile, parseMcpConfig, type ParseMcpConfigOptions } from './mcp-config-file';

// Processes and their containment
export { AgentProcess, runProcess, type ProcessRun, type RunOptions } from './process/agent-process';
export { outputOrThrow, ProcessManager, type ProcessManagerOptions, type SendOptions } from './process/process-manager';
export type { ExitInfo, OutputLine, ProcessOutcome, ProcessOutcomeBase } from './process/process-outcome';
export * from './process/process-groups';

// The registry config format (seed 001 §2)
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
export {
  readRegistryAgentSettings,
  registryPolicySettings,
  withCompletionStrategy,
  type RegistryAdapterFacts,
  type RegistryAgentSettings,
} from './registry/registry-agent-settings';
