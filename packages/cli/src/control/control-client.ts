import { connect, type Socket } from 'node:net';
import { currentTraceCarrier } from '@troupe/core/events';
import { createJsonLineRpcClient, type JsonLineRpcAnswer } from '@troupe/core/util';
import { CliError } from '../cli-errors';
import type { ControlBusEvent, ControlMessageEvent, ControlRequest } from './control-protocol';

type RequestBody = ControlRequest extends infer R ? (R extends ControlRequest ? Omit<R, 'id' | 'trace'> : never) : never;

/** A connection to a running `troupe` process's control socket. */
export interface ControlClient {
  /**
   * Sends a request and resolves with its result.
   *
   * @throws JsonLineRpcError with the server's error, or when the connection closes no answer comes within `timeoutMs` (default 10 s), or `abortSignal` aborts.
   */
  request<T = unknown>(body: RequestBody, options?: { timeoutMs?: number; abortSignal?: AbortSignal }): Promise<T>;
  /** Receives pushed messages (after a `subscribe` request). */
  onEvent(listener: (event: ControlMessageEvent) => void): void;
  /** Receives pushed bus events (after a `subscribe` request with `events: true`). */
  onBusEvent(listener: (event: ControlBusEvent) => void): void;
  /** Called once when the server goes away. */
  onClose(listener: () => void): void;
  close(): void;
}

/**
 * Longest line the client reads (UTF-16 units): a pushed message or bus event can be long (a whole agent reply),
 * so more than a request may be. A value here, not from control-protocol: that module loads zod, and `status` must not.
 */
const MAX_PUSHED_LINE_LENGTH = 16 * 1024 * 1024;

/** Connect errors that mean "busy or not listening yet": the listen backlog is full (EAGAIN), or the socket is being set up. */
const RETRYABLE = new Set(['EAGAIN', 'ECONNREFUSED', 'ENOENT']);

function connectOnce(socketPath: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(socketPath);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      resolve(socket);
    });
  });
}

/**
 * Connects to a control socket. A server that is busy (its listen backlog
 * full, as with a thousand clients at once) or not listening yet is retried,
 * with a growing pause, until `timeoutMs`.
 *
 * @throws CliError when no connection is accepted within `timeoutMs`, naming why.
 */
export async function connectControl(socketPath: string, options: { timeoutMs?: number } = {}): Promise<ControlClient> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const started = Date.now();
  let attempts = 0;
  let pause = 5;
  for (;;) {
    attempts++;
    let error: NodeJS.ErrnoException;
    try {
      return wrap(await connectOnce(socketPath));
    } catch (caught) {
      error = caught as NodeJS.ErrnoException;
    }
    const elapsed = Date.now() - started;
    if (!RETRYABLE.has(error.code ?? '') || elapsed >= timeoutMs) {
      const why =
        error.code === 'EAGAIN'
          ? `it is busy: ${attempts} connection attempt(s) in ${elapsed} ms found its queue full`
          : `${error.code ?? error.message}${attempts > 1 ? ` after ${attempts} attempts in ${elapsed} ms` : ''}`;
      throw new CliError(`cannot reach the running troupe process at ${socketPath} (${why}); retry, or check that it still runs`, { cause: error });
    }
    // Jitter spreads a crowd of clients that were refused together.
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause + Math.random() * pause, Math.max(1, timeoutMs - elapsed))));
    pause = Math.min(pause * 2, 200);
  }
}

function wrap(socket: Socket): ControlClient {
  const eventListeners: ((event: ControlMessageEvent) => void)[] = [];
  const busListeners: ((event: ControlBusEvent) => void)[] = [];
  const rpc = createJsonLineRpcClient<RequestBody>(socket, {
    name: "the running troupe process's control socket",
    maxLineLength: MAX_PUSHED_LINE_LENGTH,
    // The caller's trace context (its active span, or TRACEPARENT) goes along.
    encodeRequest: (id, body) => {
      const trace = currentTraceCarrier();
      return { ...body, id, ...(trace ? { trace } : {}) };
    },
    readAnswer,
    // Pushed events; anything else (a late answer, junk) has nothing to match it to.
    onFrame: (frame) => {
      if (!isObject(frame)) return;
      if (frame.event === 'bus' && isObject(frame.envelope)) for (const listener of busListeners) listener(frame as unknown as ControlBusEvent);
      else if (frame.event === 'message' && isObject(frame.message)) for (const listener of eventListeners) listener(frame as unknown as ControlMessageEvent);
    },
  });
  return {
    request: <T>(body: RequestBody, options: { timeoutMs?: number; abortSignal?: AbortSignal } = {}) =>
      rpc.request(body, { ...options, timeoutMs: options.timeoutMs ?? 10_000, label: body.op }) as Promise<T>,
    onEvent: (listener) => eventListeners.push(listener),
    onBusEvent: (listener) => busListeners.push(listener),
    onClose: (listener) => rpc.onClose(listener),
    close: () => rpc.close(),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A {@link ControlResponse} in a frame (its error, or a stand-in when the server garbled it); undefined for a pushed event or junk. */
function readAnswer(frame: unknown): JsonLineRpcAnswer | undefined {
  if (!isObject(frame) || 'event' in frame || typeof frame.id !== 'number') return undefined;
  if (frame.ok === true) return { id: frame.id, ok: true, result: frame.result };
  return { id: frame.id, ok: false, error: typeof frame.error === 'string' ? frame.error : 'the running troupe process sent a malformed answer' };
}
