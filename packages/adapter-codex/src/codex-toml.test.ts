import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { toTomlString } from './codex-toml';

// Codex parses `-c key=value` values as TOML, so every string must round-trip
// through a real TOML parser. (codex.int.test.ts checks the same against the
// real CLI's request body.)
const roundTrip = (value: string) => (parse(`value = ${toTomlString(value)}`) as { value: string }).value;

describe('toTomlString', () => {
  it('escapes quotes, backslashes and line breaks', () => {
    expect(toTomlString('Say "hi"\nthen C:\\stop')).toMatchInlineSnapshot(`""Say \\"hi\\"\\nthen C:\\\\stop""`);
  });

  it.each([
    ['plain', 'You are Max, a tech lead.'],
    ['quotes and newlines', 'Line 1 "quoted" and \'single\'\nLine 2'],
    ['backslashes', 'C:\\path\\to \\n is not a newline \\'],
    ['triple quotes', 'a """ b \'\'\' c """"""'],
    ['tabs, CR, control characters, DEL', 'a\tb\r\nc\u0000d\u0001e\u001ff\u007fg\bh\fi'],
    ['unicode', 'é 漢字 🎭 \u2028 \u00a0'],
    ['TOML syntax', '= [a] {b} # not a comment ${x} $(y) `z`'],
    ['empty', ''],
  ])('%s survive a TOML parser', (_name, value) => {
    expect(roundTrip(value)).toBe(value);
  });

  it('keeps every BMP character and astral ones (lone surrogates become U+FFFD)', () => {
    let all = '';
    for (let code = 0; code < 0x10000; code++) if (code < 0xd800 || code > 0xdfff) all += String.fromCharCode(code);
    all += '\u{1F600}\u{10FFFF}';
    expect(roundTrip(all)).toBe(all);
    expect(roundTrip('a\ud800b')).toBe('a\uFFFDb');
  });
});
