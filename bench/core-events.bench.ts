import { EventEmitter } from 'node:events';
import { EventBus } from '@troupe/core';
import { nsPerOp, type BenchKit } from './bench-kit';

const message = { id: 'looper#1', channelId: 'looper', seq: 1, role: 'system' as const, content: '[AUTO] step', timestamp: 0 };

/** Short rounds, interleaved; each side's figure is its least disturbed round (the machine is shared). */
const ROUNDS = 40;
const ITERATIONS_PER_ROUND = 100_000;

/** ns per call of `bare` and `ours`, measured in alternating rounds; the minimum round of each. */
function compare(bare: () => void, ours: () => void): { bareNs: number; busNs: number } {
  let bareNs = Number.POSITIVE_INFINITY;
  let busNs = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    bareNs = Math.min(bareNs, nsPerOp(bare, ITERATIONS_PER_ROUND));
    busNs = Math.min(busNs, nsPerOp(ours, ITERATIONS_PER_ROUND));
  }
  return { bareNs, busNs };
}

/**
 * EventBus emit cost against a plain `node:events` emitter emitting the same
 * payload object (built the same way on both sides, per emit), with 1
 * listener, 10 listeners, and a wildcard listener. The bus also builds the
 * envelope (`{ type, version, timestamp, source, payload }`) that every
 * listener receives. Each figure is the fastest of 40 interleaved rounds of
 * 100,000 emits, so another process taking the CPU does not decide it.
 */
export default async function (kit: BenchKit): Promise<void> {
  let sink = 0;
  const listener = (event: unknown) => {
    if (event) sink++;
  };
  const payload = () => ({ channelId: 'looper', tabId: 'looper', message, timestamp: 0 });
  for (const listeners of [1, 10]) {
    const bare = new EventEmitter();
    bare.setMaxListeners(0);
    const bus = new EventBus();
    for (let i = 0; i < listeners; i++) {
      bare.on('message:added', listener);
      bus.on('message:added', listener);
    }
    const { bareNs, busNs } = compare(
      () => bare.emit('message:added', payload()),
      () => bus.emit('message:added', payload()),
    );
    kit.report({
      name: `EventBus.emit, ${listeners} listener${listeners > 1 ? 's' : ''}`,
      value: busNs,
      unit: 'ns/emit',
      baselineName: 'node:events emit',
      baselineValue: bareNs,
      target: '≤ 2×',
    });
  }
  const bare = new EventEmitter();
  bare.on('message:added', listener);
  bare.on('*', listener);
  const bus = new EventBus();
  bus.on('*', listener);
  bus.on('message:added', listener);
  const { bareNs, busNs } = compare(
    () => {
      // A bare emitter needs a second emit to serve a catch-all listener.
      const event = payload();
      bare.emit('message:added', event);
      bare.emit('*', event);
    },
    () => bus.emit('message:added', payload()),
  );
  kit.report({
    name: 'EventBus.emit, 1 listener + 1 wildcard',
    value: busNs,
    unit: 'ns/emit',
    baselineName: 'node:events emit to type and "*"',
    baselineValue: bareNs,
    target: '≤ 2×',
  });
  if (sink === 0) throw new Error('listeners never ran');
}
