import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AbortError, InvalidArgumentError, type AnyTool, type McpHttpServerConfig } from '@troupe/core';
import { checkLocalHttpRequest } from '@troupe/core/util';
import { createMcpServerForTools, type McpToolsServerOptions } from './mcp-server-for-tools';

/** Options of {@link startMcpToolServer}. */
export interface StartMcpToolServerOptions extends Omit<McpToolsServerOptions, 'signal'> {
  /** The tools to serve. */
  tools: readonly AnyTool[];
  /** Port on 127.0.0.1. Default 0: a free one. */
  port?: number;
  /** URL path of the endpoint. Default `/mcp`. */
  path?: string;
  /** Bearer token clients must send. Default: 32 random bytes, hex. */
  token?: string;
  /** Closes the server when aborted. */
  signal?: AbortSignal;
}

/** A running Streamable HTTP MCP server of Troupe tools, on 127.0.0.1. */
export interface McpToolServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  /**
   * The entry a client needs: `{ type: 'http', url, headers: { Authorization: 'Bearer …' } }`
   * (put it in a member's `mcpServers`, a `.mcp.json`, or `connectMcpServer`).
   */
  readonly config: McpHttpServerConfig;
  /** Aborts the tool calls in flight (e.g. the agent turn that made them ended); the server keeps serving. */
  cancelCalls(reason?: unknown): void;
  /** Stops serving: calls in flight are aborted, sessions and sockets closed. Calling it twice is harmless. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

/**
 * Serves Troupe tools over MCP (Streamable HTTP, the official SDK's
 * transport) on 127.0.0.1, for agent CLIs and any MCP client: each client
 * session gets its own SDK server (see {@link createMcpServerForTools}).
 * Only loopback clients that send the bearer token are answered, and
 * `Host` headers are checked against DNS rebinding.
 *
 * @throws InvalidArgumentError for bad options or tools.
 *
 * @example
 * ```ts
 * await using server = await startMcpToolServer({ tools: [queryLooperStateTool] });
 * await manager.ensureAgentStarted('coder', 'claude', { workDir: '/repo', mcpServers: { looper: server.config } });
 * ```
 */
export async function startMcpToolServer(options: StartMcpToolServerOptions): Promise<McpToolServer> {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { tools }');
  AbortError.throwIfAborted(options.signal, 'Starting the MCP tool server');
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new InvalidArgumentError('path', `expected a path starting with "/", got ${JSON.stringify(path)}`);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('port', `expected an integer 0-65535, got ${String(options.port)}`);
  const token = options.token ?? randomBytes(32).toString('hex');
  if (typeof token !== 'string' || token.length < 16) throw new InvalidArgumentError('token', 'expected at least 16 characters');
  const expected = Buffer.from(`Bearer ${token}`);
  // Fails here, before listening, on a bad tool list.
  createMcpServerForTools(options.tools, options);

  const sessions = new Map<string, Session>();
  const lifetime = new AbortController();
  let calls = new AbortController();
  const callSignal = () => AbortSignal.any([lifetime.signal, calls.signal]);
  let actualPort = 0;

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = createMcpServerForTools(options.tools, { ...options, signal: callSignal });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, close: () => server.close() });
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // DNS rebinding: a web page may reach 127.0.0.1, but not with our Host (or with a foreign Origin).
    const refused = checkLocalHttpRequest(req, { port: actualPort, originCheck: 'all' });
    if (refused) return sendError(res, 403, -32000, refused);
    if (url.pathname !== path) return sendError(res, 404, -32601, `no MCP endpoint at ${url.pathname}; use ${path}`);
    const presented = Buffer.from(String(req.headers.authorization ?? ''));
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return sendError(res, 401, -32001, 'missing or wrong bearer token');
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return sendError(res, 404, -32001, 'session not found; initialize again');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendError(res, 400, -32000, 'no session: start one with an initialize POST');
    const transport = await newSession();
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, -32603, `internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  actualPort = (http.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${actualPort}${path}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      options.signal?.removeEventListener('abort', onAbort);
      lifetime.abort(new AbortError('The MCP tool server closed'));
      const done = new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.all([...sessions.values()].map((session) => session.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await done;
    })();
    return closing;
  };
  const onAbort = () => void close();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    url,
    port: actualPort,
    config: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
    cancelCalls(reason?: unknown) {
      calls.abort(reason ?? new AbortError('The agent turn ended'));
      calls = new AbortController();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
