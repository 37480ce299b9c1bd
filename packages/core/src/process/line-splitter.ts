import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines incrementally: each chunk is scanned once,
 * a partial line is carried to the next chunk, and a UTF-8 character split
 * across chunks is decoded whole. `\r\n` endings lose their `\r`.
 *
 * Cost is O(total bytes), unlike re-splitting the whole output per chunk.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly stripCr: boolean;

  /** `keepCarriageReturn`: lines keep a trailing `\r` (for callers that rebuild the exact text). */
  constructor(options: { keepCarriageReturn?: boolean } = {}) {
    this.stripCr = options.keepCarriageReturn !== true;
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
      let line = from === 0 && this.pending !== '' ? this.pending + text.slice(0, newline) : text.slice(from, newline);
      if (from === 0) this.pending = '';
      if (this.stripCr && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      lines.push(line);
      from = newline + 1;
      newline = text.indexOf('\n', from);
    }
    if (from < text.length) this.pending = from === 0 ? this.pending + text : text.slice(from);
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
    if (rest === '') return [];
    return [this.stripCr && rest.charCodeAt(rest.length - 1) === 13 ? rest.slice(0, -1) : rest];
  }

  /** Length (in UTF-16 units) of the unfinished line held back. */
  get pendingLength(): number {
    return this.pending.length;
  }
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
