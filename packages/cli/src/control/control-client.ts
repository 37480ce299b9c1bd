import { connect, type Socket } from 'node:net';
import { currentTraceCarrier } from '@troupe/core';
import { CliError } from '../cli-errors';
import type { ControlMessageEvent, ControlRequest, ControlResponse } from './control-protocol';

type RequestBody = ControlRequest extends infer R ? (R extends ControlRequest ? Omit<R, 'id' | 'trace'> : never) : never;

/** A connection to a running `troupe` process's control socket. */
export interface ControlClient {
  /** Sends a request and resolves with its result; rejects with the server's error. */
  request<T = unknown>(body: RequestBody, options?: { timeoutMs?: number }): Promise<T>;
  /** Receives pushed events (after a `subscribe` request). */
  onEvent(listener: (event: ControlMessageEvent) => void): void;
  /** Called once when the server goes away. */
  onClose(listener: () => void): void;
  close(): void;
}

/**
 * Connects to a control socket.
 *
 * @throws CliError when nothing listens there (the process died) within `timeoutMs`.
 */
export function connectControl(socketPath: string, options: { timeoutMs?: number } = {}): Promise<ControlClient> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new CliError(`the control socket ${socketPath} did not accept a connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new CliError(`cannot reach the running troupe process at ${socketPath} (${error.code ?? error.message})`, { cause: error }));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(wrap(socket));
    });
  });
}

function wrap(socket: Socket): ControlClient {
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const eventListeners: ((event: ControlMessageEvent) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let index: number;
    while ((index = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      if (line.trim() === '') continue;
      let message: ControlResponse | ControlMessageEvent;
      try {
        message = JSON.parse(line) as ControlResponse | ControlMessageEvent;
      } catch {
        continue;
      }
      if ('event' in message) {
        for (const listener of eventListeners) listener(message);
        continue;
      }
      const waiter = pending.get(message.id);
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new CliError(message.error));
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    for (const waiter of pending.values()) waiter.reject(new CliError('the running troupe process closed the control connection before answering'));
    pending.clear();
    for (const listener of closeListeners) listener();
  });
  return {
    request<T>(body: RequestBody, options: { timeoutMs?: number } = {}) {
      const id = nextId++;
      const timeoutMs = options.timeoutMs ?? 10_000;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new CliError(`the running troupe process did not answer "${body.op}" within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as T);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        // The caller's trace context (its active span, or TRACEPARENT) goes along.
        const trace = currentTraceCarrier();
        socket.write(`${JSON.stringify({ ...body, id, ...(trace ? { trace } : {}) })}\n`);
      });
    },
    onEvent: (listener) => eventListeners.push(listener),
    onClose: (listener) => closeListeners.push(listener),
    close: () => socket.end(),
  };
}
