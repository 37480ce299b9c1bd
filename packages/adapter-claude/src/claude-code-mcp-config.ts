import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, isMcpHttpServer, mcpServerSecrets, type McpServers } from '@troupe/core';
import { TROUPE_TOOL_SERVER_NAME } from '@troupe/core/cli-turn';

/** The arguments that give Claude Code a member's MCP servers, and the file they name. */
export interface ClaudeCodeMcpArgs {
  args: string[];
  /** Header and env values to redact. */
  secrets: string[];
  /** Removes the config file (after the turn's process exited). */
  cleanup: (() => Promise<void>) | undefined;
}

/**
 * Writes a member's MCP servers to a private `mcp.json` (mode 0600, so
 * tokens never sit on the command line) and returns the arguments, as
 * checked against Claude Code 2.1.330:
 *
 * - `--mcp-config=<file>`: the `=` form, because the flag is variadic and
 *   would swallow the next argument;
 * - `--allowedTools=mcp__<a>,mcp__<b>` for the trusted servers: in `-p` mode
 *   nobody can approve a tool, and MCP tools are denied by default
 *   (`permission_denied`, "Claude requested permissions to use mcp__…");
 * - `alwaysLoad: true` on the server of the member's Troupe tools, so the
 *   model sees them in its tool list instead of deferred behind ToolSearch.
 *
 * Tools reach the model as `mcp__<server>__<tool>`.
 *
 * @throws ConfigError for a stdio server with `cwd` (Claude Code's MCP config has no working directory).
 */
export async function claudeCodeMcpArgs(servers: McpServers | undefined, tmpDir: string | undefined): Promise<ClaudeCodeMcpArgs> {
  const entries = Object.entries(servers ?? {});
  if (entries.length === 0) return { args: [], secrets: [], cleanup: undefined };
  const config: Record<string, unknown> = {};
  for (const [name, server] of entries) {
    const alwaysLoad = name === TROUPE_TOOL_SERVER_NAME ? { alwaysLoad: true } : {};
    if (isMcpHttpServer(server)) {
      config[name] = { type: 'http', url: server.url, ...(server.headers ? { headers: server.headers } : {}), ...alwaysLoad };
      continue;
    }
    if (server.cwd !== undefined) {
      throw new ConfigError('member config', [
        { path: ['mcpServers', name, 'cwd'], message: 'Claude Code cannot start an MCP server in another directory (its MCP config has no cwd); remove cwd or make the command change directory itself' },
      ]);
    }
    config[name] = { type: 'stdio', command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}), ...alwaysLoad };
  }
  const dir = await mkdtemp(join(tmpDir ?? tmpdir(), 'troupe-claude-mcp-'));
  const file = join(dir, 'mcp.json');
  await writeFile(file, `${JSON.stringify({ mcpServers: config }, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
  const trusted = entries.filter(([, server]) => server.trust !== false).map(([name]) => `mcp__${name}`);
  return {
    args: [`--mcp-config=${file}`, ...(trusted.length > 0 ? [`--allowedTools=${trusted.join(',')}`] : [])],
    secrets: entries.flatMap(([, server]) => mcpServerSecrets(server)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
