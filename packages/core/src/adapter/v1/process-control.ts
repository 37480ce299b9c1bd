/**
 * What a {@link ProcessControl} gets to talk to its CLI: the CLI's stdin, and the turn's line stream.
 */
export interface ProcessControlIo {
  /**
   * Writes to the CLI's stdin. The writes made in one turn of the event loop leave in one write (call
   * {@link ProcessControlIo.flush} to send them at once); nothing is written once stdin is ended or the CLI is gone.
   */
  write(text: string): void;
  /** Sends what {@link ProcessControlIo.write} holds back now, in one write. */
  flush(): void;
  /** Ends the CLI's stdin after what was written (the CLI sees end of input). Idempotent. */
  endInput(): void;
  /**
   * Passes one line (without its newline) on to the turn as if the CLI had printed it: it is redacted, kept in the
   * output, parsed, checked for completion. Nothing of the CLI's stdout reaches the turn except through here.
   */
  emit(line: string): void;
}

/**
 * A protocol spoken with the CLI over its own stdio, in the host process: the CLI asks (a permission prompt, a hook
 * callback, a JSON-RPC request) and the host answers on its stdin, with no process in between. With
 * {@link ProcessConfig.control} set, the turn does not write the message to stdin and close it: the control gets the
 * message and decides when stdin ends; it sees every chunk of the CLI's stdout as soon as it is read, before the turn
 * parses anything, and passes on (with `emit`) the lines the turn should read.
 */
export interface ProcessControl {
  /** A chunk of the CLI's stdout, as read; `readAt` is `performance.now()` at the read. */
  chunk(chunk: Buffer, readAt: number): void;
  /** The CLI's stdout ended: pass on an unfinished last line. */
  end(): void;
  /** The turn's message (`undefined`: the turn has none), in place of writing it to stdin and closing stdin. */
  message(message: string | undefined): void;
  /** The process exited or could not start: stop what is in flight. Called once. */
  close(): void;
}

/**
 * Starts the control of one process, right after it is spawned (before any of its output is read).
 *
 * @example
 * ```ts
 * // Echoes every line, and answers `{"ask":…}` lines on stdin.
 * const control: ProcessControlStart = (io) => {
 *   const splitter = new LineSplitter();
 *   const onLine = (line: string) => {
 *     if (line.startsWith('{"ask"')) io.write('{"answer":"yes"}\n');
 *     io.emit(line);
 *   };
 *   return {
 *     chunk: (chunk) => splitter.push(chunk).forEach(onLine),
 *     end: () => splitter.end().forEach(onLine),
 *     message: (message) => (message === undefined ? io.endInput() : io.write(`${message}\n`)),
 *     close: () => {},
 *   };
 * };
 * ```
 */
export type ProcessControlStart = (io: ProcessControlIo) => ProcessControl;
