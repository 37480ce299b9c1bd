import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { checkTraceCarrier, withEventScope } from '@troupe/core/events';
import { serializeError } from '@troupe/core/util';
import { removeStaleSocket } from './control-socket-path';
import { controlRequestSchema, MAX_CONTROL_LINE_BYTES, type ControlBusEvent, type ControlMessageEvent, type ControlRequest, type ControlResponse } from './control-protocol';

/** How long closing waits for requests still being answered. */
const CLOSE_WAIT_MS = 5000;
/** Pending connections the socket queues before refusing (EAGAIN); clients also retry. */
const CONTROL_BACKLOG = 4096;

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
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setEncoding('utf8');
    const closeListeners: (() => void)[] = [];
    const connection: ControlConnection = {
      push: (event) => {
        if (!socket.destroyed) socket.write(`${JSON.stringify(event)}\n`);
      },
      onClose: (listener) => closeListeners.push(listener),
    };
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (Buffer.byteLength(buffer) > MAX_CONTROL_LINE_BYTES) {
        socket.end(`${JSON.stringify({ id: -1, ok: false, error: 'request too long' } satisfies ControlResponse)}\n`);
        return;
      }
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        if (line.trim() !== '') {
          const answering = answer(line, socket, connection);
          inflight.add(answering);
          void answering.finally(() => inflight.delete(answering));
        }
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      for (const listener of closeListeners) listener();
    });
  });

  async function answer(line: string, socket: Socket, connection: ControlConnection): Promise<void> {
    let id = -1;
    let response: ControlResponse;
    try {
      const parsed = controlRequestSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`invalid control request: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`);
      id = parsed.data.id;
      // The sender's trace context (if any) is the parent of what this request starts.
      const traceContext = checkTraceCarrier(parsed.data.trace);
      const request = parsed.data;
      response = { id, ok: true, result: await withEventScope({ traceContext }, () => handler(request, connection)) };
    } catch (error) {
      response = { id, ok: false, error: serializeError(error).message };
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
