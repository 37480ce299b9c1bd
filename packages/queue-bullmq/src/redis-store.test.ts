// RedisStore against a real redis-server (started here on a random port with its own data folder).
import { approvalStoreConformanceCases, storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from './redis-store';
import { findRedisServer, startTestRedis, type TestRedis } from './testing/queue-test-kit';

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
  for (const c of approvalStoreConformanceCases()) it(c.name, withStore(c));

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
  it('keeps createdAt when a transaction rewrites a key unread (also records of the earlier layout), and restarts it after a delete', async () => {
    const client = new Redis(redis.url);
    clients.push(client);
    let clock = 100;
    const store = new RedisStore(client, { prefix: 'created', now: () => clock++ });
    await store.put(['looper', 'job-1'], 'state', { n: 1 });
    // A record as the first release wrote it: the value first.
    await client.hset('created:store:looper\u0000job-1', 'old', JSON.stringify({ value: { n: 0 }, createdAt: 7, updatedAt: 8 }));
    await client.sadd('created:store-namespaces', 'looper\u0000job-1');
    const inside = await store.transaction(async (tx) => {
      await tx.put(['looper', 'job-1'], 'state', { n: 2 });
      await tx.put(['looper', 'job-1'], 'state', { n: 3 });
      await tx.put(['looper', 'job-1'], 'old', { n: 1 });
      await tx.put(['looper', 'job-1'], 'new', { n: 1 });
      await tx.delete(['looper', 'job-1'], 'gone');
      return tx.get(['looper', 'job-1'], 'state');
    });
    expect(inside).toMatchObject({ value: { n: 3 }, createdAt: 100 });
    expect(await store.get(['looper', 'job-1'], 'state')).toMatchObject({ value: { n: 3 }, createdAt: 100 });
    expect((await store.get(['looper', 'job-1'], 'state'))!.updatedAt).toBeGreaterThan(100);
    expect(await store.get(['looper', 'job-1'], 'old')).toMatchObject({ value: { n: 1 }, createdAt: 7 });
    const created = (await store.get(['looper', 'job-1'], 'new'))!.createdAt;
    await store.transaction(async (tx) => {
      await tx.delete(['looper', 'job-1'], 'state');
      await tx.put(['looper', 'job-1'], 'state', { n: 4 });
      await tx.transaction(async (inner) => inner.put(['looper', 'job-1'], 'new', { n: 2 }));
    });
    const state = await store.get(['looper', 'job-1'], 'state');
    expect(state?.value).toEqual({ n: 4 });
    expect(state!.createdAt).toBeGreaterThan(100);
    expect(await store.get(['looper', 'job-1'], 'new')).toMatchObject({ value: { n: 2 }, createdAt: created });
    expect((await store.list(['looper'], { recursive: true })).map((item) => item.key)).toEqual(['new', 'old', 'state']);
  });
});
