import { isMcpHttpServer, type McpServers } from '@troupe/core';

/** An MCP server as ACP's `session/new` takes it. */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { type: 'http'; name: string; url: string; headers: Array<{ name: string; value: string }> };

/**
 * A member's MCP servers in ACP's form (the `mcpServers` of `session/new`):
 * stdio `{ name, command, args, env: [{ name, value }] }`, HTTP
 * `{ type: 'http', name, url, headers: [{ name, value }] }`. ACP has no
 * working directory or trust per server: `cwd` is refused by the adapter,
 * and permission requests for the servers' tools go to `canUseTool`.
 */
export function acpMcpServers(servers: McpServers | undefined): AcpMcpServer[] {
  const pairs = (record: Record<string, string> | undefined) => Object.entries(record ?? {}).map(([name, value]) => ({ name, value }));
  return Object.entries(servers ?? {}).map(([name, server]) =>
    isMcpHttpServer(server)
      ? { type: 'http', name, url: server.url, headers: pairs(server.headers) }
      : { name, command: server.command, args: server.args ?? [], env: pairs(server.env) },
  );
}
