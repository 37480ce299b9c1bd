import { EventEmitter } from 'node:events';
import { EventBus } from '@troupe/core';
import { nsPerOp, type BenchKit } from './bench-kit';

const message = { id: 'looper#1', channelId: 'looper', seq: 1, role: 'system' as const, content: '[AUTO] step', timestamp: 0 };

/**
 * EventBus emit cost against a plain `node:events` emitter emitting the same
 * payload object (built the same way on both sides, per emit), with 1
 * listener, 10 listeners, and a wildcard listener. The bus also builds the
 * envelope (`{ type, version, timestamp, source, payload }`) that every
 * listener receives.
 */
export default async function (kit: BenchKit): Promise<void> {
  const iterations = 2_000_000;
  let sink = 0;
  const listener = (event: unknown) => {
    if (event) sink++;
  };
  for (const listeners of [1, 10]) {
    const bare = new EventEmitter();
    bare.setMaxListeners(0);
    for (let i = 0; i < listeners; i++) bare.on('message:added', listener);
    const bus = new EventBus();
    for (let i = 0; i < listeners; i++) bus.on('message:added', listener);
    // Interleave the two measurements to spread machine noise evenly.
    const rounds = 5;
    let bareNs = 0;
    let busNs = 0;
    for (let round = 0; round < rounds; round++) {
      bareNs += nsPerOp(() => bare.emit('message:added', { channelId: 'looper', tabId: 'looper', message, timestamp: 0 }), iterations / rounds);
      busNs += nsPerOp(() => bus.emit('message:added', { channelId: 'looper', tabId: 'looper', message, timestamp: 0 }), iterations / rounds);
    }
    kit.report({
      name: `EventBus.emit, ${listeners} listener${listeners > 1 ? 's' : ''}`,
      value: busNs / rounds,
      unit: 'ns/emit',
      baselineName: 'node:events emit',
      baselineValue: bareNs / rounds,
      target: '≤ 2×',
    });
  }
  const bare = new EventEmitter();
  bare.on('message:added', listener);
  bare.on('*', listener);
  const bus = new EventBus();
  bus.on('*', listener);
  bus.on('message:added', listener);
  let bareNs = 0;
  let busNs = 0;
  for (let round = 0; round < 5; round++) {
    // A bare emitter needs a second emit to serve a catch-all listener.
    bareNs += nsPerOp(() => {
      const event = { channelId: 'looper', tabId: 'looper', message, timestamp: 0 };
      bare.emit('message:added', event);
      bare.emit('*', event);
    }, iterations / 5);
    busNs += nsPerOp(() => bus.emit('message:added', { channelId: 'looper', tabId: 'looper', message, timestamp: 0 }), iterations / 5);
  }
  kit.report({
    name: 'EventBus.emit, 1 listener + 1 wildcard',
    value: busNs / 5,
    unit: 'ns/emit',
    baselineName: 'node:events emit to type and "*"',
    baselineValue: bareNs / 5,
    target: '≤ 2×',
  });
  if (sink === 0) throw new Error('listeners never ran');
}
