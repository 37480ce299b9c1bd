import { join } from 'node:path';
import { limitedWarning, listenJsonLineRpc, serializeError } from '@troupe/core/util';

/** Answers one control request the driver passes on (the CLI's `request` object). */
type ControlHandler = (request: unknown, signal: AbortSignal) => Promise<unknown>;

/** The Unix socket the Claude Code control driver asks the host on. */
export interface ClaudeControlSocket {
  readonly path: string;
  /** Stops listening; requests still open are aborted (the driver then fails closed). */
  close(): Promise<void>;
}

/** Longest request line accepted: a request carries a tool input (a whole file for a Write), so the cap is generous. */
const MAX_CONTROL_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * Listens on `<dir>/control.sock` (the directory is private to this process): each line
 * `{"id":n,"request":{…}}` gets `{"id":n,"answer":{…}}` from `handler`, or `{"id":n,"error":"…"}` when the frame is
 * malformed or the handler throws (the driver then denies the call: fail closed). The path is in the driver's argv,
 * so the agent itself could connect: every frame is validated and nothing it sends can make the host throw.
 *
 * @internal
 */
export async function startClaudeControlSocket(dir: string, handler: ControlHandler): Promise<ClaudeControlSocket> {
  const warn = limitedWarning('Troupe Claude Code control socket', 5);
  const server = await listenJsonLineRpc<Record<string, unknown>>(join(dir, 'control.sock'), {
    name: 'Troupe Claude Code control socket',
    maxLineLength: MAX_CONTROL_LINE_LENGTH,
    log: warn,
    checkRequest: (value) => {
      const frame = value as { id?: unknown; request?: unknown } | null;
      const id = typeof frame?.id === 'number' && Number.isSafeInteger(frame.id) ? frame.id : undefined;
      if (id === undefined) return { ok: false, reason: 'the frame has no integer "id"' };
      const request = frame?.request;
      if (request === null || typeof request !== 'object' || Array.isArray(request)) return { ok: false, id, reason: 'the frame has no object "request"' };
      return { ok: true, id, request: request as Record<string, unknown> };
    },
    handle: async (request, connection) => {
      try {
        return await handler(request, connection.signal);
      } catch (error) {
        warn(`a control request failed: ${serializeError(error).message}`);
        throw error;
      }
    },
    encodeResult: (id, answer) => ({ id, answer }),
    encodeError: (id, reason) => ({ id: id ?? null, error: reason }),
  });
  return { path: server.path, close: () => server.close() };
}
