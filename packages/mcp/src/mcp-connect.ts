import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import {
  AbortError,
  ConfigError,
  isMcpHttpServer,
  mcpServerConfigSchema,
  mcpServerSecrets,
  type AnyTool,
  type McpServerConfig,
  type ToolRegistry,
  type ToolScope,
} from '@troupe/core';
import { redactSecrets } from '@troupe/core/util';
import { toTroupeTools, type McpToolConversionOptions } from './mcp-client-tools';
import { McpError } from './mcp-error';
import { McpStdioTransport } from './mcp-stdio-transport';
import { MCP_PACKAGE_VERSION } from './mcp-version';

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpServerOptions extends Partial<Omit<McpToolConversionOptions, 'serverName'>> {
  /** Name of the server, in tool descriptions and errors. Default `mcp`. */
  name?: string;
  /**
   * Ties the server's lifetime to the caller's: when aborted, the connection
   * closes and a stdio server is stopped (its whole process group). Also
   * cancels the connection attempt.
   */
  signal?: AbortSignal;
  /** Longest wait for the handshake and the tool list, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Only these MCP tool names (before any prefix), or a filter. Default: every tool. */
  tools?: readonly string[] | ((tool: McpTool) => boolean);
  /**
   * Stdio servers: `safe` (default) passes only `HOME`, `PATH`, `SHELL`,
   * `TERM`, `USER`, `LOGNAME` from the host, plus the server's `env`; `all`
   * passes the whole host environment.
   */
  inheritEnv?: 'safe' | 'all';
  /** Stdio servers: receives their stderr (secret-looking env values redacted). */
  onStderr?: (text: string) => void;
  /** How this client introduces itself. Default `{ name: 'troupe', version }`. */
  clientInfo?: Implementation;
}

/**
 * A connected MCP server and its tools as Troupe tools. Close it (or abort
 * the signal given to {@link connectMcpServer}) when done; `await using`
 * closes it too.
 */
export interface McpToolset extends AsyncDisposable {
  /** The server's name (from the options). */
  readonly name: string;
  /** The server's tools as Troupe tools, ready for `runToolLoop`, a `ToolRegistry`, an `AgentLoop` or an orchestrator. */
  readonly tools: readonly AnyTool[];
  /** What the server said about itself in the handshake. */
  readonly serverInfo: Implementation | undefined;
  /** A stdio server's pid (also its process group id); `undefined` for HTTP. */
  readonly pid: number | undefined;
  /** The SDK client, for what Troupe does not wrap (resources, prompts). */
  readonly client: Client;
  /** Registers every tool in `registry` (in `scope`, default each tool's own); returns one function that unregisters them all. */
  registerInto(registry: ToolRegistry, scope?: ToolScope): () => void;
  /** Stops the connection (and a stdio server's process group). Calling it twice is harmless. */
  close(): Promise<void>;
}

/**
 * Connects to an MCP server — a command spoken to over stdio, or a
 * Streamable HTTP URL — lists its tools and returns them as Troupe tools.
 * The server lives until `close()`, or until `signal` aborts: tie it to the
 * run that uses it and no server process is left behind.
 *
 * @throws ConfigError for an invalid server entry.
 * @throws McpError when the server cannot be started or reached, or does not answer the handshake.
 * @throws AbortError when `signal` aborts while connecting.
 *
 * @example
 * ```ts
 * await using files = await connectMcpServer(
 *   { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', process.cwd()] },
 *   { name: 'files', signal: AbortSignal.timeout(600_000) },
 * );
 * const { text } = await runToolLoop({ model, prompt: 'What is in package.json?', tools: files.tools });
 * ```
 */
export async function connectMcpServer(server: McpServerConfig, options: ConnectMcpServerOptions = {}): Promise<McpToolset> {
  const name = options.name ?? 'mcp';
  const parsed = mcpServerConfigSchema.safeParse(server);
  if (!parsed.success) throw ConfigError.fromZod(`MCP server "${name}"`, parsed.error);
  const config = parsed.data;
  AbortError.throwIfAborted(options.signal, `Connecting to MCP server "${name}"`);
  const secrets = mcpServerSecrets(config);
  const redact = (text: string) => redactSecrets(text, secrets);

  const transport: Transport = isMcpHttpServer(config)
    ? new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: config.headers } } : {})
    : new McpStdioTransport({
        command: config.command,
        ...(config.args ? { args: config.args } : {}),
        ...(config.env ? { env: config.env } : {}),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        ...(options.inheritEnv ? { inheritEnv: options.inheritEnv } : {}),
        ...(options.onStderr ? { onStderr: options.onStderr } : {}),
      });
  const client = new Client(options.clientInfo ?? { name: 'troupe', version: MCP_PACKAGE_VERSION }, { capabilities: {} });
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= client.close().catch(() => {});
    return closed;
  };
  const onAbort = () => void close();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const describe = (error: unknown): string => {
    const stderr = transport instanceof McpStdioTransport && transport.stderr.trim() !== '' ? `; its stderr ends with: ${transport.stderr.trim().slice(-500)}` : '';
    return redact(`${(error as Error)?.message ?? String(error)}${stderr}`);
  };
  const where = isMcpHttpServer(config) ? config.url : config.command;
  const requestOptions = { timeout: options.connectTimeoutMs ?? 30_000, ...(options.signal ? { signal: options.signal } : {}) };
  let mcpTools: McpTool[];
  try {
    await client.connect(transport, requestOptions);
    mcpTools = await listAllTools(client, requestOptions);
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    await close();
    if (options.signal?.aborted) throw new AbortError(`Connecting to MCP server "${name}" was aborted`, { cause: options.signal.reason });
    const notFound = (error as NodeJS.ErrnoException)?.code === 'ENOENT';
    throw new McpError(
      notFound
        ? `MCP server "${name}": command "${where}" not found (install it, or give its absolute path)`
        : `MCP server "${name}" (${redact(where)}) could not be reached: ${describe(error)}`,
      { serverName: name, cause: error },
    );
  }
  const filter = options.tools;
  const wanted = filter === undefined ? mcpTools : mcpTools.filter((tool) => (typeof filter === 'function' ? filter(tool) : filter.includes(tool.name)));
  if (Array.isArray(filter)) {
    const missing = filter.filter((toolName) => !mcpTools.some((tool) => tool.name === toolName));
    if (missing.length > 0) {
      await close();
      throw new McpError(`MCP server "${name}" has no tool ${missing.map((toolName) => `"${toolName}"`).join(', ')}; it has: ${mcpTools.map((tool) => tool.name).join(', ') || '(none)'}`, {
        serverName: name,
      });
    }
  }
  let tools: AnyTool[];
  try {
    tools = toTroupeTools(client, wanted, {
      serverName: name,
      ...(options.toolNamePrefix !== undefined ? { toolNamePrefix: options.toolNamePrefix } : {}),
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
      ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
    });
  } catch (error) {
    await close();
    throw error;
  }
  const closeAll = async () => {
    options.signal?.removeEventListener('abort', onAbort);
    await close();
  };
  return {
    name,
    tools,
    serverInfo: client.getServerVersion(),
    pid: transport instanceof McpStdioTransport ? transport.pid : undefined,
    client,
    registerInto(registry, scope) {
      const unregisters: Array<() => void> = [];
      try {
        for (const tool of tools) unregisters.push(registry.register(tool, scope));
      } catch (error) {
        for (const unregister of unregisters) unregister();
        throw error;
      }
      return () => {
        for (const unregister of unregisters) unregister();
      };
    },
    close: closeAll,
    [Symbol.asyncDispose]: closeAll,
  };
}

async function listAllTools(client: Client, options: { timeout: number; signal?: AbortSignal }): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
