import { describe, expect, it } from 'vitest';
import { truncateText } from './looper-step-result';
import { oneLine } from './looper-texts';

/** What `oneLine` must equal: collapse every whitespace run, trim, then shorten. */
const reference = (text: string, max: number) => truncateText(text.replace(/\s+/g, ' ').trim(), max);

describe('oneLine', () => {
  it('equals collapsing the whole text then shortening it, for short and very long texts alike', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['word', 'x', ' ', '  ', '\n', '\t\t', '\u00a0', '\u3000', '日本', '🎉', '\u2028'];
    for (let round = 0; round < 300; round++) {
      const parts: string[] = [];
      const count = random(4) === 0 ? 20_000 : random(200);
      for (let i = 0; i < count; i++) parts.push(pieces[random(pieces.length)] as string);
      const text = parts.join('');
      for (const max of [50, 300]) expect(oneLine(text, max)).toBe(reference(text, max));
    }
  });

  it('counts what it leaves out of a long text, whitespace collapsed', () => {
    const text = `${'a '.repeat(10_000)}${' '.repeat(5_000)}`;
    expect(oneLine(text, 100)).toBe(reference(text, 100));
    expect(oneLine(text, 100)).toMatch(/… \[19939 more characters\]$/);
    const trailing = `${'b'.repeat(101)}${' '.repeat(2_000)}`;
    expect(oneLine(trailing, 100)).toBe(reference(trailing, 100));
  });
});
