import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { executeTool, InvalidArgumentError, TOOL_NAME_PATTERN, type AnyTool, type ToolContext, type ToolResult } from '@troupe/core';
import { MCP_PACKAGE_VERSION } from './mcp-version';

/** One finished tool call, as reported to {@link McpToolsServerOptions.onToolCall}. */
export interface McpServedToolCall {
  toolName: string;
  toolCallId: string;
  input: unknown;
  result: ToolResult;
  durationMs: number;
}

/** Options of {@link createMcpServerForTools}. */
export interface McpToolsServerOptions {
  /** The server's name in the handshake. Default `troupe`. */
  name?: string;
  /** Given to every call as `context.workspaceRoot`. */
  workspaceRoot?: string;
  /** Given to every call as `context.data`. */
  data?: Readonly<Record<string, unknown>>;
  /**
   * Aborts every call in flight when aborted (the server is going away); or a
   * function giving the signal for each new call.
   */
  signal?: AbortSignal | (() => AbortSignal);
  /** Called after each tool call (for logs and tests). A throwing callback is ignored. */
  onToolCall?: (call: McpServedToolCall) => void;
}

/**
 * An MCP server (the SDK's `Server`) that offers Troupe tools: `tools/list`
 * gives each tool's name, description and JSON Schema; `tools/call` runs it
 * through core's `executeTool` (arguments validated with its zod schema,
 * failures and thrown errors turned into `isError` results the model reads,
 * secrets redacted), with an abort signal that fires when the client cancels
 * the request or `signal` aborts. Connect it to any SDK server transport
 * (stdio, Streamable HTTP); {@link startMcpToolServer} does it over HTTP.
 *
 * @throws InvalidArgumentError for a list that holds something other than
 * tools, or two tools with one name.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * await createMcpServerForTools([getWeatherTool]).connect(new StdioServerTransport());
 * ```
 */
export function createMcpServerForTools(tools: readonly AnyTool[], options: McpToolsServerOptions = {}): Server {
  const byName = indexTools(tools);
  const server = new Server({ name: options.name ?? 'troupe', version: MCP_PACKAGE_VERSION }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...byName.values()].map((tool) => ({ name: tool.name, description: tool.description, inputSchema: { ...tool.inputSchema, type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    const tool = byName.get(name);
    if (!tool) return errorResult(`Unknown tool "${name}"; available: ${[...byName.keys()].join(', ') || '(none)'}`);
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const claudeToolUseId = meta?.['claudecode/toolUseId'];
    const outer = typeof options.signal === 'function' ? options.signal() : options.signal;
    const abortSignal = outer ? AbortSignal.any([extra.signal, outer]) : extra.signal;
    const context: ToolContext = {
      toolCallId: typeof claudeToolUseId === 'string' ? claudeToolUseId : String(extra.requestId),
      toolName: name,
      abortSignal,
      ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
      ...(options.data !== undefined ? { data: options.data } : {}),
    };
    const started = Date.now();
    const result = await executeTool(tool, input ?? {}, context);
    try {
      options.onToolCall?.({ toolName: name, toolCallId: context.toolCallId, input, result, durationMs: Date.now() - started });
    } catch {
      // a reporting callback never changes the result
    }
    return result.success ? { content: [{ type: 'text', text: result.content }] } : errorResult(result.content);
  });
  return server;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function indexTools(tools: readonly AnyTool[]): Map<string, AnyTool> {
  if (!Array.isArray(tools)) throw new InvalidArgumentError('tools', 'expected an array of tools made by defineTool()');
  const byName = new Map<string, AnyTool>();
  tools.forEach((tool, index) => {
    if (tool === null || typeof tool !== 'object' || typeof tool.execute !== 'function' || typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
      throw new InvalidArgumentError(`tools[${index}]`, 'expected a tool made by defineTool()');
    }
    if (byName.has(tool.name)) throw new InvalidArgumentError(`tools[${index}]`, `two tools are named "${tool.name}"`);
    byName.set(tool.name, tool);
  });
  return byName;
}
