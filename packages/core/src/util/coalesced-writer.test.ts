import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coalescedWriter } from '@troupe/core/util';

/** A stream that records what reaches its underlying writes: one entry per `_write`/`_writev` call. */
function recordingStream() {
  const calls: string[][] = [];
  const stream = new PassThrough({
    writev(chunks, callback) {
      calls.push(chunks.map(({ chunk }) => String(chunk)));
      callback();
    },
    write(chunk, _encoding, callback) {
      calls.push([String(chunk)]);
      callback();
    },
  });
  return { stream, calls };
}

describe('coalescedWriter', () => {
  it('sends the writes of one tick in one underlying write, in order, and the next tick in another', async () => {
    const { stream, calls } = recordingStream();
    const write = coalescedWriter(stream);
    for (let index = 0; index < 200; index++) write(`line ${index}\n`);
    expect(calls).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual(Array.from({ length: 200 }, (_, index) => `line ${index}\n`));
    write('later\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([expect.any(Array), ['later\n']]);
  });

  it('flush() sends what it holds back at once, and the writes after it still leave together', async () => {
    const { stream, calls } = recordingStream();
    const write = coalescedWriter(stream);
    write('a\n');
    write('b\n');
    write.flush();
    expect(calls).toEqual([['a\n', 'b\n']]);
    write.flush(); // nothing held back: no empty write
    write('c\n');
    write('d\n');
    expect(calls).toHaveLength(1);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(calls).toEqual([['a\n', 'b\n'], ['c\n', 'd\n']]);
    expect(stream.writableCorked).toBe(0);
  });

  it('drops writes once the stream is no longer writable', async () => {
    const { stream, calls } = recordingStream();
    const write = coalescedWriter(stream);
    write('kept\n');
    stream.end();
    write('dropped\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.flat()).toEqual(['kept\n']);
  });
});
