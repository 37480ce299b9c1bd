// The worker → origin event stream against a real redis-server: events written in bursts (sent as one pipeline)
// and one by one reach the origin's bus complete and in order; a failed write surfaces in flush().
import { createSecretRedactor } from '@troupe/core/util';
import { EventBus, type TroupeEvent } from '@troupe/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStreamReader, JobEventWriter } from './queue-event-stream';
import { findRedisServer, startTestRedis, waitFor, type TestRedis } from './testing/queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED event stream tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('JobEventWriter → EventStreamReader (real redis-server)', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await redis?.dispose();
  });

  it('delivers bursts and single events in the order they were emitted, each job to its listeners', async () => {
    const redactor = createSecretRedactor({ secrets: ['sk-secret-value-1234'] });
    // Two jobs on one worker connection, each with its bus and writer.
    const workerClient = connect();
    const jobs = ['job-a', 'job-b'].map((jobId) => {
      const bus = new EventBus({ source: 'worker' });
      const writer = new JobEventWriter(workerClient, 'troupe:events:order', jobId, redactor);
      bus.on('*', (event) => writer.write(event));
      return { jobId, bus, writer, sent: [] as string[] };
    });
    const originBus = new EventBus();
    const seen: string[] = [];
    originBus.on('agent:stopped', (event) => void seen.push(event.payload.roleId));
    const reader = new EventStreamReader(connect(), connect(), 'troupe:events:order', originBus);
    const ofB: string[] = [];
    reader.onJob('job-b', (event) => ofB.push((event as TroupeEvent<'agent:stopped'>).payload.roleId));
    const emit = (job: (typeof jobs)[number], roleId: string) => {
      job.sent.push(roleId);
      job.bus.emit('agent:stopped', { roleId });
    };
    for (let round = 0; round < 20; round++) {
      // A burst in one turn of the event loop, then single events across turns.
      for (let i = 0; i < 25; i++) emit(jobs[i % 5 === 0 ? 1 : 0]!, `${round}.${i}`);
      await new Promise((resolve) => setImmediate(resolve));
      emit(jobs[0]!, `${round}.single sk-secret-value-1234`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(jobs.map(({ writer }) => writer.flush()));
    await reader.drain();
    const [a, b] = jobs.map(({ sent }) => sent.map((roleId) => roleId.replace('sk-secret-value-1234', '[REDACTED]'))) as [string[], string[]];
    expect(seen).toHaveLength(a.length + b.length);
    expect(seen.filter((roleId) => a.includes(roleId))).toEqual(a);
    expect(seen.filter((roleId) => b.includes(roleId))).toEqual(b);
    expect(ofB).toEqual(b);
    expect(seen.join('\n')).not.toContain('sk-secret-value-1234');
    await reader.stop();
  });

  it('rejects flush() with the write error when an event could not be added', async () => {
    const client = connect();
    await client.set('troupe:events:not-a-stream', 'x');
    const writer = new JobEventWriter(client, 'troupe:events:not-a-stream', 'job-1', createSecretRedactor());
    const bus = new EventBus();
    bus.on('*', (event) => writer.write(event));
    bus.emit('agent:stopped', { roleId: 'one' });
    bus.emit('agent:stopped', { roleId: 'two' });
    await expect(writer.flush()).rejects.toThrow(/WRONGTYPE/);
  });

  it('drain() resolves once every event in the stream is published, also while the reader waits in XREAD', async () => {
    const writerClient = connect();
    const originBus = new EventBus();
    let count = 0;
    originBus.on('*', () => void count++);
    const reader = new EventStreamReader(connect(), connect(), 'troupe:events:drain', originBus);
    const bus = new EventBus();
    const writer = new JobEventWriter(writerClient, 'troupe:events:drain', 'job-1', createSecretRedactor());
    bus.on('*', (event) => writer.write(event));
    for (let i = 0; i < 10; i++) bus.emit('agent:stopped', { roleId: String(i) });
    await writer.flush();
    await reader.drain();
    expect(count).toBe(10);
    // Nothing new: drain answers without waiting for the blocked read.
    await waitFor(() => count === 10, 'the events', 5000);
    await reader.drain();
    expect(count).toBe(10);
    await reader.stop();
  });
});
