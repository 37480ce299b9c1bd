import { seededRandom } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { AgentMarkupParser, type AgentMarkupEvent, type AgentMarkupSection } from './index';

function parseChunks(chunks: readonly string[], endMarker?: string): AgentMarkupEvent[] {
  const parser = new AgentMarkupParser(endMarker === undefined ? {} : { endMarker });
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return normalize([...events, ...parser.end()]);
}

/** Adjacent text events of one section are one piece of text, however the stream was chunked. */
function normalize(events: readonly AgentMarkupEvent[]): AgentMarkupEvent[] {
  const out: AgentMarkupEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === 'text' && last?.type === 'text' && last.section === event.section) out[out.length - 1] = { ...last, text: last.text + event.text };
    else out.push(event.type === 'text' ? { ...event } : event);
  }
  return out;
}

describe('AgentMarkupParser', () => {
  it('reads sections and a tool call split across chunks', () => {
    const events = parseChunks(['Plan: <thi', 'nking>check the ', 'file</thinking><tool_', 'call>{"name":"read_file",', '"arguments":{"path":"a.txt"}}</tool', '_call><response>Done.</respo', 'nse>']);
    expect(events).toMatchInlineSnapshot(`
      [
        {
          "section": "none",
          "text": "Plan: ",
          "type": "text",
        },
        {
          "section": "thinking",
          "type": "section-start",
        },
        {
          "section": "thinking",
          "text": "check the file",
          "type": "text",
        },
        {
          "section": "thinking",
          "type": "section-end",
        },
        {
          "input": {
            "path": "a.txt",
          },
          "raw": "<tool_call>{"name":"read_file","arguments":{"path":"a.txt"}}</tool_call>",
          "toolName": "read_file",
          "type": "tool-call",
        },
        {
          "section": "response",
          "type": "section-start",
        },
        {
          "section": "response",
          "text": "Done.",
          "type": "text",
        },
        {
          "section": "response",
          "type": "section-end",
        },
      ]
    `);
  });

  it('emits plain text at once and holds back only what may start a tag', () => {
    const parser = new AgentMarkupParser();
    expect(parser.push('Hello <')).toEqual([{ type: 'text', text: 'Hello ', section: 'none' }]);
    expect(parser.push('b>world')).toEqual([{ type: 'text', text: '<b>world', section: 'none' }]);
    expect(parser.push(' Array<string> and <div>')).toEqual([{ type: 'text', text: ' Array<string> and <div>', section: 'none' }]);
    expect(parser.push('<respon')).toEqual([]);
    expect(parser.end()).toEqual([{ type: 'text', text: '<respon', section: 'none' }]);
  });

  it('reports malformed markup as events and keeps going', () => {
    const events = parseChunks([
      '</response>x<thinking>a<response>b</thinking>',
      '<tool_call>not json</tool_call></tool_call>',
      '<tool_call>{"arguments":{}}</tool_call>',
      '<response>open <tool_call>{"name":"x"',
    ]);
    expect(events.filter((event) => event.type === 'malformed').map((event) => event.type === 'malformed' && event.reason)).toEqual([
      'unmatched-closing-tag',
      'nested-section',
      'invalid-tool-call',
      'unmatched-closing-tag',
      'invalid-tool-call',
      'unclosed-tool-call',
      'unclosed-section',
    ]);
    expect(events.at(-1)).toEqual({ type: 'section-end', section: 'response' });
    // Stray tags stay in the text, where they were.
    expect(events.filter((event) => event.type === 'text').map((event) => event.type === 'text' && event.text)).toEqual([
      '</response>x',
      'a',
      '<response>b',
      '</tool_call>',
      'open ',
    ]);
  });

  it('accepts arguments as a JSON string and "input" for "arguments"', () => {
    const events = parseChunks(['<tool_call>{"name":"a","arguments":"{\\"n\\":1}"}</tool_call><tool_call>{"name":"b","input":{"n":2}}</tool_call>']);
    expect(events.map((event) => event.type === 'tool-call' && [event.toolName, event.input])).toEqual([
      ['a', { n: 1 }],
      ['b', { n: 2 }],
    ]);
  });

  it('recognises the end marker across chunks, never inside a tool call', () => {
    expect(parseChunks(['done [[EN', 'D]] tail'], '[[END]]')).toEqual([
      { type: 'text', text: 'done ', section: 'none' },
      { type: 'end-marker', marker: '[[END]]' },
      { type: 'text', text: ' tail', section: 'none' },
    ]);
    expect(parseChunks(['<tool_call>{"name":"a","arguments":{"s":"[[END]]"}}</tool_call>'], '[[END]]')).toHaveLength(1);
  });

  it('rejects bad input loudly', () => {
    expect(() => new AgentMarkupParser({ endMarker: '' })).toThrow(/endMarker/);
    const parser = new AgentMarkupParser();
    expect(() => parser.push(42 as unknown as string)).toThrow(/chunk/);
    parser.end();
    expect(() => parser.push('x')).toThrow(/after end/);
    expect(() => parser.end()).toThrow(/twice/);
  });
});

// ---------------------------------------------------------------- property test

/** A seeded PRNG, so every failure is reproducible from its seed. */
const rng = (seed: number): (() => number) => seededRandom(seed).next;

const END_MARKER = '[[END]]';
const TOKENS = ['<thinking>', '</thinking>', '<response>', '</response>', '<tool_call>', '</tool_call>', END_MARKER];
// Near misses: prefixes of tags and of the marker, lookalike tags, generics, lone brackets.
const FRAGMENTS = ['<', '>', '</', '<think', '</thinkin', '<respons', '<tool_cal', '</tool_', '<div>', 'Array<T>', '[[', '[[EN', ']]', 'x < y > z', '\n', ' ', '{"a":1}', 'é', '🙂'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz .,:<>/[]"';

interface Generated {
  document: string;
  expected: AgentMarkupEvent[];
}

/** Builds a random document and, by construction, the events it must parse to. */
function generate(random: () => number): Generated {
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let document = '';
  const expected: AgentMarkupEvent[] = [];
  let section: AgentMarkupSection = 'none';
  const text = (value: string) => {
    // Two texts in a row must not join into a token across their boundary.
    const last = expected[expected.length - 1];
    const joined = last?.type === 'text' ? last.text + value : value;
    const safe = TOKENS.some((token) => joined.includes(token)) ? 'plain' : value;
    if (safe === '') return;
    document += safe;
    expected.push({ type: 'text', text: safe, section });
  };
  const randomText = () => {
    let value = '';
    const parts = 1 + Math.floor(random() * 4);
    for (let i = 0; i < parts; i++) {
      if (random() < 0.5) value += pick(FRAGMENTS);
      else for (let j = Math.floor(random() * 8); j > 0; j--) value += pick([...LETTERS]);
    }
    // A generated text must not contain a token (then it would not be plain text).
    return TOKENS.some((token) => value.includes(token)) ? 'plain' : value;
  };
  const steps = 1 + Math.floor(random() * 12);
  for (let step = 0; step < steps; step++) {
    const roll = random();
    if (roll < 0.3) {
      text(randomText());
    } else if (roll < 0.45) {
      const next = pick(['thinking', 'response'] as const);
      if (section === 'none') {
        document += `<${next}>`;
        expected.push({ type: 'section-start', section: next });
        section = next;
      } else {
        document += `<${next}>`;
        expected.push({ type: 'malformed', reason: 'nested-section', message: `<${next}> inside <${section}> (sections do not nest)`, raw: `<${next}>` });
        expected.push({ type: 'text', text: `<${next}>`, section });
      }
    } else if (roll < 0.6) {
      const closing = pick(['thinking', 'response'] as const);
      if (section === closing) {
        document += `</${closing}>`;
        expected.push({ type: 'section-end', section: closing });
        section = 'none';
      } else {
        const where = section === 'none' ? 'outside any section' : `inside <${section}>`;
        document += `</${closing}>`;
        expected.push({ type: 'malformed', reason: 'unmatched-closing-tag', message: `</${closing}> ${where}`, raw: `</${closing}>` });
        expected.push({ type: 'text', text: `</${closing}>`, section });
      }
    } else if (roll < 0.8) {
      const name = pick(['read_file', 'shell_exec', 'task_finish']);
      const args = { path: randomText(), n: Math.floor(random() * 100), nested: { list: [randomText()] } };
      const body = JSON.stringify({ name, arguments: args });
      const safe = !body.includes('</tool_call>');
      const finalBody = safe ? body : JSON.stringify({ name, arguments: {} });
      document += `<tool_call>${finalBody}</tool_call>`;
      expected.push({ type: 'tool-call', toolName: name, input: safe ? args : {}, raw: `<tool_call>${finalBody}</tool_call>` });
    } else if (roll < 0.86) {
      let body = `{"name": "broken", ${randomText()}`;
      try {
        JSON.parse(body);
        body = '{"name": "broken",';
      } catch {
        // Invalid, as wanted.
      }
      const raw = `<tool_call>${body}</tool_call>`;
      document += raw;
      let message = '';
      try {
        JSON.parse(body);
      } catch (error) {
        message = `<tool_call> body is not valid JSON (${(error as Error).message}); expected {"name": "...", "arguments": {...}}`;
      }
      expected.push({ type: 'malformed', reason: 'invalid-tool-call', message, raw });
    } else if (roll < 0.92) {
      document += '</tool_call>';
      expected.push({ type: 'malformed', reason: 'unmatched-closing-tag', message: '</tool_call> without <tool_call>', raw: '</tool_call>' });
      expected.push({ type: 'text', text: '</tool_call>', section });
    } else {
      document += END_MARKER;
      expected.push({ type: 'end-marker', marker: END_MARKER });
    }
  }
  const ending = random();
  if (ending < 0.1) {
    const body = `{"name":"cut", "arguments": {"path": "${randomText().replace(/[\\"]/g, '')}`.replace(/<\/tool_call>/g, '');
    document += `<tool_call>${body}`;
    expected.push({ type: 'malformed', reason: 'unclosed-tool-call', message: 'The text ended inside <tool_call> (no </tool_call>)', raw: `<tool_call>${body}` });
  } else if (ending < 0.2) {
    text(pick(['<', '<thin', '</respo', '<tool_c', '[[EN', '[']));
  }
  if (section !== 'none') {
    expected.push({ type: 'malformed', reason: 'unclosed-section', message: `The text ended inside <${section}> (no </${section}>)`, raw: `<${section}>` });
    expected.push({ type: 'section-end', section });
  }
  return { document, expected: normalize(expected) };
}

/** Splits a string at random points (empty chunks included), never inside a UTF-16 surrogate pair. */
function randomSplit(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let index = 0;
  while (index < text.length) {
    let size = random() < 0.1 ? 0 : 1 + Math.floor(random() * (random() < 0.5 ? 4 : 24));
    if (index + size < text.length && /[\uD800-\uDBFF]/.test(text[index + size - 1] ?? '')) size++;
    chunks.push(text.slice(index, index + size));
    index += size;
  }
  return chunks;
}

describe('AgentMarkupParser (property: any chunking gives the same events)', () => {
  it('parses 600 generated documents, each under 8 random chunkings, to the events they were built from', () => {
    const seed = 0x5eed004;
    const random = rng(seed);
    let checked = 0;
    for (let doc = 0; doc < 600; doc++) {
      const { document, expected } = generate(random);
      expect(parseChunks([document], END_MARKER), `seed ${seed}, document #${doc}: ${JSON.stringify(document)}`).toEqual(expected);
      expect(parseChunks([...document], END_MARKER), `one character per chunk, document #${doc}`).toEqual(expected);
      for (let split = 0; split < 8; split++) {
        const chunks = randomSplit(document, random);
        expect(parseChunks(chunks, END_MARKER), `seed ${seed}, document #${doc}, chunks ${JSON.stringify(chunks)}`).toEqual(expected);
        checked++;
      }
    }
    expect(checked).toBe(4800);
  });
});
