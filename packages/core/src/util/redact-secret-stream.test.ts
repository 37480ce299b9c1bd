import { describe, expect, it } from 'vitest';
import { createSecretRedactor, REDACTED, type SecretRedactor } from '@troupe/core/util';

const LITERAL = 'canary-literal-secret-4471';
const KEYS = ['sk-ant-api03-CANARYanthropic0123456789abcdef', 'ghp_CANARYgithub0123456789abcdefABCDEF', 'AKIAABCDEFGHIJKLMNOP'];
const BEARER_TOKEN = 'eyJcanary.0123456789.bearerpayload';
const ALL = [LITERAL, ...KEYS, BEARER_TOKEN];

/** Feeds `pieces` through one stream; returns every output piece (the last one from `end()`). */
function stream(redactor: SecretRedactor, pieces: readonly string[]): string[] {
  const s = redactor.stream();
  return [...pieces.map((piece) => s.write(piece)), s.end()];
}

/** Every secret that any prefix of the joined output reveals (what a consumer joining the deltas sees at any moment). */
function revealed(outputs: readonly string[]): string[] {
  let joined = '';
  const found = new Set<string>();
  for (const out of outputs) {
    joined += out;
    for (const secret of ALL) if (joined.includes(secret)) found.add(secret);
  }
  return [...found].sort();
}

function cutEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SecretRedactor.stream', () => {
  const redactor = createSecretRedactor({ secrets: [LITERAL] });
  const text = `Here: ${LITERAL}, then ${KEYS[0]} and ${KEYS[1]} (${KEYS[2]}). Authorization: Bearer ${BEARER_TOKEN} done.`;

  it('hides a secret streamed one, two or three characters at a time; joined, the output is the redacted text', () => {
    for (const size of [1, 2, 3, 5, 7]) {
      const outputs = stream(redactor, cutEvery(text, size));
      expect(revealed(outputs), `pieces of ${size}`).toEqual([]);
      expect(outputs.join(''), `pieces of ${size}`).toBe(redactor.redact(text));
    }
    expect(redactor.redact(text)).toBe(`Here: ${REDACTED}, then ${REDACTED} and ${REDACTED} (${REDACTED}). Authorization: Bearer ${REDACTED} done.`);
  });

  it('hides a secret cut in two at every position', () => {
    for (const secret of ALL) {
      const line = `say ${secret === BEARER_TOKEN ? `Bearer ${secret}` : secret} now`;
      for (let cut = 1; cut < line.length; cut++) {
        const outputs = stream(redactor, [line.slice(0, cut), line.slice(cut)]);
        expect(revealed(outputs), `${secret} cut at ${cut}`).toEqual([]);
        expect(outputs.join('')).toBe(redactor.redact(line));
      }
    }
  });

  it('shows text without secrets at once, holding back only a trailing word that could begin one', () => {
    const s = redactor.stream();
    expect(s.write('Hello world')).toBe('Hello world');
    expect(s.write('. The answer is sk')).toBe('. The answer is ');
    expect(s.write('y blue, not ')).toBe('sky blue, not ');
    expect(s.write('gh')).toBe(''); // ghp_…
    expect(s.write('ost')).toBe('ghost');
    expect(s.write(' key=canary-lit')).toBe(' key='); // the literal secret begins so
    expect(s.end()).toBe('canary-lit');
    expect(s.write('AKI')).toBe(''); // starts over after end()
    expect(s.end()).toBe('AKI');
  });

  it('holds every trailing word when a secret pattern of unknown beginning is given', () => {
    const s = createSecretRedactor({ secrets: [/acme_[a-z0-9]{12}/] }).stream();
    expect(s.write('Hello world')).toBe('Hello ');
    expect(s.end()).toBe('world');
  });

  it('holds back a tail that begins a literal secret, even across blanks, and releases it when ruled out', () => {
    const spaced = createSecretRedactor({ secrets: ['open sesame 42'] });
    const s = spaced.stream();
    expect(s.write('say: open ')).toBe('say: ');
    expect(s.write('sesame 4')).toBe('');
    expect(s.write('2!')).toBe(`${REDACTED}!`);
    expect(s.write(' open the door')).toBe(' open the door');
    expect(s.end()).toBe('');
  });

  it('holds back a bounded tail: a long run of token characters is released beyond the cap', () => {
    const s = createSecretRedactor({ secrets: [/acme_[a-z0-9]{12}/] }).stream(); // holds every trailing word
    const run = 'a'.repeat(1000);
    const shown = s.write(run);
    expect(shown.length).toBeGreaterThanOrEqual(1000 - 256);
    expect(shown + s.end()).toBe(run);
    // A key longer than the cap: released as redacted, and none of its tail follows.
    const key = `sk-ant-${'k'.repeat(600)}`;
    const outputs = stream(redactor, [...cutEvery(key, 5), ' after']);
    expect(outputs.join('')).toBe(`${REDACTED} after`);
  });

  it('matches whole-text redaction on random texts cut at random places', () => {
    const next = random(26);
    // Runs of token characters stay under the hold cap (256): see the test above for longer ones.
    const words = [...ALL, 'Bearer', ' ', ' ', 'sk-', 'ghp_', 'canary-', 'literal', 'AKIA', '\n', 'plain', 'text,', 'x'];
    for (let round = 0; round < 300; round++) {
      let input = '';
      for (let i = 0; i < 8; i++) input += words[Math.floor(next() * words.length)];
      const pieces: string[] = [];
      for (let at = 0; at < input.length; ) {
        const size = 1 + Math.floor(next() * 9);
        pieces.push(input.slice(at, at + size));
        at += size;
      }
      const outputs = stream(redactor, pieces);
      expect(outputs.join(''), JSON.stringify(pieces)).toBe(redactor.redact(input));
      // At no moment more than the whole-text redaction shows (a key glued to a word is no key shape).
      expect(revealed(outputs), JSON.stringify(pieces)).toEqual(revealed([redactor.redact(input)]));
    }
  });

  it('hides a pattern secret streamed in pieces', () => {
    const custom = createSecretRedactor({ secrets: [/acme_([a-z0-9]{12})/] });
    expect(stream(custom, cutEvery('id acme_abcdef123456 ok', 2)).join('')).toBe(`id ${REDACTED} ok`);
  });
});
