// The open page streams (Server-Sent Events) and what happens to a page that does not keep up.
import type { ServerResponse } from 'node:http';

/** The page streams the handler writes each input to. */
export interface DashboardPageStreams {
  /** Starts sending to a page whose snapshot was just written. */
  add(response: ServerResponse): void;
  /** Writes one frame to every page; a page past its buffer cap is disconnected instead. */
  broadcast(frame: string): void;
  /** Ends every stream. */
  endAll(): void;
  /** How many pages are open. */
  readonly size: number;
}

/**
 * Keeps the open page streams. A page that stops reading (a suspended tab, a
 * stalled proxy, a client that never reads) would make the server buffer
 * every broadcast for it without end; once more than `maxBufferedBytes` wait
 * for it, on top of what its snapshot left waiting, it is disconnected. A
 * browser's `EventSource` reconnects by itself and gets a fresh snapshot, so
 * the page loses nothing it shows.
 */
export function createDashboardPageStreams(maxBufferedBytes: number): DashboardPageStreams {
  // Each page's cap: maxBufferedBytes plus its snapshot's bytes still buffered when it was added.
  const streams = new Map<ServerResponse, number>();
  const drop = (response: ServerResponse) => {
    streams.delete(response);
    response.destroy();
  };
  return {
    add(response) {
      streams.set(response, maxBufferedBytes + response.writableLength);
      response.once('close', () => streams.delete(response));
    },
    broadcast(frame) {
      for (const [response, cap] of streams) {
        if (!response.write(frame) && response.writableLength > cap) drop(response);
      }
    },
    endAll() {
      for (const response of streams.keys()) response.end();
      streams.clear();
    },
    get size() {
      return streams.size;
    },
  };
}
