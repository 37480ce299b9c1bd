import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBus, Store } from '@troupe/core';
import { DashboardError } from './dashboard-error';
import { createDashboardHandler, type DashboardHandler, type DashboardHandlerOptions } from './dashboard-handler';

/** Options for {@link serveDashboard}. */
export interface ServeDashboardOptions extends Omit<DashboardHandlerOptions, 'basePath'> {
  bus: EventBus;
  store?: Store;
  /** Port to listen on. Default 0: a random free port. */
  port?: number;
  /**
   * Interface to listen on. Default `127.0.0.1` (this machine only). The
   * page is accepted under the address a request arrives on (the one `url`
   * names); names (the machine's name, a proxy's) go in `allowedHosts`.
   */
  host?: string;
}

/** A dashboard being served. */
export interface ServedDashboard {
  /** The page's address, token included: open it in a browser. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly handler: DashboardHandler;
  /** Stops serving (ends the page streams, closes the server). */
  close(): Promise<void>;
}

/**
 * Serves the dashboard on its own HTTP server: 127.0.0.1, a random port and
 * a random access token (in `url`) unless given. Aborting `signal` closes it.
 *
 * @throws DashboardError when the server cannot listen.
 *
 * @example
 * ```ts
 * const dashboard = await serveDashboard({ bus, store, looper });
 * console.log(`Dashboard: ${dashboard.url}`);
 * ```
 */
export async function serveDashboard(options: ServeDashboardOptions): Promise<ServedDashboard> {
  const { bus, store, port = 0, host = '127.0.0.1', ...handlerOptions } = options;
  const handler = createDashboardHandler(bus, store, handlerOptions);
  const server: Server = createServer(handler);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    handler.close();
    throw new DashboardError(`the dashboard cannot listen on ${host}:${port}: ${(error as Error).message}`, { cause: error });
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      handler.close();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  return { url: `http://${urlHost}:${address.port}/?token=${handler.token}`, port: address.port, token: handler.token, handler, close };
}
