import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { LineSplitter, parseJsonLine, readJsonLines } from '@troupe/core/util';

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

describe('LineSplitter with maxLineLength', () => {
  it('drops a line that grows past the limit, wherever it is cut, reports it once, and goes on after its newline', () => {
    const text = `short\n${'y'.repeat(50)}\nafter\n${'z'.repeat(11)}\nlast\n`;
    for (let cut = 1; cut < text.length; cut++) {
      const tooLong: number[] = [];
      const splitter = new LineSplitter({ maxLineLength: 10, onLineTooLong: (length) => tooLong.push(length) });
      const lines = [...splitter.push(text.slice(0, cut)), ...splitter.push(text.slice(cut)), ...splitter.end()];
      expect(lines, `cut at ${cut}`).toEqual(['short', 'after', 'last']);
      expect(tooLong, `cut at ${cut}`).toHaveLength(2);
      // The length reported is what was seen of the line: past the limit, never more than the line.
      for (const length of tooLong) expect(length).toBeGreaterThan(10);
      expect(tooLong[0]).toBeLessThanOrEqual(50);
    }
  });

  it('holds at most the limit of an endless line (32 MiB in 64 KiB chunks), and a last line without a newline is checked too', () => {
    const splitter = new LineSplitter({ maxLineLength: 1024 * 1024, onLineTooLong: () => {} });
    const chunk = Buffer.alloc(65_536, 'x');
    let most = 0;
    for (let i = 0; i < 512; i++) {
      expect(splitter.push(chunk)).toEqual([]);
      most = Math.max(most, splitter.pendingLength);
    }
    expect(most).toBeLessThanOrEqual(1024 * 1024);
    expect(splitter.push('\nok\n')).toEqual(['ok']);
    const tooLong: number[] = [];
    const last = new LineSplitter({ maxLineLength: 3, onLineTooLong: (length) => tooLong.push(length) });
    expect(last.push('abc\nabc')).toEqual(['abc']);
    expect(last.end()).toEqual(['abc']);
    expect(new LineSplitter({ maxLineLength: 3 }).push('abcd\n')).toEqual([]);
    expect(tooLong).toEqual([]);
    expect(() => new LineSplitter({ maxLineLength: 0 })).toThrow(/maxLineLength/);
  });
});

describe('readJsonLines', () => {
  it('hands every JSON value up (null included), names bad lines without echoing them, and survives a throwing callback', () => {
    const stream = new PassThrough();
    const values: unknown[] = [];
    const invalid: string[] = [];
    const tooLong: number[] = [];
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    readJsonLines(stream, {
      maxLineLength: 100,
      onValue: (value) => {
        if (value === 'throw') throw new Error('callback bug');
        values.push(value);
      },
      onInvalid: (reason) => invalid.push(reason),
      onLineTooLong: (length) => tooLong.push(length),
    });
    stream.write('null\n[1]\n  \n42\n"throw"\n{"__proto__":{"x":1},"id":1}\n');
    stream.write(Buffer.from('{"s":"é'.concat('"}\n'), 'utf8').subarray(0, 7));
    stream.write(Buffer.from('{"s":"é"}\n', 'utf8').subarray(7));
    stream.write(`{"secret":"sk-ant-0123456789abcdef",\n${'x'.repeat(500)}\n{"after":true}\n{"tail":1}`);
    stream.end();
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      process.off('warning', onWarning);
      expect(values).toEqual([null, [1], 42, JSON.parse('{"__proto__":{"x":1},"id":1}'), { s: 'é' }, { after: true }, { tail: 1 }]);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
      expect(invalid).toHaveLength(1);
      expect(invalid[0]).toMatch(/^not JSON/);
      expect(invalid[0]).not.toContain('sk-ant');
      expect(tooLong).toHaveLength(1);
      expect(warnings.some((warning) => warning.includes('callback bug'))).toBe(true);
    });
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
