import { limitedWarning } from './limited-warning';
import { listenJsonLineRpc, type JsonLineRpcServer } from './json-line-rpc';
import { serializeError } from './serialize-error';

/** Answers one request a driver or hook script passes on (the CLI's own request object). */
export type DecisionSocketHandler = (request: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/** Longest request line accepted: a request carries a tool input (a whole file for a write), so the cap is generous. */
const MAX_DECISION_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * The socket a CLI adapter's helper script (the Claude Code control driver, the Gemini CLI hook) asks the host on
 * before a tool call runs: each line `{"id":n,"request":{…}}` gets `{"id":n,"answer":{…}}` from `handler`, or
 * `{"id":n,"error":"…"}` when the frame is malformed or the handler throws (the script then denies the call: fail
 * closed). Put it in a directory private to this process. The agent itself could connect (the path is in the
 * script's argv or environment), so every frame is validated and nothing it sends can make the host throw.
 *
 * @example
 * ```ts
 * const socket = await listenDecisionSocket(join(privateDir, 'hook.sock'), { name: 'Troupe Gemini CLI hook socket', handler: decide });
 * // … run the CLI …
 * await socket.close();
 * ```
 */
export async function listenDecisionSocket(path: string, options: { name: string; handler: DecisionSocketHandler }): Promise<JsonLineRpcServer> {
  const warn = limitedWarning(options.name, 5);
  return listenJsonLineRpc<Record<string, unknown>>(path, {
    name: options.name,
    maxLineLength: MAX_DECISION_LINE_LENGTH,
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
        return await options.handler(request, connection.signal);
      } catch (error) {
        warn(`a request failed: ${serializeError(error).message}`);
        throw error;
      }
    },
    encodeResult: (id, answer) => ({ id, answer }),
    encodeError: (id, reason) => ({ id: id ?? null, error: reason }),
  });
}
