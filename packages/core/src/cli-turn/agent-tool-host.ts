import type { AnyTool } from '../tools/define-tool';
import type { McpHttpServerConfig } from '../adapter/v1/mcp-server-config';

/** Name of the MCP server that carries a member's Troupe `tools` in its CLI's configuration. */
export const TROUPE_TOOL_SERVER_NAME = 'troupe';

/** What {@link AgentToolHost.serve} needs besides the tools. */
export interface AgentToolServeOptions {
  /** Role whose CLI will call the tools (named in errors and logs). */
  roleId: string;
  /** Given to every tool call as `context.workspaceRoot` (the member's work directory). */
  workspaceRoot?: string;
  /** Given to every tool call as `context.data` (the member's `toolData`). */
  data?: Readonly<Record<string, unknown>>;
  /** Stops serving when aborted. */
  signal?: AbortSignal;
}

/** A running server of Troupe tools, reachable by the agent CLI. */
export interface AgentToolServer {
  /** The MCP server entry the adapter writes into its CLI's configuration (URL and auth header). */
  readonly config: McpHttpServerConfig;
  /** Aborts the tool calls in flight: the turn that made them ended (canceled, timed out, or done). */
  cancelCalls?(reason?: unknown): void;
  /** Stops serving: in-flight tool calls are aborted. Calling it twice is harmless. */
  close(): Promise<void>;
}

/**
 * Serves Troupe tools to agent CLIs over MCP. `AgentManager` uses one to run
 * the `tools` of a member's config; `@troupe/mcp`'s `createMcpToolHost()`
 * implements it (core itself speaks no protocol).
 */
export interface AgentToolHost {
  /** Starts serving `tools` for one member. */
  serve(tools: readonly AnyTool[], options: AgentToolServeOptions): Promise<AgentToolServer>;
}
