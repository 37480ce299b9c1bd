import { LineSplitter } from '@troupe/core/util';
import type { BenchKit } from './bench-kit';

/**
 * Line splitting throughput on JSONL fed in 64 KiB chunks, at 10, 50 and 100 MB
 * (should be linear: the same MB/s at every size). Baseline: decoding the
 * whole buffer at once and one `split('\n')` — the ideal single pass, which a
 * streaming reader cannot do. The seed's approach (re-splitting all output
 * so far on every chunk) is quadratic; it is measured on 2 MB only.
 */
function makeJsonl(bytes: number): Buffer {
  const line = `${JSON.stringify({ type: 'stream_event', event: { type: 'content_block_delta', delta: { type: 'text_delta', text: 'Hello from fake-llm, ünïcödé ✓ '.repeat(3) } } })}\n`;
  return Buffer.from(line.repeat(Math.ceil(bytes / Buffer.byteLength(line))));
}

function chunks(buffer: Buffer, size = 65_536): Buffer[] {
  const out: Buffer[] = [];
  for (let offset = 0; offset < buffer.length; offset += size) out.push(buffer.subarray(offset, offset + size));
  return out;
}

function ours(parts: Buffer[]): number {
  const splitter = new LineSplitter();
  let lines = 0;
  for (const part of parts) lines += splitter.push(part).length;
  return lines + splitter.end().length;
}

function ideal(buffer: Buffer): number {
  return buffer.toString('utf8').split('\n').length - 1;
}

function seedStyle(parts: Buffer[]): number {
  let output = '';
  let lines = 0;
  for (const part of parts) {
    output += part.toString('utf8');
    lines = output.split('\n').length - 1; // the seed re-splits everything per chunk
  }
  return lines;
}

function time(fn: () => number): [number, number] {
  const start = performance.now();
  const result = fn();
  return [performance.now() - start, result];
}

export default async function (kit: BenchKit): Promise<void> {
  for (const megabytes of [10, 50, 100]) {
    const buffer = makeJsonl(megabytes * 1024 * 1024);
    const parts = chunks(buffer);
    ours(chunks(makeJsonl(4 * 1024 * 1024))); // warm-up
    const [oursMs, oursLines] = time(() => ours(parts));
    const [idealMs, idealLines] = time(() => ideal(buffer));
    if (oursLines !== idealLines) throw new Error(`line counts differ: ${oursLines} vs ${idealLines}`);
    const mb = buffer.length / 1024 / 1024;
    kit.report({
      name: `LineSplitter ${megabytes} MB in 64 KiB chunks`,
      value: mb / (oursMs / 1000),
      unit: 'MB/s',
      baselineName: 'one-shot toString().split()',
      baselineValue: mb / (idealMs / 1000),
    });
  }
  const small = makeJsonl(2 * 1024 * 1024);
  const [seedMs] = time(() => seedStyle(chunks(small)));
  const [oursMs] = time(() => ours(chunks(small)));
  kit.report({
    name: 'LineSplitter 2 MB',
    value: 2 / (oursMs / 1000),
    unit: 'MB/s',
    baselineName: "seed's re-split per chunk",
    baselineValue: 2 / (seedMs / 1000),
  });
}
