import { StringDecoder } from 'node:string_decoder';
import type { SecretRedactor } from '../../util/redact-secrets';

/** Characters of stderr kept from its start and from its end. */
const KEPT_CHARS = 4096;
/** A line longer than this is passed on in pieces (cut at whitespace, so a key is never split). */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * A process's stderr, redacted on the stream: bytes are decoded (a UTF-8
 * character split across chunks stays whole) and passed on by whole lines,
 * so a secret written in two pieces is still found. Keeps the first and the
 * last 4 KiB (the first lines often say what went wrong, e.g. Node's
 * "Cannot find module …"; the last ones say how it ended).
 */
export class ProcessStderr {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private headText = '';
  private tailText = '';

  constructor(
    private readonly redactor: SecretRedactor,
    private readonly onText: (text: string) => void,
  ) {}

  /** The first 4 KiB of stderr, redacted. */
  get head(): string {
    return this.headText;
  }

  /** The last 4 KiB of stderr, redacted, including an unfinished last line. */
  get tail(): string {
    return this.pending === '' ? this.tailText : (this.tailText + this.redactor.redact(this.pending)).slice(-KEPT_CHARS);
  }

  write(chunk: Buffer): void {
    const text = this.pending + this.decoder.write(chunk);
    const cut = text.lastIndexOf('\n') + 1;
    if (cut > 0) {
      this.pending = text.slice(cut);
      this.emit(text.slice(0, cut));
    } else this.pending = text;
    if (this.pending.length > MAX_PENDING_CHARS) {
      // A very long line without a newline: pass on what is safe, up to the last whitespace.
      const at = Math.max(this.pending.lastIndexOf(' ', this.pending.length - 1024), this.pending.lastIndexOf('\t', this.pending.length - 1024)) + 1;
      if (at > 0) {
        this.emit(this.pending.slice(0, at));
        this.pending = this.pending.slice(at);
      }
    }
  }

  /** Passes on the unfinished last line (the stream ended). */
  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest !== '') this.emit(rest);
  }

  private emit(raw: string): void {
    const text = this.redactor.redact(raw);
    if (this.headText.length < KEPT_CHARS) this.headText += text.slice(0, KEPT_CHARS - this.headText.length);
    this.tailText = (this.tailText + text).slice(-KEPT_CHARS);
    this.onText(text);
  }
}

/** Lines worth quoting from the start of stderr: the ones that name an error, not stack frames or banners. */
const MEANINGFUL = /\b(error|cannot|can't|could not|unable|not found|no such|denied|refused|fatal|failed|failure|invalid|missing|unknown|unexpected|exception|panic|abort|unauthori[sz]ed|forbidden)\b/i;
const STACK_FRAME = /^\s+at\s|^\s*\^+\s*$|^\s*throw\s/;

/**
 * The stderr excerpt quoted in a `ProcessError` message: up to 3 lines from
 * the start that name the error (e.g. `Error: Cannot find module '/x.js'`),
 * then the last `tailLines` lines, without repeating a line.
 */
export function stderrExcerpt(head: string, tail: string, tailLines = 5): string {
  const last = tail.split('\n').map((line) => line.trimEnd()).filter((line) => line.trim() !== '').slice(-tailLines);
  const first: string[] = [];
  for (const line of head.split('\n')) {
    const text = line.trimEnd();
    if (first.length >= 3) break;
    if (text.trim() === '' || STACK_FRAME.test(text) || !MEANINGFUL.test(text)) continue;
    if (!last.includes(text) && !first.includes(text)) first.push(text);
  }
  return first.length > 0 ? [...first, '…', ...last].join('\n') : last.join('\n');
}
