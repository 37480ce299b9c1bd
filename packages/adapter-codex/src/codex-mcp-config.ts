import { ConfigError, isMcpHttpServer, mcpServerSecrets, type McpServers } from '@troupe/core';
import { isSecretEnvName } from '@troupe/core/util';
import { toTomlString } from './codex-toml';

/** The `-c mcp_servers.…` overrides of one Codex turn, and the variables they read. */
export interface CodexMcpConfig {
  /** `-c key=value` pairs, flattened. */
  args: string[];
  /** Variables to set in Codex's environment (header and secret values, read through `env_http_headers` / `env_vars`). */
  env: Record<string, string>;
  /** Values to redact. */
  secrets: string[];
}

/** Options of {@link codexMcpConfig}. */
export interface CodexMcpConfigOptions {
  /**
   * Every server's tools get approval mode `prompt` (trusted or not), so Codex asks its client before each MCP tool
   * call (an `mcpServer/elicitation/request` over app-server): set when a permission callback decides every call.
   */
  askEveryCall?: boolean;
}

/** How long Codex waits for each MCP server to start and list its tools, in seconds. */
export const CODEX_MCP_STARTUP_TIMEOUT_SEC = 60;

/**
 * Codex `-c` overrides for a member's MCP servers, as checked against Codex
 * 0.169.0 (`mcp_servers.<name>.…` in its config.toml):
 *
 * - stdio: `command`, `args`, `cwd`, plain `env` values inline; values whose
 *   names look secret (core's `isSecretEnvName`) go through `env_vars` (Codex passes those variables from
 *   its own environment), so they never appear on the command line;
 * - HTTP: `url`, and headers through `env_http_headers` (header → variable
 *   name), the values in Codex's environment, never on the command line;
 * - every server `required = true`: Codex waits for it before the first model
 *   request and fails the turn when it cannot start, instead of running the
 *   turn without its tools;
 * - with `askEveryCall` (permissions set, app-server): every server `default_tools_approval_mode="prompt"`, so
 *   Codex asks before each call (a tool annotated `readOnlyHint` included, which `auto` runs unasked) and Troupe
 *   decides it;
 * - otherwise trusted servers (the default): `default_tools_approval_mode="approve"`.
 *   `codex exec` runs with approval policy `never`, which otherwise fails
 *   every MCP call ("MCP tool call requires approval, but approval policy is
 *   never").
 *
 * Codex offers each server's tools in a namespace `mcp__<name>` (deferred
 * behind `tool_search` for models that search tools, such as `gpt-5.5`).
 *
 * @throws ConfigError when two servers need one variable name with different values.
 */
export function codexMcpConfig(servers: McpServers | undefined, options: CodexMcpConfigOptions = {}): CodexMcpConfig {
  const args: string[] = [];
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, server] of Object.entries(servers ?? {})) {
    const key = (field: string) => `mcp_servers.${name}.${field}`;
    const set = (field: string, value: string) => args.push('-c', `${key(field)}=${value}`);
    secrets.push(...mcpServerSecrets(server));
    if (isMcpHttpServer(server)) {
      set('url', toTomlString(server.url));
      const headers = Object.entries(server.headers ?? {});
      if (headers.length > 0) {
        const mapping = headers.map(([header], index) => {
          const variable = `TROUPE_MCP_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_HEADER_${index}`;
          env[variable] = headers[index]?.[1] as string;
          return `${toTomlString(header)}=${toTomlString(variable)}`;
        });
        set('env_http_headers', `{${mapping.join(',')}}`);
      }
    } else {
      set('command', toTomlString(server.command));
      if (server.args && server.args.length > 0) set('args', `[${server.args.map(toTomlString).join(',')}]`);
      if (server.cwd !== undefined) set('cwd', toTomlString(server.cwd));
      const entries = Object.entries(server.env ?? {});
      const inline = entries.filter(([variable]) => !isSecretEnvName(variable));
      const passed = entries.filter(([variable]) => isSecretEnvName(variable));
      if (inline.length > 0) set('env', `{${inline.map(([variable, value]) => `${toTomlString(variable)}=${toTomlString(value)}`).join(',')}}`);
      if (passed.length > 0) {
        for (const [variable, value] of passed) {
          if (env[variable] !== undefined && env[variable] !== value) {
            throw new ConfigError('member config', [
              { path: ['mcpServers', name, 'env', variable], message: `another MCP server sets ${variable} to a different value; Codex passes secret variables from its one environment, so give them different names` },
            ]);
          }
          env[variable] = value;
        }
        set('env_vars', `[${passed.map(([variable]) => toTomlString(variable)).join(',')}]`);
      }
    }
    // A slow server (npx, a loaded machine) still makes it into the turn's tool list. Without
    // `required`, Codex 0.169.0 may send the first model request before a stdio server has listed its
    // tools, and the turn runs silently without them (2 of 10 runs of server-filesystem on a loaded
    // machine); with it, Codex waits for the server and fails the turn if it cannot start.
    set('startup_timeout_sec', String(CODEX_MCP_STARTUP_TIMEOUT_SEC));
    set('required', 'true');
    if (options.askEveryCall === true) set('default_tools_approval_mode', '"prompt"');
    else if (server.trust !== false) set('default_tools_approval_mode', '"approve"');
  }
  return { args, env, secrets };
}
