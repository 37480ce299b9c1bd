// The checks an HTTP server meant for this machine only (the dashboard, the MCP tool server) makes before its
// token: a `Host` allow-list against DNS rebinding, and an `Origin` check against cross-site requests.
import { InvalidArgumentError } from '../errors/invalid-argument-error';

/** The loopback names a local server answers to (with its own port). */
export const LOOPBACK_HOST_NAMES: readonly string[] = Object.freeze(['127.0.0.1', 'localhost', '[::1]']);

/** The part of a Node `IncomingMessage` the guard reads. */
export interface LocalHttpRequest {
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** Options for {@link checkLocalHttpRequest}. */
export interface LocalHttpGuardOptions {
  /** The port the server listens on: the loopback names are accepted with this port only (and bare on port 80). */
  port: number;
  /**
   * The address the request arrived on (`request.socket.localAddress`): accepted as a `Host` with `port`, so a
   * server listening on another address answers to the URL that names it. An IP literal cannot come from DNS
   * rebinding.
   */
  localAddress?: string | undefined;
  /**
   * More `Host` values to accept, for a server reached through a proxy, an SSH tunnel or a name of its own:
   * `name:port` matches exactly, a bare `name` matches any port. Compared case-insensitively. Validate
   * them once with {@link normalizeAllowedHosts}.
   */
  allowedHosts?: readonly string[];
  /**
   * Which requests must carry no foreign `Origin`: `state-changing` ones (any method but GET, HEAD and
   * OPTIONS; the default), or `all`. A request without `Origin` (curl, an SDK) passes: only browsers send it.
   */
  originCheck?: 'state-changing' | 'all';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SHOWN_CHARS = 100;

/**
 * Why a request to a local server must be refused (answer 403 with it), or
 * `undefined` when it may go on. A token alone does not stop a web page:
 * through DNS rebinding it reaches 127.0.0.1 under its own name (so the
 * `Host` is foreign), and a cross-site form or `fetch` carries the user's
 * URL, token included (so the `Origin` is foreign, or `Sec-Fetch-Site` says
 * `cross-site`/`same-site`).
 *
 * @example
 * ```ts
 * const refused = checkLocalHttpRequest(request, { port: server.address().port });
 * if (refused) return send(response, 403, { error: refused });
 * ```
 */
export function checkLocalHttpRequest(request: LocalHttpRequest, options: LocalHttpGuardOptions): string | undefined {
  const host = single(request.headers.host);
  if (host === undefined) return 'forbidden: the request has no Host header';
  if (!hostAllowed(host, options)) {
    return `forbidden Host ${shown(host)}: this server answers to ${allowedNames(options).join(', ')} (add others with allowedHosts)`;
  }
  if ((options.originCheck ?? 'state-changing') === 'state-changing' && SAFE_METHODS.has((request.method ?? 'GET').toUpperCase())) return undefined;
  const site = single(request.headers['sec-fetch-site'])?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return `forbidden: a ${site} request (Sec-Fetch-Site) from another page`;
  const origin = single(request.headers.origin);
  if (origin !== undefined && !originAllowed(origin, options)) return `forbidden Origin ${shown(origin)}: only the server's own pages may send this request`;
  return undefined;
}

/**
 * Checks a user's `allowedHosts` (`name` or `name:port`, no scheme, path or
 * wildcard) and returns them lower-cased.
 *
 * @throws InvalidArgumentError naming the entry that is wrong.
 */
export function normalizeAllowedHosts(value: unknown, argument = 'allowedHosts'): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidArgumentError(argument, `expected an array of host names, got ${typeof value}`);
  return value.map((entry: unknown, index) => {
    if (typeof entry !== 'string' || !/^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/i.test(entry)) {
      throw new InvalidArgumentError(`${argument}[${index}]`, `expected a host name or name:port (like "dash.example.com" or "localhost:8080"), got ${JSON.stringify(entry)}`);
    }
    return entry.toLowerCase();
  });
}

function hostAllowed(host: string, options: LocalHttpGuardOptions): boolean {
  const value = host.toLowerCase();
  if (allowedNames(options).includes(value)) return true;
  if (options.port === 80 && LOOPBACK_HOST_NAMES.includes(value)) return true;
  const name = value.replace(/:\d+$/, '');
  return (options.allowedHosts ?? []).some((entry) => entry === value || (entry === name && !/:\d+$/.test(entry)));
}

function originAllowed(origin: string, options: LocalHttpGuardOptions): boolean {
  const match = /^https?:\/\/([^/]+)$/i.exec(origin);
  if (!match) return false;
  const authority = match[1] as string;
  const defaultPort = origin.toLowerCase().startsWith('https:') ? 443 : 80;
  return hostAllowed(authority, options) || (!/:\d+$/.test(authority) && hostAllowed(`${authority}:${defaultPort}`, options));
}

function allowedNames(options: LocalHttpGuardOptions): string[] {
  const names = [...LOOPBACK_HOST_NAMES];
  const local = options.localAddress?.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  if (local && !names.includes(local) && local !== '::1') names.push(local.includes(':') ? `[${local}]` : local);
  return [...names.map((name) => `${name}:${options.port}`), ...(options.allowedHosts ?? [])];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function shown(value: string): string {
  return JSON.stringify(value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value);
}
