// RedisStore against a real redis-server (started here on a random port with its own data folder).
import { storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from './redis-store';
import { findRedisServer, startTestRedis, type TestRedis } from './queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED RedisStore tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('RedisStore (Store conformance, real redis-server)', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  let namespaceCounter = 0;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await redis?.dispose();
  });
  // Each case gets an empty store: its own key prefix.
  const withStore = withConformanceStore(({ now }) => {
    const client = new Redis(redis.url);
    clients.push(client);
    return new RedisStore(client, { now, prefix: `case${namespaceCounter++}` });
  });
  for (const c of storeConformanceCases()) it(c.name, withStore(c));

  it('keeps what it stored across a Redis restart (AOF persistence)', async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    clients.push(client);
    const store = new RedisStore(client, { prefix: 'restart' });
    await store.transaction(async (tx) => {
      await tx.put(['looper', 'job-1'], 'state', { state: 'RUNNING', iteration: 2 });
      await tx.put(['looper', 'job-1', 'history'], '0000000001', { kind: 'run-started' });
    });
    await redis.stop();
    await redis.start();
    expect((await store.get(['looper', 'job-1'], 'state'))?.value).toEqual({ state: 'RUNNING', iteration: 2 });
    expect((await store.list(['looper'], { recursive: true })).map((item) => item.key)).toEqual(['state', '0000000001']);
  });
});
