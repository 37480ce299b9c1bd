import type { AgentToolHost, AgentToolServer } from '@troupe/core/cli-turn';
import type { McpServedToolCall } from './mcp-server-for-tools';
import { startMcpToolServer } from './mcp-tool-server';

/** Options of {@link createMcpToolHost}. */
export interface McpToolHostOptions {
  /** Called after each tool call an agent CLI makes, with the role that made it (logs, tests). */
  onToolCall?: (call: McpServedToolCall & { roleId: string }) => void;
}

/**
 * The tool host `AgentManager` needs to give members' Troupe `tools` to their
 * CLIs: each member gets its own MCP server (Streamable HTTP on 127.0.0.1,
 * bearer token), started on its first turn and closed with the member. The
 * adapter writes it into the CLI's configuration as the server `troupe`
 * (Claude Code `mcp__troupe__<tool>`, Codex namespace `mcp__troupe`, Gemini
 * CLI `mcp_troupe_<tool>`).
 *
 * @example
 * ```ts
 * const manager = new AgentManager({ toolHost: createMcpToolHost() });
 * await manager.ensureAgentStarted('coder', 'claude', {
 *   workDir: '/repo',
 *   tools: [createQueryLooperStateTool({ executor })],
 * });
 * await manager.sendAndReceive('coder', 'Check the Looper state, then go on with the task');
 * ```
 */
export function createMcpToolHost(options: McpToolHostOptions = {}): AgentToolHost {
  return {
    async serve(tools, serveOptions): Promise<AgentToolServer> {
      const { onToolCall } = options;
      const server = await startMcpToolServer({
        tools,
        ...(serveOptions.workspaceRoot !== undefined ? { workspaceRoot: serveOptions.workspaceRoot } : {}),
        ...(serveOptions.data !== undefined ? { data: serveOptions.data } : {}),
        ...(serveOptions.signal !== undefined ? { signal: serveOptions.signal } : {}),
        ...(onToolCall ? { onToolCall: (call: McpServedToolCall) => onToolCall({ ...call, roleId: serveOptions.roleId }) } : {}),
      });
      return { config: server.config, cancelCalls: (reason) => server.cancelCalls(reason), close: () => server.close() };
    },
  };
}
