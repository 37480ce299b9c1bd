import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AbortError, InvalidArgumentError, TOOL_NAME_PATTERN, ToolError, type AnyTool, type JsonSchema, type ToolContext, type ToolScope } from '@troupe/core';
import { z } from 'zod';
import { mcpResultText } from './mcp-tool-result';

/** How MCP tools become Troupe tools. */
export interface McpToolConversionOptions {
  /** Server name, in error messages. */
  serverName: string;
  /** Added before every tool name (e.g. `files_`), so tools of several servers never clash. Default none. */
  toolNamePrefix?: string;
  /** Scope of the tools in a `ToolRegistry`. Default `common`. */
  scope?: ToolScope;
  /** Longest wait for one call, in ms; progress notifications from the server restart it. Default 600 000 (10 min). */
  callTimeoutMs?: number;
}

/** Default of {@link McpToolConversionOptions.callTimeoutMs}. */
export const MCP_DEFAULT_CALL_TIMEOUT_MS = 600_000;

/** Arguments are an object; the server validates them against its own JSON Schema. */
const argumentsSchema = z.record(z.string(), z.unknown());

/**
 * Troupe tools for the tools an MCP server lists: same description and JSON
 * Schema (sent to models as is), a name made valid for every provider
 * (`^[a-zA-Z0-9_-]{1,64}$`, prefixed when asked), and an `execute` that calls
 * the server with the run's abort signal. A result the server marks
 * `isError` becomes a {@link ToolError}, which the model reads as a failed call.
 *
 * @throws InvalidArgumentError when two tools end up with the same name.
 */
export function toTroupeTools(client: Client, tools: readonly McpTool[], options: McpToolConversionOptions): AnyTool[] {
  const prefix = options.toolNamePrefix ?? '';
  if (prefix !== '' && !/^[a-zA-Z0-9_-]{1,32}$/.test(prefix)) {
    throw new InvalidArgumentError('toolNamePrefix', `expected 1-32 letters, digits, "_" or "-", got ${JSON.stringify(prefix)}`);
  }
  const seen = new Map<string, string>();
  return tools.map((tool) => {
    const name = troupeToolName(prefix, tool.name);
    const clash = seen.get(name);
    if (clash !== undefined) {
      throw new InvalidArgumentError(
        'tools',
        `MCP server "${options.serverName}" has tools "${clash}" and "${tool.name}", which both become "${name}"; give the server a toolNamePrefix or filter its tools`,
      );
    }
    seen.set(name, tool.name);
    return mcpTool(client, tool, name, options);
  });
}

function mcpTool(client: Client, tool: McpTool, name: string, options: McpToolConversionOptions): AnyTool {
  const description = tool.description?.trim() || tool.title || tool.annotations?.title || `MCP tool ${tool.name} (server ${options.serverName})`;
  const inputSchema = { ...tool.inputSchema } as JsonSchema;
  const timeout = options.callTimeoutMs ?? MCP_DEFAULT_CALL_TIMEOUT_MS;
  return Object.freeze({
    name,
    description,
    scope: options.scope ?? 'common',
    parameters: argumentsSchema as z.ZodType<unknown>,
    inputSchema,
    async execute(args: unknown, context: ToolContext): Promise<string> {
      AbortError.throwIfAborted(context.abortSignal, `MCP tool ${tool.name}`);
      let result;
      try {
        result = await client.callTool(
          { name: tool.name, arguments: args as Record<string, unknown> },
          undefined,
          { signal: context.abortSignal, timeout, resetTimeoutOnProgress: true },
        );
      } catch (error) {
        if (context.abortSignal.aborted) throw new AbortError(`MCP tool ${tool.name} was aborted`, { cause: context.abortSignal.reason });
        throw new ToolError(`MCP server "${options.serverName}" failed on ${tool.name}: ${(error as Error).message ?? String(error)}`, {
          toolName: name,
          cause: error,
        });
      }
      const text = mcpResultText(result as Parameters<typeof mcpResultText>[0]);
      if (result.isError === true) throw new ToolError(text || `${tool.name} failed`, { toolName: name });
      return text;
    },
  });
}

/** A provider-valid tool name: invalid characters become `_`, long names are cut to 64 characters. */
export function troupeToolName(prefix: string, mcpName: string): string {
  const name = `${prefix}${mcpName}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return TOOL_NAME_PATTERN.test(name) ? name : `${prefix}tool`;
}
