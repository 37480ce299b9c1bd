import { serializeError } from './serialize-error';
import { LineSplitter } from './line-splitter';

/** Options of {@link readJsonLines}. */
export interface JsonLineReaderOptions {
  /**
   * Longest line accepted (UTF-16 units, without its newline). A longer one is
   * dropped as it arrives (memory stays bounded) and reported to `onLineTooLong`.
   */
  maxLineLength: number;
  /** Each line's parsed JSON value: any value (`null`, a number, an array…), for the caller to validate. */
  onValue(value: unknown): void;
  /** A non-blank line that is not JSON; `reason` names what was wrong, never the line itself (it may hold secrets). */
  onInvalid(reason: string): void;
  /** A line longer than `maxLineLength` (`length`: how much of it was seen); typically answer an error and close. */
  onLineTooLong(length: number): void;
}

/**
 * Reads newline-delimited JSON from a socket or any byte stream a peer writes:
 * framed incrementally by {@link LineSplitter} (each byte scanned once, UTF-8
 * split across chunks decoded whole, line length capped), each line parsed on
 * its own. Nothing a peer sends makes it throw: bad lines go to `onInvalid`
 * or `onLineTooLong`, and a callback that throws is reported as a
 * `TroupeWarning` instead of crashing the process. Lines still queued in a
 * chunk are dropped once the stream is destroyed. Blank lines are skipped.
 *
 * @example
 * ```ts
 * readJsonLines(socket, {
 *   maxLineLength: 1024 * 1024,
 *   onValue: (value) => answer(value),
 *   onInvalid: (reason) => socket.write(`${JSON.stringify({ error: reason })}\n`),
 *   onLineTooLong: () => socket.end(`${JSON.stringify({ error: 'line too long' })}\n`),
 * });
 * ```
 */
export function readJsonLines(stream: NodeJS.ReadableStream & { readonly destroyed?: boolean }, options: JsonLineReaderOptions): void {
  const guard = (what: string, call: () => void) => {
    try {
      call();
    } catch (error) {
      process.emitWarning(`Troupe JSON-lines ${what} callback threw: ${serializeError(error).message}`, 'TroupeWarning');
    }
  };
  const splitter = new LineSplitter({ maxLineLength: options.maxLineLength, onLineTooLong: (length) => guard('onLineTooLong', () => options.onLineTooLong(length)) });
  const take = (lines: string[]) => {
    for (const line of lines) {
      if (stream.destroyed === true) return;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        guard('onInvalid', () => options.onInvalid(`not JSON (${(error as Error).message.replace(/ in JSON at.*$|, ".*$/s, '')})`));
        continue;
      }
      guard('onValue', () => options.onValue(value));
    }
  };
  stream.on('data', (chunk: Buffer | string) => take(splitter.push(chunk)));
  stream.on('end', () => take(splitter.end()));
}
