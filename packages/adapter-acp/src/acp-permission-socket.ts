import { join } from 'node:path';
import { limitedWarning, listenJsonLineRpc, serializeError, type JsonLineRpcCheck } from '@troupe/core/util';

/** The client file methods the driver asks about (with `--client-fs`). */
export const ACP_CLIENT_FS_METHODS = ['fs/read_text_file', 'fs/write_text_file'] as const;

/** One question of the driver: a permission request (no `method`), or a file access through the client. */
export type AcpSocketQuestion = { method?: undefined; params: Record<string, unknown> } | { method: (typeof ACP_CLIENT_FS_METHODS)[number]; params: Record<string, unknown> };

/** What the driver sends for one question, and gets back. */
type Handler = (question: AcpSocketQuestion, signal: AbortSignal) => Promise<unknown>;

/** A Unix socket the ACP driver asks permission questions on. */
export interface AcpPermissionSocket {
  readonly path: string;
  /** Stops listening; questions still open are cancelled. */
  close(): Promise<void>;
}

/**
 * Longest request line accepted (UTF-16 units). A permission request carries
 * the tool call (a whole file's new text for an edit), so the cap is generous;
 * it bounds what one connection can make the host hold.
 */
export const MAX_PERMISSION_LINE_LENGTH = 16 * 1024 * 1024;

/** Bad frames reported as warnings per socket; later ones are still answered, not logged (no log flood). */
const WARNINGS_PER_SOCKET = 5;

/**
 * Listens on `<dir>/permissions.sock` (the directory is private to this
 * process): each line `{"id":n,"request":<ACP params>}` gets the line
 * `{"id":n,"outcome":<ACP outcome>}` from `handler`; a file access of the
 * agent (`{"id":n,"method":"fs/read_text_file"|"fs/write_text_file","request":<its params>}`)
 * gets `{"id":n,"outcome":{"outcome":"allow","path",…}|{"outcome":"deny","message"}}`.
 *
 * The path is in the driver's argv, so anything that can read `/proc` (the
 * agent itself) can connect: every frame is validated, and a bad one (not
 * JSON, not an object, no integer `id`, no object `request`) is answered with
 * `{"id":…,"error":…}` and logged as a `TroupeWarning`, never thrown. A line
 * over {@link MAX_PERMISSION_LINE_LENGTH} is answered with an error and its
 * connection closed (core's JSON-lines protocol helper). `handler`'s signal
 * aborts when the socket closes or the asking connection goes away; a
 * handler that throws cancels the request.
 *
 * @internal
 */
export async function startAcpPermissionSocket(dir: string, handler: Handler): Promise<AcpPermissionSocket> {
  const warn = limitedWarning('Troupe ACP permission socket', WARNINGS_PER_SOCKET);
  const server = await listenJsonLineRpc<AcpSocketQuestion>(join(dir, 'permissions.sock'), {
    name: 'Troupe ACP permission socket',
    maxLineLength: MAX_PERMISSION_LINE_LENGTH,
    log: warn,
    checkRequest: checkFrame,
    handle: async (request, connection) => {
      try {
        return await handler(request, connection.signal);
      } catch (error) {
        // A failed decision is no answer: the request is cancelled.
        warn(`the permission handler failed: ${serializeError(error).message}`);
        return request.method === undefined ? { outcome: 'cancelled' } : { outcome: 'deny', message: 'Troupe could not decide this file access' };
      }
    },
    encodeResult: (id, outcome) => ({ id, outcome }),
    encodeError: (id, reason) => ({ id: id ?? null, error: reason }),
  });
  return { path: server.path, close: () => server.close() };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The request frame, or what is wrong with it (naming the field, never echoing its content) and its id when it is one. */
function checkFrame(value: unknown): JsonLineRpcCheck<AcpSocketQuestion> {
  if (!isObject(value)) return { ok: false, reason: `expected a JSON object {"id","request"}, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  if (!Number.isSafeInteger(value.id)) return { ok: false, reason: `"id" must be a safe integer, got ${describe(value.id)}` };
  const id = value.id as number;
  const method = value.method;
  if (method !== undefined && !ACP_CLIENT_FS_METHODS.includes(method as never)) {
    return { ok: false, id, reason: `"method" must be absent or one of ${ACP_CLIENT_FS_METHODS.join(', ')}, got ${typeof method === 'string' ? 'another string' : describe(method)}` };
  }
  if (!isObject(value.request)) return { ok: false, id, reason: `"request" must be an object (ACP ${typeof method === 'string' ? method : 'session/request_permission'} params), got ${describe(value.request)}` };
  return { ok: true, id, request: method === undefined ? { params: value.request } : { method: method as AcpSocketQuestion['method'] & string, params: value.request } };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' ? 'a number that is not a safe integer' : typeof value;
}
