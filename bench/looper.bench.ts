import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { defineAgent, EventBus, MessageStore } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
// `@troupe/looper` is not a root dependency yet; import it from source.
import { createLooperSystem } from '@troupe/looper';
import { percentile, type BenchKit } from './bench-kit';

const SEED_ACK_TARGET = '< 1 s (seed 000 §10); ours ≤ 1 ms p99';
const SEED_DELIVERY_TARGET = '< 100 ms (seed 000 §10); ours ≤ 1 ms p99';

/**
 * Looper command acknowledgement (start / status / stop → the Looper's reply
 * appended to the `looper` channel, seen on `message:added`; the default
 * in-memory checkpointing included) and
 * `message:added` delivery latency to a DevHub subscriber while messages
 * arrive at 10,000/s. Baselines, measured in the same run: a bare
 * `node:events` request → reply round trip, and a bare emitter paced the same way.
 */
export default async function (kit: BenchKit): Promise<void> {
  await benchAcknowledgement(kit);
  await benchDelivery(kit);
}

async function benchAcknowledgement(kit: BenchKit): Promise<void> {
  let release: (() => void) | undefined;
  const coder = defineAgent({
    id: 'coder',
    description: 'waits until released',
    run: () => new Promise<string>((resolve) => (release = () => resolve('done'))),
  });
  const review = defineAgent({ id: 'review', description: 'normal', run: () => ({ text: 'ok', data: { health: 'normal', summary: '', findings: [] } }) });
  const system = createLooperSystem({ looper: { coder, review } }); // default state store: MemoryStore checkpoints
  const { executor, bus, looper } = system;

  /** Time from `execute` to the Looper's reply arriving on `message:added`. */
  async function ack(command: string): Promise<number> {
    const started = performance.now();
    const reply = bus.waitFor('message:added', { channelId: 'looper', filter: (e) => e.payload.message.role === 'assistant' });
    void executor.execute('looper', 'looper', command);
    await reply;
    return performance.now() - started;
  }

  const samples = { start: [] as number[], status: [] as number[], stop: [] as number[] };
  const rounds = 2000;
  for (let i = 0; i < rounds + 200; i++) {
    const start = await ack(`{"type":"start","task":"task ${i}"}`);
    const status = await ack('{"type":"status"}');
    const stop = await ack('{"type":"stop"}');
    release?.();
    await looper.whenIdle();
    await looper.flush(); // the run's last checkpoint is written before the next command is timed
    if (i >= 200) {
      samples.start.push(start);
      samples.status.push(status);
      samples.stop.push(stop);
    }
  }
  await system.dispose();

  // Baseline: a bare EventEmitter request → handler → reply round trip, awaited the same way.
  const bare = new EventEmitter();
  bare.on('command', (text: string) => bare.emit('reply', `ack ${text}`));
  const baseline: number[] = [];
  for (let i = 0; i < rounds + 200; i++) {
    const started = performance.now();
    const reply = new Promise<void>((resolve) => bare.once('reply', () => resolve()));
    bare.emit('command', 'status');
    await reply;
    if (i >= 200) baseline.push(performance.now() - started);
  }
  for (const [command, values] of Object.entries(samples)) {
    for (const p of [50, 99]) {
      kit.report({
        name: `Looper ${command} → reply in channel, p${p}`,
        value: percentile(values, p),
        unit: 'ms',
        baselineName: `bare EventEmitter round trip p${p}`,
        baselineValue: percentile(baseline, p),
        target: SEED_ACK_TARGET,
      });
    }
  }
}

async function benchDelivery(kit: BenchKit): Promise<void> {
  const rate = 10_000; // messages per second
  const durationMs = 2_000;

  /** Appends at `rate` for `durationMs`, calling `send(sentAt)` per message; latencies come from the receiver. */
  async function paced(send: (sentAt: number) => void): Promise<number> {
    const total = (rate * durationMs) / 1000;
    const begin = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - begin) * rate) / 1000));
      while (sent < due) {
        send(performance.now());
        sent++;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return (sent * 1000) / (performance.now() - begin);
  }

  // Ours: MessageStore.append → EventBus `message:added` → DevHub (bounded [AUTO] context) and a timing subscriber on the channel.
  const bus = new EventBus();
  const messages = new MessageStore(bus, { maxMessagesPerChannel: 1000 });
  const system = createLooperSystem({
    eventBus: bus,
    messages,
    looper: { coder: defineAgent({ id: 'c', description: 'c', run: () => '' }), review: defineAgent({ id: 'r', description: 'r', run: () => '' }) },
    devhub: { model: createScriptedChatModel() },
  });
  const ours: number[] = [];
  bus.on(
    'message:added',
    (event) => void ours.push(performance.now() - (event.payload.message.metadata?.sentAt as number)),
    { channelId: 'looper' },
  );
  const ourRate = await paced((sentAt) => messages.append('looper', { role: 'system', content: '[AUTO] Coder done', metadata: { sentAt } }));
  if ((system.devhub?.progress().length ?? 0) === 0) throw new Error('DevHub received no message');
  await system.dispose();

  // Baseline: a bare EventEmitter emitting the seed's event object at the same pace.
  const bare = new EventEmitter();
  const baseline: number[] = [];
  bare.on('message:added', (event: { message: { metadata: { sentAt: number } } }) => void baseline.push(performance.now() - event.message.metadata.sentAt));
  await paced((sentAt) => bare.emit('message:added', { tabId: 'looper', message: { content: '[AUTO] Coder done', metadata: { sentAt } }, timestamp: Date.now() }));

  kit.note(`  (delivery: ${ours.length} messages at ${Math.round(ourRate)}/s)`);
  for (const p of [50, 99]) {
    kit.report({
      name: `message:added delivery to DevHub at 10,000 msg/s, p${p}`,
      value: percentile(ours, p),
      unit: 'ms',
      baselineName: `bare EventEmitter at 10,000 msg/s p${p}`,
      baselineValue: percentile(baseline, p),
      target: SEED_DELIVERY_TARGET,
    });
  }
}
