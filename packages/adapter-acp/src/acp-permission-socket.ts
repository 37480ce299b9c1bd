import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';

/** What the driver sends for one permission request, and gets back. */
type Handler = (params: unknown, signal: AbortSignal) => Promise<unknown>;

/** A Unix socket the ACP driver asks permission questions on. */
export interface AcpPermissionSocket {
  readonly path: string;
  /** Stops listening; questions still open are cancelled. */
  close(): Promise<void>;
}

/**
 * Listens on `<dir>/permissions.sock` (the directory is private to this
 * process): each line `{"id":n,"request":<ACP params>}` gets the line
 * `{"id":n,"outcome":<ACP outcome>}` from `handler`.
 *
 * @internal
 */
export async function startAcpPermissionSocket(dir: string, handler: Handler): Promise<AcpPermissionSocket> {
  const path = join(dir, 'permissions.sock');
  const open = new AbortController();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: { id?: unknown; request?: unknown };
        try {
          message = JSON.parse(line) as { id?: unknown; request?: unknown };
        } catch {
          continue;
        }
        void handler(message.request, open.signal).then(
          (outcome) => socket.writable && socket.write(`${JSON.stringify({ id: message.id, outcome })}\n`),
          () => socket.writable && socket.write(`${JSON.stringify({ id: message.id, outcome: { outcome: 'cancelled' } })}\n`),
        );
      }
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
