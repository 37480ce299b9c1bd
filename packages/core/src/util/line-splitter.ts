import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines incrementally: each chunk is scanned once,
 * a partial line is carried to the next chunk, and a UTF-8 character split
 * across chunks is decoded whole. `\r\n` endings lose their `\r`.
 *
 * Cost is O(total bytes), unlike re-splitting the whole output per chunk.
 * With `maxLineLength`, memory is bounded too: a line that grows past it is
 * dropped (up to its newline) and reported, so a peer sending one endless
 * line can neither stall nor exhaust the reader.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly stripCr: boolean;
  private readonly maxLineLength: number;
  private readonly onLineTooLong: ((length: number) => void) | undefined;
  /** Inside an over-long line: everything up to the next newline is dropped. */
  private discarding = false;

  constructor(options: LineSplitterOptions = {}) {
    this.stripCr = options.keepCarriageReturn !== true;
    const max = options.maxLineLength ?? Number.POSITIVE_INFINITY;
    if (!(max > 0)) throw new RangeError(`LineSplitter: maxLineLength must be a positive number, got ${String(options.maxLineLength)}`);
    this.maxLineLength = max;
    this.onLineTooLong = options.onLineTooLong;
  }

  /** Feeds a chunk; returns the lines it completed (without their newline). */
  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    return this.split(text);
  }

  /** Splits already-decoded text (the caller decoded the chunk). */
  split(text: string): string[] {
    const lines: string[] = [];
    let from = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      if (this.discarding) {
        // The end of a line already reported as too long.
        this.discarding = false;
      } else if ((from === 0 ? this.pending.length : 0) + newline - from > this.maxLineLength) {
        const length = (from === 0 ? this.pending.length : 0) + newline - from;
        this.pending = '';
        this.onLineTooLong?.(length);
      } else {
        let line = from === 0 && this.pending !== '' ? this.pending + text.slice(0, newline) : text.slice(from, newline);
        if (from === 0) this.pending = '';
        if (this.stripCr && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
        lines.push(line);
      }
      from = newline + 1;
      newline = text.indexOf('\n', from);
    }
    if (from < text.length && !this.discarding) {
      this.pending = from === 0 ? this.pending + text : text.slice(from);
      if (this.pending.length > this.maxLineLength) {
        const length = this.pending.length;
        this.pending = '';
        this.discarding = true;
        this.onLineTooLong?.(length);
      }
    }
    return lines;
  }

  /** Decodes a chunk without splitting (for callers that also keep the raw text). */
  decode(chunk: Buffer): string {
    return this.decoder.write(chunk);
  }

  /** Flushes: returns the last line if the stream did not end with a newline. */
  end(): string[] {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (this.discarding) {
      this.discarding = false;
      return [];
    }
    if (rest.length > this.maxLineLength) {
      this.onLineTooLong?.(rest.length);
      return [];
    }
    if (rest === '') return [];
    return [this.stripCr && rest.charCodeAt(rest.length - 1) === 13 ? rest.slice(0, -1) : rest];
  }

  /** Length (in UTF-16 units) of the unfinished line held back. */
  get pendingLength(): number {
    return this.pending.length;
  }
}

/** Options of {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Lines keep a trailing `\r` (for callers that rebuild the exact text). */
  keepCarriageReturn?: boolean;
  /**
   * Longest line (in UTF-16 units, without its newline) returned; a longer one
   * is dropped whole and reported to `onLineTooLong`. Default: no limit. Set it
   * wherever the other end is not trusted (a socket), so one endless line
   * cannot hold unbounded memory.
   */
  maxLineLength?: number;
  /**
   * Called once per dropped line, as soon as it is known to be too long
   * (`length`: how much of it was seen so far). The caller decides what the
   * peer gets: an error, a closed connection.
   */
  onLineTooLong?: (length: number) => void;
}

/**
 * Parses a line as JSON when it looks like a JSON object or array; returns
 * `undefined` for anything else (log noise, garbage, a broken line).
 */
export function parseJsonLine(line: string): unknown {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  const first = line.charCodeAt(i);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
