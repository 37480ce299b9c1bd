import { executeTool, type AnyTool } from '../tools/define-tool';
import { ToolError } from '../tools/tool-error';
import type { LoopTool } from '../loop/loop-stage';

/**
 * A Troupe tool (from `defineTool`, a workspace tool, an MCP server's tool
 * through `@troupe/mcp`…) as a tool the `AgentLoop` Act phase can call:
 * same name and description, arguments validated by the tool's schema, the
 * Act call's signal passed on. A failed call (invalid input, a thrown error,
 * an error result) fails the Act call with a `ToolError`; a successful one
 * returns the text the tool produced.
 *
 * @example
 * ```ts
 * await using files = await connectMcpServer({ command: 'mcp-server-filesystem', args: ['.'] });
 * loop.use(...files.tools.map((tool) => toLoopTool(tool)));
 * ```
 */
export function toLoopTool(tool: AnyTool, options: { name?: string } = {}): LoopTool<unknown, string> {
  return Object.freeze({
    kind: 'tool' as const,
    name: options.name ?? tool.name,
    description: tool.description,
    async execute(input: unknown, context: { callId: string; signal: AbortSignal }): Promise<string> {
      const result = await executeTool(tool, input, { toolCallId: context.callId, toolName: tool.name, abortSignal: context.signal });
      if (!result.success) throw new ToolError(result.content, { toolName: tool.name });
      return result.content;
    },
  });
}
