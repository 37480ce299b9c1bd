import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { limitedWarning, readJsonLines, serializeError } from '@troupe/core/util';

/** What the driver sends for one permission request, and gets back. */
type Handler = (params: unknown, signal: AbortSignal) => Promise<unknown>;

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
 * `{"id":n,"outcome":<ACP outcome>}` from `handler`.
 *
 * The path is in the driver's argv, so anything that can read `/proc` (the
 * agent itself) can connect: every frame is validated, and a bad one (not
 * JSON, not an object, no integer `id`, no object `request`) is answered with
 * `{"id":…,"error":…}` and logged as a `TroupeWarning`, never thrown. A line
 * over {@link MAX_PERMISSION_LINE_LENGTH} is answered with an error and its
 * connection closed.
 *
 * @internal
 */
export async function startAcpPermissionSocket(dir: string, handler: Handler): Promise<AcpPermissionSocket> {
  const path = join(dir, 'permissions.sock');
  const open = new AbortController();
  const sockets = new Set<Socket>();
  const warn = limitedWarning('Troupe ACP permission socket', WARNINGS_PER_SOCKET);
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const send = (frame: object) => {
      if (socket.writable) socket.write(`${JSON.stringify(frame)}\n`);
    };
    const refuse = (id: number | null, reason: string) => {
      warn(`bad frame answered with an error: ${reason}`);
      send({ id, error: reason });
    };
    readJsonLines(socket, {
      maxLineLength: MAX_PERMISSION_LINE_LENGTH,
      onInvalid: (reason) => refuse(null, reason),
      onLineTooLong: (length) => {
        warn(`a line of over ${length} characters (the limit is ${MAX_PERMISSION_LINE_LENGTH}); connection closed`);
        if (socket.writable) socket.end(`${JSON.stringify({ id: null, error: `line too long (over ${MAX_PERMISSION_LINE_LENGTH} characters)` })}\n`);
        setTimeout(() => socket.destroy(), 1000).unref();
      },
      onValue: (value) => {
        const frame = checkFrame(value);
        if (typeof frame === 'string') return refuse(idOf(value), frame);
        Promise.resolve()
          .then(() => handler(frame.request, open.signal))
          .then(
            (outcome) => send({ id: frame.id, outcome }),
            (error: unknown) => {
              warn(`the permission handler failed: ${serializeError(error).message}`);
              send({ id: frame.id, outcome: { outcome: 'cancelled' } });
            },
          );
      },
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    path,
    close() {
      closing ??= new Promise<void>((resolve) => {
        open.abort();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The request frame, or what is wrong with it (naming the field, never echoing its content). */
function checkFrame(value: unknown): { id: number; request: Record<string, unknown> } | string {
  if (!isObject(value)) return `expected a JSON object {"id","request"}, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  if (!Number.isSafeInteger(value.id)) return `"id" must be a safe integer, got ${describe(value.id)}`;
  if (!isObject(value.request)) return `"request" must be an object (ACP session/request_permission params), got ${describe(value.request)}`;
  return { id: value.id as number, request: value.request };
}

/** The frame's id when it is one, so the sender can match the error to its request. */
function idOf(value: unknown): number | null {
  return isObject(value) && Number.isSafeInteger(value.id) ? (value.id as number) : null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' ? 'a number that is not a safe integer' : typeof value;
}
