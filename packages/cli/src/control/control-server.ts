import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { checkTraceCarrier, withEventScope } from '@troupe/core/events';
import { limitedWarning, readJsonLines, serializeError } from '@troupe/core/util';
import { removeStaleSocket } from './control-socket-path';
import { controlRequestSchema, MAX_CONTROL_LINE_LENGTH, type ControlBusEvent, type ControlMessageEvent, type ControlRequest, type ControlResponse } from './control-protocol';

/** How long closing waits for requests still being answered. */
const CLOSE_WAIT_MS = 5000;
/** Pending connections the socket queues before refusing (EAGAIN); clients also retry. */
const CONTROL_BACKLOG = 4096;
/** Bad requests reported as warnings per server; later ones are still answered, not logged (no log flood). */
const WARNINGS_PER_SERVER = 5;

/** Handles one request; `push` sends events to this connection (for `subscribe`). */
export type ControlHandler = (request: ControlRequest, connection: ControlConnection) => Promise<unknown>;

/** One client connection. */
export interface ControlConnection {
  push(event: ControlMessageEvent | ControlBusEvent): void;
  /** Called when the client goes away. */
  onClose(listener: () => void): void;
}

/** A listening control server. */
export interface ControlServer {
  readonly socketPath: string;
  close(): Promise<void>;
}

/**
 * Listens on a Unix socket (mode 0600, never a network port) for control
 * requests, one JSON object per line, and answers each with a
 * {@link ControlResponse} line.
 */
export async function startControlServer(socketPath: string, handler: ControlHandler): Promise<ControlServer> {
  // A socket file left by a process with our pid (reused after a crash) would block listen.
  if (process.platform !== 'win32' && existsSync(socketPath)) unlinkSync(socketPath);
  const sockets = new Set<Socket>();
  /** Requests being answered: closing waits for them, so a command that ends the run (stop now) still gets its reply. */
  const inflight = new Set<Promise<void>>();
  const warn = limitedWarning('Troupe control socket', WARNINGS_PER_SERVER);
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const closeListeners: (() => void)[] = [];
    const connection: ControlConnection = {
      push: (event) => {
        if (!socket.destroyed) socket.write(`${JSON.stringify(event)}\n`);
      },
      onClose: (listener) => closeListeners.push(listener),
    };
    const refuse = (id: number, reason: string) => {
      warn(`bad request answered with an error: ${reason}`);
      if (!socket.destroyed) socket.write(`${JSON.stringify({ id, ok: false, error: reason } satisfies ControlResponse)}\n`);
    };
    readJsonLines(socket, {
      maxLineLength: MAX_CONTROL_LINE_LENGTH,
      onInvalid: (reason) => refuse(-1, `invalid control request: ${reason}`),
      onLineTooLong: (length) => {
        warn(`a request line of over ${length} characters (the limit is ${MAX_CONTROL_LINE_LENGTH}); connection closed`);
        if (!socket.destroyed) socket.end(`${JSON.stringify({ id: -1, ok: false, error: 'request too long' } satisfies ControlResponse)}\n`);
        setTimeout(() => socket.destroy(), 1000).unref();
      },
      onValue: (value) => {
        const parsed = controlRequestSchema.safeParse(value);
        if (!parsed.success) return refuse(idOf(value), `invalid control request: ${describeIssue(parsed.error.issues[0])}`);
        const answering = answer(parsed.data, socket, connection);
        inflight.add(answering);
        void answering.finally(() => inflight.delete(answering));
      },
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      for (const listener of closeListeners) listener();
    });
  });

  async function answer(request: ControlRequest, socket: Socket, connection: ControlConnection): Promise<void> {
    let response: ControlResponse;
    try {
      // The sender's trace context (if any) is the parent of what this request starts.
      const traceContext = checkTraceCarrier(request.trace);
      response = { id: request.id, ok: true, result: await withEventScope({ traceContext }, () => handler(request, connection)) };
    } catch (error) {
      response = { id: request.id, ok: false, error: serializeError(error).message };
    }
    if (!socket.destroyed) socket.write(`${JSON.stringify(response)}\n`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a thousand clients connecting at once are all queued (the kernel caps it at somaxconn).
    server.listen({ path: socketPath, backlog: CONTROL_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (process.platform !== 'win32') chmodSync(socketPath, 0o600);
  return {
    socketPath,
    async close() {
      if (inflight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...inflight]), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      }
      // End (flushing what was pushed), then make sure nothing lingers.
      for (const socket of sockets) {
        socket.end();
        setTimeout(() => socket.destroy(), 200).unref();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
      removeStaleSocket(socketPath);
    },
  };
}

/** The request's id when it has a valid one, so the sender can match the error to its request; else -1. */
function idOf(value: unknown): number {
  const id = value !== null && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return Number.isSafeInteger(id) ? (id as number) : -1;
}

/** A zod issue as one phrase naming the field (`input: expected string`), never the value sent. */
function describeIssue(issue: { path: readonly PropertyKey[]; message: string } | undefined): string {
  if (issue === undefined) return 'unknown shape';
  const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${where}${issue.message}`;
}
