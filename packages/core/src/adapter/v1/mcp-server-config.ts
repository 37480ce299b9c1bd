import { z } from 'zod';
import { secretValuesFromEnv } from '../../util/redact-secrets';

/**
 * Names of MCP servers: letters, digits, `-` and single `_` (the CLIs build
 * tool names from them: Claude Code `mcp__<server>__<tool>`, Codex the
 * namespace `mcp__<server>`, Gemini CLI `mcp_<server>_<tool>`, so `__` would
 * be ambiguous), 1 to 64 characters.
 */
export const MCP_SERVER_NAME_PATTERN = /^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;


/** An MCP server the agent CLI starts itself and talks to over stdio. */
export interface McpStdioServerConfig {
  /** Optional in `.mcp.json`; filled in when parsed. */
  type?: 'stdio';
  /** Executable name (looked up on `PATH`) or absolute path. */
  command: string;
  args?: string[];
  /** Environment of the server process (values that look secret are redacted from Troupe's errors and logs). */
  env?: Record<string, string>;
  /** Working directory of the server process. */
  cwd?: string;
  /** See {@link McpServerConfig}. */
  trust?: boolean;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  type: 'http';
  url: string;
  /** Request headers, e.g. `{ Authorization: 'Bearer …' }` (values that look secret are redacted from Troupe's errors and logs). */
  headers?: Record<string, string>;
  /** See {@link McpServerConfig}. */
  trust?: boolean;
}

/**
 * One MCP server, as in a `.mcp.json` file: stdio (`command`) or Streamable
 * HTTP (`type: "http"`, `url`).
 *
 * `trust`: whether the agent CLI may call the server's tools without asking.
 * In headless turns nobody can answer a prompt, so an untrusted server's
 * tools are refused (Claude Code, Codex) or not offered at all (Gemini CLI).
 * Default `true`: naming a server in the member's config is the approval.
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** MCP servers by name (the `mcpServers` object of a `.mcp.json` file). */
export type McpServers = Record<string, McpServerConfig>;

const trust = z.boolean().optional();

const stdioSchema = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().trim().min(1, 'expected a command name or path'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  trust,
});

const httpSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8080/mcp' }),
  headers: z.record(z.string(), z.string()).optional(),
  trust,
});

function withType(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  return record.type === undefined ? { ...record, type: 'command' in record || !('url' in record) ? 'stdio' : 'http' } : value;
}

/**
 * Validates one MCP server entry (a missing `type` means stdio, or http when
 * only `url` is given). SSE servers are refused: the CLIs dropped the
 * transport; serve Streamable HTTP.
 */
export const mcpServerConfigSchema: z.ZodType<McpServerConfig, unknown> = z.preprocess(
  withType,
  z.discriminatedUnion('type', [stdioSchema, httpSchema], {
    error: (issue) =>
      issue.code === 'invalid_union' && (issue.input as { type?: unknown } | undefined)?.type === 'sse'
        ? 'SSE servers are not supported (deprecated by MCP); use a Streamable HTTP server { type: "http", url }'
        : 'expected a stdio server { command, args?, env? } or an HTTP server { type: "http", url, headers? }',
  }),
);

/** MCP servers by name (the `mcpServers` object of a `.mcp.json` file). */
export const mcpServersSchema: z.ZodType<McpServers, unknown> = z.record(z.string(), mcpServerConfigSchema).superRefine(
  (servers, context) => {
    for (const name of Object.keys(servers)) {
      if (!MCP_SERVER_NAME_PATTERN.test(name)) {
        context.addIssue({ code: 'custom', path: [name], message: `invalid server name ${JSON.stringify(name)}: use 1-64 letters, digits, "-" or "_" (no "__")` });
      }
    }
  },
  // Checked even when an entry is invalid too, so every problem is named at once.
  { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
);

/** True for an HTTP server entry. */
export function isMcpHttpServer(server: McpServerConfig): server is McpHttpServerConfig {
  return server.type === 'http';
}

/**
 * Values of a server's configuration that must never appear in Troupe's
 * events, logs or errors: env values and headers whose names look secret
 * (`*_KEY`, `*TOKEN*`, `Authorization`…), and the credentials of an
 * `Authorization: Bearer …` header on their own.
 */
export function mcpServerSecrets(server: McpServerConfig): string[] {
  if (!isMcpHttpServer(server)) return secretValuesFromEnv(server.env);
  return secretValuesFromEnv(server.headers).flatMap((value) => {
    const credentials = /^(?:Bearer|Basic)\s+(\S.*)$/i.exec(value)?.[1];
    return credentials === undefined ? [value] : [value, credentials];
  });
}
