import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidArgumentError, TroupeError, type AnyTroupeEvent, type ApprovalStore, type EventBus, type Store } from '@troupe/core';
import { checkLocalHttpRequest, normalizeAllowedHosts } from '@troupe/core/util';
import { applyDashboardInput, isDashboardInput } from '../state/dashboard-reducer';
import { createDashboardState, type DashboardInput, type DashboardLimits, type DashboardSourceView, type DashboardState } from '../state/dashboard-state';
import { dashboardClientScript } from './dashboard-client-bundle';
import { dashboardPageHtml } from './dashboard-page';
import { createDashboardPageStreams } from './dashboard-page-streams';
import { readStoredDashboardInputs } from './dashboard-stored-state';
import { createWorkspaceDiffs } from './dashboard-workspace-diffs';

/** Sends a Looper command (`{"type":"add_pending","task":"…"}` or `{"type":"stop"}`, as JSON text) and resolves with its reply. */
export interface DashboardLooperControl {
  /** A `Looper` (its `command()` returns `{ ok, text }`), or anything that forwards the command to one (e.g. over the `troupe` control socket). */
  command(input: string): unknown;
  /** The Looper's current state (a `Looper`'s snapshot), shown when the page opens; else the store's checkpoint is. */
  getStatus?(): unknown;
}

/** Options for {@link createDashboardHandler}. */
export interface DashboardHandlerOptions {
  /** The access token every request must carry (`?token=` or `Authorization: Bearer`). Default: 32 random bytes, hex. */
  token?: string;
  /** Where the page's buttons send `add_pending` and `stop`. Without it the page shows no controls. */
  looper?: DashboardLooperControl;
  /**
   * Deferred tool calls (`defer` with `deferTo(store)`): `GET /api/approvals` lists the pending ones (without their
   * inputs), `POST /api/approvals` `{ id, behavior: 'allow' | 'deny', reason }` decides one, as `dashboard` in the
   * audit record. Without it the page shows no Approvals panel (`GET` says `enabled: false`) and `POST` answers 403.
   */
  approvals?: ApprovalStore;
  /** The Looper's id in `store`. Default `looper`. */
  looperId?: string;
  /** The Looper's channel (its `[AUTO]` stream). Default `looper`. */
  looperChannelId?: string;
  /** The Looper state store's namespace prefix in `store`. Default `['looper']`. */
  looperNamespace?: readonly string[];
  /** The usage ledger's namespace in `store`. Default `['usage']`. */
  usageNamespace?: readonly string[];
  /** What the header says the data comes from. Default `in process`. */
  source?: Omit<DashboardSourceView, 'controls'>;
  /** How much of each list the page keeps. */
  limits?: Partial<DashboardLimits>;
  /** Path the handler is mounted at in your server (`/dashboard`). Default: the root. */
  basePath?: string;
  /**
   * `Host` values accepted besides `127.0.0.1`, `localhost`, `[::1]` and the
   * address the request arrived on, with the server's own port: `name:port`
   * exactly, or a bare `name` on any port.
   * Needed when the page is reached through a proxy, an SSH tunnel to
   * another port, or a name of its own; any other `Host` gets 403 (DNS
   * rebinding). Default: none.
   */
  allowedHosts?: readonly string[];
  /**
   * Bytes that may wait to be sent to one page before it is disconnected as
   * too slow (its browser reconnects and gets a fresh snapshot). Default 8 MiB.
   */
  maxPageBufferBytes?: number;
  /** Aborting it ends every open page stream and stops listening to the bus (same as `close()`). */
  signal?: AbortSignal;
  /** Called when a part of the stored state cannot be read (the page opens without it). */
  onError?: (what: string, error: unknown) => void;
}

/** A Node HTTP request handler serving the dashboard, plus its token and state. */
export interface DashboardHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /** The access token requests must carry. */
  readonly token: string;
  /** Resolves once the stored state has been read. */
  readonly ready: Promise<void>;
  /** The current view model (a copy). */
  state(): DashboardState;
  /** Feeds one input to every page (e.g. `dashboard:source` when a workspace's runner comes or goes). */
  push(input: DashboardInput): void;
  /** Ends every page stream and stops listening to the bus. Idempotent. */
  close(): void;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_PAGE_BUFFER_BYTES = 8 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

/**
 * Creates a request handler that serves the live dashboard for everything on
 * `bus`: the Looper's state, timeline, `[AUTO]` stream and pending tasks
 * (with `add_pending` and `stop` controls when `options.looper` is given), an
 * orchestrator's agent tree, team conversations, pipeline batches as a Gantt
 * chart, and tokens and cost per agent. `store` is read once at start for the
 * Looper's checkpoint and history and the usage ledger, so a page opened
 * mid-run shows what came before.
 *
 * Routes (under `basePath`): `GET /` the page, `GET /events` the
 * Server-Sent Events stream (a `snapshot`, then each `input`), `POST
 * /api/looper` a command, `GET`/`POST /api/approvals` the deferred tool calls (see `approvals`), `GET /api/workspaces/diff?name=` a finished
 * workspace's diff (JSON `{ name, diff, truncated }`). Every request needs the token; without it: 401.
 * A `Host` other than the loopback names or the server's own address with
 * its port (or `options.allowedHosts`) gets 403, and so does a POST from another page
 * (a foreign `Origin`, or `Sec-Fetch-Site: cross-site`). A page that reads
 * too slowly is disconnected (see `maxPageBufferBytes`).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createDashboardHandler } from '@troupe/dashboard';
 *
 * const dashboard = createDashboardHandler(bus, store, { looper });
 * createServer(dashboard).listen(4000, '127.0.0.1', () => {
 *   console.log(`http://127.0.0.1:4000/?token=${dashboard.token}`);
 * });
 * ```
 */
export function createDashboardHandler(bus: EventBus, store?: Store, options: DashboardHandlerOptions = {}): DashboardHandler {
  const token = options.token ?? randomBytes(32).toString('hex');
  if (typeof token !== 'string' || token.length < 16) throw new InvalidArgumentError('token', 'expected a string of at least 16 characters');
  const basePath = normalizeBasePath(options.basePath);
  const allowedHosts = normalizeAllowedHosts(options.allowedHosts);
  const maxPageBufferBytes = options.maxPageBufferBytes ?? MAX_PAGE_BUFFER_BYTES;
  if (!Number.isSafeInteger(maxPageBufferBytes) || maxPageBufferBytes < 1) {
    throw new InvalidArgumentError('maxPageBufferBytes', `expected a positive whole number of bytes, got ${String(options.maxPageBufferBytes)}`);
  }
  const state = createDashboardState({
    ...(options.limits ? { limits: options.limits } : {}),
    source: { label: 'in process', attached: true, ...options.source, controls: options.looper !== undefined },
    ...(options.looperChannelId ? { looperChannelId: options.looperChannelId } : {}),
  });
  const streams = createDashboardPageStreams(maxPageBufferBytes);
  const workspaceDiffs = createWorkspaceDiffs({ maxWorkspaces: state.limits.workspaces, maxChars: state.limits.workspaceDiffChars });
  let closed = false;
  let loaded = false;
  const early: DashboardInput[] = [];

  const broadcast = (input: DashboardInput) => {
    applyDashboardInput(state, input);
    const frame = `event: input\ndata: ${JSON.stringify(input)}\n\n`;
    streams.broadcast(frame);
  };
  const onEvent = (event: AnyTroupeEvent) => {
    const input: DashboardInput = { type: event.type, timestamp: event.timestamp, source: event.source, payload: event.payload };
    if (!isDashboardInput(input)) return;
    // A workspace's diff stays on the server; pages ask for it (see /api/workspaces/diff).
    const slim = workspaceDiffs.take(input);
    if (loaded) broadcast(slim);
    else early.push(slim);
  };
  const unsubscribe = bus.on('*', onEvent);

  const ready = (async () => {
    if (store) {
      const stored = await readStoredDashboardInputs(
        store,
        { looperId: options.looperId ?? 'looper', looperNamespace: options.looperNamespace ?? ['looper'], usageNamespace: options.usageNamespace ?? ['usage'] },
        { ...(options.signal ? { signal: options.signal } : {}), ...(options.onError ? { onError: options.onError } : {}) },
      );
      for (const input of stored) applyDashboardInput(state, input);
    }
    try {
      const status = options.looper?.getStatus?.();
      if (status !== undefined) applyDashboardInput(state, { type: 'dashboard:looper-status', timestamp: Date.now(), source: 'looper', payload: status });
    } catch (error) {
      options.onError?.("the Looper's status", error);
    }
    loaded = true;
    for (const input of early.splice(0)) broadcast(input);
  })();

  const heartbeat = setInterval(() => streams.broadcast(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();

  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    streams.endAll();
  };
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();

  const handler = ((request: IncomingMessage, response: ServerResponse) => {
    void route(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: `dashboard error: ${(error as Error).message ?? String(error)}` });
      else response.end();
    });
  }) as DashboardHandler;

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = URL.parse(request.url ?? '/', 'http://dashboard.invalid');
    if (!url) return send(response, 400, { error: 'the request path is not a valid URL path' });
    if (!url.pathname.startsWith(basePath)) return send(response, 404, { error: `not found: ${url.pathname}` });
    const path = url.pathname.slice(basePath.length) || '/';
    const refused = checkLocalHttpRequest(request, { port: request.socket.localPort ?? 0, localAddress: request.socket.localAddress, allowedHosts });
    if (refused) return send(response, 403, { error: refused });
    if (!authorized(request, url, token)) return send(response, 401, { error: 'missing or wrong access token: open the URL the dashboard printed (it ends with ?token=…)' });
    if (closed) return send(response, 503, { error: 'the dashboard was closed' });
    if (path === '/' || path === '/index.html') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, { error: `${request.method} is not allowed on ${path}` }, { allow: 'GET, HEAD' });
      const nonce = randomBytes(16).toString('base64');
      const html = dashboardPageHtml({ script: await dashboardClientScript(), nonce });
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      response.end(request.method === 'HEAD' ? undefined : html);
      return;
    }
    if (path === '/events') {
      if (request.method !== 'GET') return send(response, 405, { error: `${request.method} is not allowed on ${path}` }, { allow: 'GET' });
      await ready;
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      response.write(`retry: 1000\nevent: snapshot\ndata: ${JSON.stringify(state)}\n\n`);
      if (closed) return void response.end();
      streams.add(response);
      return;
    }
    if (path === '/api/looper') {
      if (request.method !== 'POST') return send(response, 405, { error: `${request.method} is not allowed on ${path}` }, { allow: 'POST' });
      if (!options.looper) return send(response, 403, { error: 'this dashboard has no Looper controls (it was created without a Looper to send commands to)' });
      const command = parseCommand(await readBody(request));
      if ('error' in command) return send(response, 400, { error: command.error });
      try {
        const reply = (await options.looper.command(JSON.stringify(command))) as Record<string, unknown> | undefined;
        const ok = reply?.ok === true || reply?.accepted === true;
        const text = typeof reply?.text === 'string' ? reply.text : typeof reply?.reply === 'string' ? reply.reply : '';
        return send(response, 200, { ok, text });
      } catch (error) {
        return send(response, 502, { error: `the Looper did not take the command: ${(error as Error).message ?? String(error)}` });
      }
    }
    if (path === '/api/approvals') return approvalsRoute(request, response, options.approvals);
    if (path === '/api/workspaces/diff') {
      if (request.method !== 'GET') return send(response, 405, { error: `${request.method} is not allowed on ${path}` }, { allow: 'GET' });
      const name = url.searchParams.get('name');
      if (!name) return send(response, 400, { error: 'expected ?name=<workspace name>' });
      const diff = workspaceDiffs.get(name);
      if (!diff) return send(response, 404, { error: `no diff of a workspace named ${JSON.stringify(name)} (it has not finished, or it is older than the last ${state.limits.workspaces})` });
      return send(response, 200, diff);
    }
    return send(response, 404, { error: `not found: ${path}` });
  }

  return Object.assign(handler, {
    token,
    ready,
    state: () => structuredClone(state),
    push: (input: DashboardInput) => {
      const slim = workspaceDiffs.take(input);
      if (loaded) broadcast(slim);
      else early.push(slim);
    },
    close,
  });
}

function normalizeBasePath(value: string | undefined): string {
  if (value === undefined || value === '' || value === '/') return '';
  if (!value.startsWith('/')) throw new InvalidArgumentError('basePath', `expected a path starting with "/", got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

function authorized(request: IncomingMessage, url: URL, token: string): boolean {
  const header = request.headers.authorization;
  const given = url.searchParams.get('token') ?? (header?.startsWith('Bearer ') ? header.slice(7) : undefined);
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string | { tooLarge: true }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? { tooLarge: true } : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** `GET` lists the pending approvals (no inputs); `POST { id, behavior, reason }` decides one as `dashboard`. */
async function approvalsRoute(request: IncomingMessage, response: ServerResponse, approvals: ApprovalStore | undefined): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'POST') return send(response, 405, { error: `${request.method} is not allowed on /api/approvals` }, { allow: 'GET, POST' });
  if (request.method === 'GET') {
    // Without a store the page hides the panel (a 200, so the browser logs no failed request).
    const pending = approvals ? await approvals.listPending() : [];
    return send(response, 200, { enabled: approvals !== undefined, pending: pending.map(({ input: _input, ...rest }) => rest) });
  }
  if (!approvals) return send(response, 403, { error: 'this dashboard has no approvals (it was created without an approval store)' });
  const decision = parseDecision(await readBody(request));
  if ('error' in decision) return send(response, 400, { error: decision.error });
  try {
    const { input: _input, ...decided } = await approvals.resolveApproval(decision.id, { behavior: decision.behavior, decidedBy: 'dashboard', ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
    return send(response, 200, { ok: true, decided });
  } catch (error) {
    if (TroupeError.isInstance(error) && error.name === 'InvalidStateError') return send(response, 409, { error: error.message });
    throw error;
  }
}

/** A request body as a JSON object's fields, or `{ error }` naming what was wrong (too large, not JSON). */
function parseBodyObject(body: string | { tooLarge: true }, what: string, expected: string): { fields: Record<string, unknown> } | { error: string } {
  if (typeof body !== 'string') return { error: `the ${what} is larger than ${MAX_BODY_BYTES} bytes` };
  try {
    return { fields: (JSON.parse(body) ?? {}) as Record<string, unknown> };
  } catch {
    return { error: `the ${what} is not JSON: expected ${expected}` };
  }
}

/** An approval decision from the page: an id, allow or deny, and for a deny the reason the agent is told. */
function parseDecision(body: string | { tooLarge: true }): { id: string; behavior: 'allow' | 'deny'; reason?: string } | { error: string } {
  const parsed = parseBodyObject(body, 'decision', '{"id":"ap-…","behavior":"allow"|"deny","reason":"…"}');
  if ('error' in parsed) return parsed;
  const decision = parsed.fields;
  if (typeof decision.id !== 'string' || decision.id === '') return { error: 'a decision needs the approval "id"' };
  if (decision.behavior !== 'allow' && decision.behavior !== 'deny') return { error: `"behavior" must be "allow" or "deny", got ${JSON.stringify(decision.behavior)}` };
  const reason = typeof decision.reason === 'string' && decision.reason.trim() !== '' ? decision.reason : undefined;
  if (decision.behavior === 'deny' && reason === undefined) return { error: 'a denial needs a "reason": it is what the agent is told' };
  return { id: decision.id, behavior: decision.behavior, ...(reason !== undefined ? { reason } : {}) };
}

type PageCommand = { type: 'add_pending'; task: string } | { type: 'stop' };

/** The two commands the page may send; anything else is refused with what was wrong. */
function parseCommand(body: string | { tooLarge: true }): PageCommand | { error: string } {
  const parsed = parseBodyObject(body, 'command', '{"type":"add_pending","task":"…"} or {"type":"stop"}');
  if ('error' in parsed) return parsed;
  const command = parsed.fields;
  if (command.type === 'stop') return { type: 'stop' };
  if (command.type === 'add_pending') {
    if (typeof command.task !== 'string' || command.task.trim() === '') return { error: 'add_pending needs a non-empty "task"' };
    return { type: 'add_pending', task: command.task };
  }
  return { error: `unknown command type ${JSON.stringify(command.type)}: the page can send "add_pending" and "stop"` };
}
