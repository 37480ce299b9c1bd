// Any Agent Client Protocol agent by command, on the official @agentclientprotocol/sdk.
export { createAcpAdapter, type AcpAdapter } from './acp-adapter';
export { resolveAcpAdapterSettings, type AcpAdapterSettings, type AcpTurnPreparation, type ResolvedAcpAdapterSettings } from './acp-adapter-settings';
export { createAcpAdapterPlugin, registerAcpAdapter, type AcpAdapterPluginSettings } from './acp-plugin';
export { readAcpRegistryEntry, type AcpRegistrySettings } from './acp-registry-entry';
export {
  askInTerminal,
  permissionOutcome,
  type AcpCanUseTool,
  type AcpPermissionAnswer,
  type AcpPermissionOption,
  type AcpPermissionRequest,
  type AskInTerminalOptions,
} from './acp-permissions';
export { ACP_COMPLETION_TYPES, AcpStreamParser, acpToolName, parseAcpResponse } from './acp-stream-parser';
export { acpMcpServers, type AcpMcpServer } from './acp-mcp-servers';
export { acpEventSchemas, registerAcpEvents, type AcpEventPayloads } from './acp-events';
