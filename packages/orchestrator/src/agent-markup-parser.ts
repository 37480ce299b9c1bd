import { InvalidArgumentError, InvalidStateError } from '@troupe/core';

/** Where a piece of streamed text sits: outside any section, in `<thinking>`, or in `<response>`. */
export type AgentMarkupSection = 'none' | 'thinking' | 'response';

/** Why a piece of markup could not be used (reported, never thrown). */
export type AgentMarkupIssueReason =
  /** `<thinking>` or `<response>` opened while another section was open. */
  | 'nested-section'
  /** A closing tag that closes nothing (`</response>` outside `<response>`, a stray `</tool_call>`). */
  | 'unmatched-closing-tag'
  /** The text ended inside `<thinking>` or `<response>`. */
  | 'unclosed-section'
  /** The text ended inside `<tool_call>`. */
  | 'unclosed-tool-call'
  /** A `<tool_call>` body that is not `{"name": "...", "arguments": {...}}` JSON. */
  | 'invalid-tool-call';

/**
 * What {@link AgentMarkupParser} reads out of streamed model text, in order.
 * Adjacent `text` events of one section may come split differently depending
 * on how the text was chunked; every other event is the same whatever the
 * chunking.
 */
export type AgentMarkupEvent =
  /** Plain text, in the section it belongs to. */
  | { type: 'text'; text: string; section: AgentMarkupSection }
  /** `<thinking>` or `<response>` opened. */
  | { type: 'section-start'; section: Exclude<AgentMarkupSection, 'none'> }
  /** The open section closed (or the text ended inside it, after a `malformed` event). */
  | { type: 'section-end'; section: Exclude<AgentMarkupSection, 'none'> }
  /** A complete `<tool_call>…</tool_call>` whose body named a tool. */
  | { type: 'tool-call'; toolName: string; input: unknown; raw: string }
  /** The configured end marker appeared in the text (outside a tool call). */
  | { type: 'end-marker'; marker: string }
  /** Markup that could not be used; parsing goes on. `raw` is the offending text. */
  | { type: 'malformed'; reason: AgentMarkupIssueReason; message: string; raw: string };

/** Settings of {@link AgentMarkupParser}. */
export interface AgentMarkupParserOptions {
  /**
   * A string that ends the agent's turn when the model writes it (e.g.
   * `[[DONE]]`), recognised even when split across chunks. Default: none.
   */
  endMarker?: string;
}

const THINKING_OPEN = '<thinking>';
const THINKING_CLOSE = '</thinking>';
const RESPONSE_OPEN = '<response>';
const RESPONSE_CLOSE = '</response>';
const TOOL_OPEN = '<tool_call>';
const TOOL_CLOSE = '</tool_call>';

/**
 * Incremental parser of the agent markup seed 004 streams: `<thinking>`,
 * `<response>` and `<tool_call>{"name": …, "arguments": …}</tool_call>`
 * (the Hermes/Qwen tool-call format), plus an optional end marker. Feed it
 * chunks as they arrive with {@link push}, then call {@link end}.
 *
 * Tags split across chunks are recognised: text that may be the start of a
 * tag is held back until the next chunk decides (and flushed as text by
 * `end()` if it never completes). Everything else is emitted as soon as it
 * arrives. Unknown tags (`<div>`, `Array<string>`) are plain text. Malformed
 * markup — nesting, stray closing tags, unclosed tags, a tool call body that
 * is not JSON — comes out as a `malformed` event; the parser never throws on
 * model output.
 *
 * @example
 * ```ts
 * const parser = new AgentMarkupParser();
 * const events = [...parser.push('<thinking>plan</thi'), ...parser.push('nking><tool_call>{"name":"read_file",'),
 *   ...parser.push('"arguments":{"path":"a.txt"}}</tool_call>'), ...parser.end()];
 * // section-start thinking, text "plan", section-end thinking, tool-call read_file { path: 'a.txt' }
 * ```
 */
export class AgentMarkupParser {
  private readonly tokens: readonly string[];
  private readonly startChars: ReadonlySet<string>;
  private readonly endMarker: string | undefined;
  private pending = '';
  private section: AgentMarkupSection = 'none';
  private toolBody: string | undefined;
  private ended = false;

  constructor(options: AgentMarkupParserOptions = {}) {
    const { endMarker } = options;
    if (endMarker !== undefined && (typeof endMarker !== 'string' || endMarker.length === 0)) {
      throw new InvalidArgumentError('endMarker', `expected a non-empty string, got ${JSON.stringify(endMarker)}`);
    }
    this.endMarker = endMarker;
    const tokens = [THINKING_OPEN, THINKING_CLOSE, RESPONSE_OPEN, RESPONSE_CLOSE, TOOL_OPEN, TOOL_CLOSE];
    if (endMarker !== undefined && !tokens.includes(endMarker)) tokens.push(endMarker);
    // Longest first: a longer token that may still match wins over a shorter one that already does.
    this.tokens = tokens.sort((a, b) => b.length - a.length);
    this.startChars = new Set(this.tokens.map((token) => token[0] as string));
  }

  /** The section the text currently streams into. */
  get currentSection(): AgentMarkupSection {
    return this.section;
  }

  /** Parses the next chunk; returns the events it completes. */
  push(chunk: string): AgentMarkupEvent[] {
    if (this.ended) throw new InvalidStateError('AgentMarkupParser.push() was called after end()');
    if (typeof chunk !== 'string') throw new InvalidArgumentError('chunk', `expected a string, got ${typeof chunk}`);
    const out: AgentMarkupEvent[] = [];
    this.scan(out, chunk, false);
    return out;
  }

  /** Ends the text: flushes held-back text and reports anything left open. Call once. */
  end(): AgentMarkupEvent[] {
    if (this.ended) throw new InvalidStateError('AgentMarkupParser.end() was called twice');
    this.ended = true;
    const out: AgentMarkupEvent[] = [];
    // Held-back text can no longer grow into a longer tag: scan it once more, final.
    if (this.toolBody === undefined && this.pending !== '') this.scan(out, '', true);
    if (this.toolBody !== undefined) {
      const raw = `${TOOL_OPEN}${this.toolBody}${this.pending}`;
      out.push({ type: 'malformed', reason: 'unclosed-tool-call', message: 'The text ended inside <tool_call> (no </tool_call>)', raw });
      this.toolBody = undefined;
    }
    this.pending = '';
    if (this.section !== 'none') {
      const section = this.section;
      out.push({ type: 'malformed', reason: 'unclosed-section', message: `The text ended inside <${section}> (no </${section}>)`, raw: `<${section}>` });
      out.push({ type: 'section-end', section });
      this.section = 'none';
    }
    return out;
  }

  private scan(out: AgentMarkupEvent[], chunk: string, final: boolean): void {
    const buffer = this.pending + chunk;
    this.pending = '';
    let index = 0;
    let textStart = 0;
    while (index < buffer.length) {
      if (this.toolBody !== undefined) {
        const close = buffer.indexOf(TOOL_CLOSE, index);
        if (close === -1) {
          const keep = partialSuffixLength(buffer, TOOL_CLOSE, index);
          this.toolBody += buffer.slice(index, buffer.length - keep);
          this.pending = buffer.slice(buffer.length - keep);
          return;
        }
        this.toolBody += buffer.slice(index, close);
        out.push(toolCallEvent(this.toolBody));
        this.toolBody = undefined;
        index = close + TOOL_CLOSE.length;
        textStart = index;
        continue;
      }
      if (!this.startChars.has(buffer[index] as string)) {
        index++;
        continue;
      }
      const match = this.matchToken(buffer, index, final);
      if (match === 'partial') {
        this.emitText(out, buffer.slice(textStart, index));
        this.pending = buffer.slice(index);
        return;
      }
      if (match === undefined) {
        index++;
        continue;
      }
      this.emitText(out, buffer.slice(textStart, index));
      this.handleToken(out, match);
      index += match.length;
      textStart = index;
    }
    if (this.toolBody === undefined) this.emitText(out, buffer.slice(textStart));
  }

  private matchToken(buffer: string, index: number, final: boolean): string | 'partial' | undefined {
    const rest = buffer.length - index;
    for (const token of this.tokens) {
      if (rest >= token.length) {
        if (buffer.startsWith(token, index)) return token;
      } else if (!final && token.startsWith(buffer.slice(index))) {
        return 'partial';
      }
    }
    return undefined;
  }

  private handleToken(out: AgentMarkupEvent[], token: string): void {
    switch (token) {
      case THINKING_OPEN:
      case RESPONSE_OPEN: {
        const section = token === THINKING_OPEN ? 'thinking' : 'response';
        if (this.section === 'none') {
          this.section = section;
          out.push({ type: 'section-start', section });
        } else {
          out.push({ type: 'malformed', reason: 'nested-section', message: `<${section}> inside <${this.section}> (sections do not nest)`, raw: token });
          this.emitText(out, token);
        }
        return;
      }
      case THINKING_CLOSE:
      case RESPONSE_CLOSE: {
        const section = token === THINKING_CLOSE ? 'thinking' : 'response';
        if (this.section === section) {
          this.section = 'none';
          out.push({ type: 'section-end', section });
        } else {
          const where = this.section === 'none' ? 'outside any section' : `inside <${this.section}>`;
          out.push({ type: 'malformed', reason: 'unmatched-closing-tag', message: `</${section}> ${where}`, raw: token });
          this.emitText(out, token);
        }
        return;
      }
      case TOOL_OPEN:
        this.toolBody = '';
        return;
      case TOOL_CLOSE:
        out.push({ type: 'malformed', reason: 'unmatched-closing-tag', message: '</tool_call> without <tool_call>', raw: token });
        this.emitText(out, token);
        return;
      default:
        // The only other token is the end marker.
        out.push({ type: 'end-marker', marker: this.endMarker as string });
    }
  }

  private emitText(out: AgentMarkupEvent[], text: string): void {
    if (text === '') return;
    const last = out[out.length - 1];
    if (last?.type === 'text' && last.section === this.section) last.text += text;
    else out.push({ type: 'text', text, section: this.section });
  }
}

/** Length of the longest proper prefix of `token` that `text` (from `from` on) ends with. */
function partialSuffixLength(text: string, token: string, from: number): number {
  const max = Math.min(token.length - 1, text.length - from);
  for (let length = max; length > 0; length--) {
    if (text.endsWith(token.slice(0, length))) return length;
  }
  return 0;
}

function toolCallEvent(body: string): AgentMarkupEvent {
  const raw = `${TOOL_OPEN}${body}${TOOL_CLOSE}`;
  const invalid = (message: string): AgentMarkupEvent => ({ type: 'malformed', reason: 'invalid-tool-call', message, raw });
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return invalid(`<tool_call> body is not valid JSON (${(error as Error).message}); expected {"name": "...", "arguments": {...}}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return invalid('<tool_call> body must be a JSON object {"name": "...", "arguments": {...}}');
  }
  const record = value as Record<string, unknown>;
  if (typeof record.name !== 'string' || record.name === '') {
    return invalid('<tool_call> body has no "name" (expected {"name": "...", "arguments": {...}})');
  }
  let input = record.arguments ?? record.input ?? record.parameters ?? {};
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      // Left as text: argument validation turns it into an error result the model sees.
    }
  }
  return { type: 'tool-call', toolName: record.name, input, raw };
}
