import { ConfigError, type ConfigIssue } from '../errors/config-error';
import { readConfigFile } from '../util/read-config-file';
import { mcpServersSchema, type McpServers } from '../adapter/v1/mcp-server-config';

/** Options of {@link parseMcpConfig} and {@link loadMcpConfigFile}. */
export interface ParseMcpConfigOptions {
  /** Named in errors (a file path). Default `'MCP config'`. */
  source?: string;
  /**
   * Variables for `${NAME}` and `${NAME:-default}` in string values, as in
   * Claude Code's `.mcp.json`. Default `process.env`. Pass `false` to leave
   * the text as written.
   */
  env?: Readonly<Record<string, string | undefined>> | false;
  /** Cancels reading the file. */
  signal?: AbortSignal;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Reads the `mcpServers` of a `.mcp.json`-style configuration (the format of
 * Claude Code's project file, also what Cursor and others write):
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 *     "docs": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${DOCS_TOKEN}" } } } }
 * ```
 *
 * A bare object of servers (without the `mcpServers` wrapper) is accepted
 * too. `${NAME}` / `${NAME:-default}` in any string are replaced from `env`.
 *
 * @throws ConfigError naming each bad field (`mcpServers.docs.url: …`) or
 * each variable that is not set and has no default.
 */
export function parseMcpConfig(input: unknown, options: ParseMcpConfigOptions = {}): McpServers {
  const source = options.source ?? 'MCP config';
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(source, [{ path: [], message: 'expected a JSON object with "mcpServers"' }]);
  }
  const record = input as Record<string, unknown>;
  const wrapped = 'mcpServers' in record;
  const servers = wrapped ? record.mcpServers : record;
  const prefix = wrapped ? ['mcpServers'] : [];
  const issues: ConfigIssue[] = [];
  const env = options.env === undefined ? process.env : options.env;
  const expanded = env === false ? servers : expandVariables(servers, env, prefix, issues);
  if (issues.length > 0) throw new ConfigError(source, issues);
  const parsed = mcpServersSchema.safeParse(expanded);
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error, prefix);
  return parsed.data;
}

/**
 * Reads and validates a `.mcp.json`-style file (see {@link parseMcpConfig}).
 *
 * @example
 * ```ts
 * const mcpServers = await loadMcpConfigFile('.mcp.json');
 * await manager.ensureAgentStarted('coder', 'claude', { workDir: '/repo', mcpServers });
 * ```
 *
 * @throws ConfigError when the file is missing, not JSON, or invalid.
 */
export async function loadMcpConfigFile(path: string, options: ParseMcpConfigOptions = {}): Promise<McpServers> {
  const source = options.source ?? path;
  const json = await readConfigFile(path, { source, ...(options.signal ? { signal: options.signal } : {}) });
  return parseMcpConfig(json, { ...options, source });
}

function expandVariables(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  path: (string | number)[],
  issues: ConfigIssue[],
): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      issues.push({ path, message: `uses \${${name}}, which is not set (set it, or write \${${name}:-default})` });
      return match;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => expandVariables(item, env, [...path, index], issues));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandVariables(item, env, [...path, key], issues)]));
  }
  return value;
}
