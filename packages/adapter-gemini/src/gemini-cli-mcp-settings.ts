import { isMcpHttpServer, type McpServers } from '@troupe/core';
import { updateGeminiCliSettings, type JsonObject } from './gemini-cli-home';

/**
 * A member's MCP servers in Gemini CLI's `settings.json` form, as checked
 * against Gemini CLI 0.61.0: stdio `{ command, args, env, cwd }`, Streamable
 * HTTP `{ httpUrl, headers }`, and `trust` (default true). In headless mode
 * Gemini offers an untrusted server's tools to the model only with `--yolo`;
 * trusted ones are offered and run without confirmation. The model sees them
 * as `mcp_<server>_<tool>`.
 */
export function geminiCliMcpServers(servers: McpServers): JsonObject {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => {
      const trust = server.trust !== false;
      if (isMcpHttpServer(server)) return [name, { httpUrl: server.url, ...(server.headers ? { headers: server.headers } : {}), trust }];
      return [
        name,
        {
          command: server.command,
          ...(server.args ? { args: server.args } : {}),
          ...(server.env ? { env: server.env } : {}),
          ...(server.cwd ? { cwd: server.cwd } : {}),
          trust,
        },
      ];
    }),
  );
}

/**
 * Puts a member's MCP servers into `<home>/.gemini/settings.json` (the
 * settings file is mode 0600: it may hold tokens). Servers written by an
 * earlier turn (`managed`) and gone now are removed; servers the file had
 * before, under other names, stay. Returns the names now managed.
 *
 * @internal
 */
export async function writeGeminiCliMcpServers(home: string, servers: McpServers, managed: ReadonlySet<string>): Promise<Set<string>> {
  const names = new Set(Object.keys(servers));
  if (names.size === 0 && managed.size === 0) return names;
  await updateGeminiCliSettings(home, (existing) => {
    const current = typeof existing.mcpServers === 'object' && existing.mcpServers !== null ? (existing.mcpServers as JsonObject) : {};
    const kept = Object.fromEntries(Object.entries(current).filter(([name]) => !managed.has(name) && !names.has(name)));
    const mcpServers = { ...kept, ...geminiCliMcpServers(servers) };
    const { mcpServers: _old, ...rest } = existing;
    return Object.keys(mcpServers).length > 0 ? { ...rest, mcpServers } : rest;
  });
  return names;
}
