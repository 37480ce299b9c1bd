import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { limitedWarning } from './limited-warning';
import { createJsonLineRpcClient, listenJsonLineRpc, type JsonLineRpcClient, type JsonLineRpcServer } from './json-line-rpc';
import { serializeError } from './serialize-error';

/** Answers one request a driver or hook script passes on (the CLI's own request object). */
export type DecisionSocketHandler = (request: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/** Longest request line accepted: a request carries a tool input (a whole file for a write), so the cap is generous. */
const MAX_DECISION_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * The socket a CLI adapter's helper script (the Gemini CLI hook) asks the host on
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

/**
 * The helper script's side of {@link listenDecisionSocket}: `request(body)` sends `{"id":n,"request":body}` and
 * resolves with the host's `answer` object, or rejects (an `error` frame, a closed socket, an abort) so the script can
 * fail closed.
 *
 * @example
 * ```js
 * const host = connectDecisionSocket(process.env.GEMINI_CLI_TROUPE_HOOK_SOCKET, "the host's hook socket");
 * const answer = await host.request(event);
 * ```
 */
export function connectDecisionSocket(path: string, name: string, options: { log?: (message: string) => void } = {}): JsonLineRpcClient<unknown> {
  return createJsonLineRpcClient<unknown>(createConnection(path), {
    name,
    maxLineLength: MAX_DECISION_LINE_LENGTH,
    encodeRequest: (id, request) => ({ id, request }),
    readAnswer: (value) => {
      const frame = value as { id?: unknown; answer?: unknown; error?: unknown } | null;
      const id = frame?.id;
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) return undefined;
      if (frame?.answer !== null && typeof frame?.answer === 'object' && !Array.isArray(frame.answer)) return { id, ok: true, result: frame.answer };
      return { id, ok: false, error: typeof frame?.error === 'string' ? frame.error : 'no answer object' };
    },
    ...(options.log ? { onInvalid: (reason: string) => options.log?.(`${name} sent a line that is ${reason}`), log: options.log } : {}),
  });
}

/** A decision socket opened for one CLI process by {@link startTurnDecisionSocket}. */
export interface TurnDecisionSocket {
  /** The socket's path, for the helper script's argv or environment. */
  readonly path: string;
  /** The process's cleanup: runs the one it had, then closes the socket and removes its folder. */
  cleanup(): Promise<void>;
}

/**
 * Opens a {@link listenDecisionSocket} for one CLI process in a fresh private folder (`<parent>/<prefix>XXXXXX/<file>`)
 * and ties it to the process's `cleanup`. When it cannot start, the process's own cleanup runs (its private files go)
 * and the error is thrown.
 */
export async function startTurnDecisionSocket(
  config: { cleanup?: (() => void | Promise<void>) | undefined },
  options: { parent: string; prefix: string; file: string; name: string; handler: DecisionSocketHandler },
): Promise<TurnDecisionSocket> {
  let dir: string | undefined;
  let server: JsonLineRpcServer;
  try {
    dir = await mkdtemp(join(options.parent, options.prefix));
    server = await listenDecisionSocket(join(dir, options.file), { name: options.name, handler: options.handler });
  } catch (error) {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    await config.cleanup?.();
    throw error;
  }
  const folder = dir;
  return {
    path: server.path,
    cleanup: async () => {
      try {
        await config.cleanup?.();
      } finally {
        await server.close();
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
