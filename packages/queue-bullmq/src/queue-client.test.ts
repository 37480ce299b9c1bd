// createQueueClient's retry option (`maxAttempts`; `attempts` is its deprecated name), against a real redis-server.
import { InvalidArgumentError } from '@troupe/core';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient } from './index';
import { findRedisServer, startTestRedis, type TestRedis } from './testing/queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED queue client tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('createQueueClient: maxAttempts', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('refuses a bad count, naming the option, and the old and new name disagreeing', () => {
    expect(() => createQueueClient({ connection: redis.url, maxAttempts: 0 })).toThrow(/maxAttempts.*expected a positive integer, got 0/s);
    expect(() => createQueueClient({ connection: redis.url, maxAttempts: 3, attempts: 2 })).toThrow(InvalidArgumentError);
  });

  it('gives BullMQ maxAttempts (per client and per job); the deprecated attempts still works, with one DeprecationWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const modern = createQueueClient({ connection: redis.url, maxAttempts: 5 });
    const legacy = createQueueClient({ connection: redis.url, attempts: 4 });
    const again = createQueueClient({ connection: redis.url, attempts: 4 });
    const queue = new Queue('troupe-attempts-test', { connection: { url: redis.url }, prefix: 'bull' });
    try {
      const a = await modern.submit('troupe-attempts-test', 'noop', {}, { jobId: 'a' });
      const b = await modern.submit('troupe-attempts-test', 'noop', {}, { jobId: 'b', maxAttempts: 2 });
      const c = await legacy.submit('troupe-attempts-test', 'noop', {}, { jobId: 'c' });
      for (const job of [a, b, c]) job.result.catch(() => {});
      expect((await queue.getJob('a'))?.opts.attempts).toBe(5);
      expect((await queue.getJob('b'))?.opts.attempts).toBe(2);
      expect((await queue.getJob('c'))?.opts.attempts).toBe(4);
      await new Promise((resolve) => setImmediate(resolve));
      const deprecations = warnings.filter((warning) => (warning as { code?: string }).code === 'TROUPE_QUEUE_ATTEMPTS');
      expect(deprecations).toHaveLength(1);
      expect(deprecations[0]).toMatchObject({ name: 'DeprecationWarning', message: expect.stringContaining('use "maxAttempts"') });
    } finally {
      process.off('warning', onWarning);
      await Promise.all([modern.close(), legacy.close(), again.close(), queue.close()]);
    }
  }, 60_000);
});
