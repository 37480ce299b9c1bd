/** A stream {@link coalescedWriter} can batch writes on (a socket, a pipe, `process.stdout`). */
export interface CorkableStream {
  /** False once the stream is ended or destroyed: later writes are dropped, not thrown. */
  readonly writable: boolean;
  /** Buffers the chunk while corked. */
  write(chunk: string): unknown;
  /** Holds writes back until `uncork`. */
  cork(): void;
  /** Sends what was held back, in one `writev` where the stream has one. */
  uncork(): void;
}

/**
 * Batches the writes made to `stream` in one turn of the event loop into one: the first write corks the stream and
 * a `process.nextTick` uncorks it, so a burst of lines (the 200 answers of 200 parallel tool calls, decided in the
 * same microtask drain) leaves in one `writev` instead of one syscall each — each of which may wake the reader
 * process again. Order is kept, nothing is delayed past the current tick, and writes to a stream that is no longer
 * writable are dropped (as the callers did before).
 *
 * @example
 * ```ts
 * const send = coalescedWriter(socket);
 * for (const answer of answers) send(`${JSON.stringify(answer)}\n`);
 * ```
 */
export function coalescedWriter(stream: CorkableStream): CoalescedWriter {
  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    stream.uncork();
  };
  const send = (chunk: string) => {
    if (!stream.writable) return;
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(flush);
    }
    stream.write(chunk);
  };
  return Object.assign(send, { flush });
}

/** The writer {@link coalescedWriter} returns: call it with a chunk; `flush()` sends what it holds back now. */
export interface CoalescedWriter {
  (chunk: string): void;
  /** Sends the writes held back so far, in one write, now instead of at the end of the tick (no-op when none are). */
  flush(): void;
}
