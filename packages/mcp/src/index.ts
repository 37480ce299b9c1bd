// MCP client: any MCP server's tools as Troupe tools.
export { connectMcpServer, type ConnectMcpServerOptions, type McpToolset } from './mcp-connect';
export { MCP_DEFAULT_CALL_TIMEOUT_MS, toTroupeTools, troupeToolName, type McpToolConversionOptions } from './mcp-client-tools';
export { mcpResultText } from './mcp-tool-result';
export { McpStdioTransport, type McpStdioTransportOptions } from './mcp-stdio-transport';

// MCP server: Troupe tools for agent CLIs and any MCP client.
export { createMcpServerForTools, type McpServedToolCall, type McpToolsServerOptions } from './mcp-server-for-tools';
export { startMcpToolServer, type McpToolServer, type StartMcpToolServerOptions } from './mcp-tool-server';
export { createMcpToolHost, type McpToolHostOptions } from './mcp-tool-host';

export { McpError } from './mcp-error';
export { MCP_PACKAGE_VERSION } from './mcp-version';
