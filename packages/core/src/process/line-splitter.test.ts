import { describe, expect, it } from 'vitest';
import { LineSplitter, parseJsonLine } from '@troupe/core';

function splitAll(chunks: (Buffer | string)[]): string[] {
  const splitter = new LineSplitter();
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
}

describe('LineSplitter', () => {
  it('carries partial lines across chunks and strips CRLF', () => {
    expect(splitAll(['{"a":', '1}\n{"b"', ':2}\r\n', 'tail'])).toEqual(['{"a":1}', '{"b":2}', 'tail']);
    expect(splitAll(['\n\n', 'x\n'])).toEqual(['', '', 'x']);
  });

  it('decodes UTF-8 characters split across chunks at any byte', () => {
    const text = 'é→世界🎭\nsecond ligne ✓\n';
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(splitAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['é→世界🎭', 'second ligne ✓']);
    }
    expect(splitAll([...bytes].map((byte) => Buffer.from([byte])))).toEqual(['é→世界🎭', 'second ligne ✓']);
  });

  it('matches a plain split for random chunkings', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => `line ${i} ${'ü'.repeat(Math.floor(random() * 20))}`);
      const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < bytes.length; ) {
        const size = 1 + Math.floor(random() * 40);
        chunks.push(bytes.subarray(offset, offset + size));
        offset += size;
      }
      expect(splitAll(chunks)).toEqual(lines);
    }
  });

  it('handles a 10 MB line in small chunks', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const buffer = Buffer.from(`${big}\nnext\n`);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < buffer.length; offset += 65_536) chunks.push(buffer.subarray(offset, offset + 65_536));
    const lines = splitAll(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBe(big.length);
    expect(lines[1]).toBe('next');
  });
});

describe('parseJsonLine', () => {
  it('parses JSON objects and arrays, returns undefined for anything else', () => {
    expect(parseJsonLine('{"type":"result"}')).toEqual({ type: 'result' });
    expect(parseJsonLine('  [1,2]')).toEqual([1, 2]);
    expect(parseJsonLine('{"broken"')).toBeUndefined();
    expect(parseJsonLine('Warning: no stdin data received in 3s')).toBeUndefined();
    expect(parseJsonLine('42')).toBeUndefined();
    expect(parseJsonLine('')).toBeUndefined();
  });
});
