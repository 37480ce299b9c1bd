// Secret canary, Redis: an agent turn run as a queue job on a worker. Its bus events cross Redis (the
// origin's stream) and its result and checkpoint stay there (BullMQ's job, the RedisStore); none of it —
// nor the append-only file on disk — may hold a key, plain, `\u`-escaped or streamed over text deltas.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REDACTED } from '@troupe/core/util';
import { type AgentStreamPart, type AnyTroupeEvent } from '@troupe/core';
import { createQueueClient, createQueueWorker, type QueueJobHandler } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis, type TestRedis } from '@troupe/queue-bullmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryLeaks, joinedText, openSecretCanary, type SecretCanary } from '../testing/secret-canary-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[cli] SKIPPED the Redis secret canary: ${binary.reason}`);

/** Every file under `dir`, read as bytes (latin1 keeps each byte). */
function filesText(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? filesText(path) : readFileSync(path, 'latin1');
  }
  return text;
}

describe.skipIf('reason' in binary)('no secret reaches Redis', () => {
  let redis: TestRedis;
  let canary: SecretCanary;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    canary = openSecretCanary();
  }, 60_000);
  afterAll(async () => {
    canary?.close();
    await redis?.dispose();
  });

  it('a job\'s events on the origin\'s stream, its result and checkpoint, and the AOF', async () => {
    const handler: QueueJobHandler<null, { text: string; parts: AgentStreamPart[] }> = {
      kind: 'canary-turn',
      parse: () => null,
      async run(_payload, context) {
        const { parts, result } = await canary.runTurn(context.eventBus);
        const checkpoint = { text: result.text, parts, output: result.outcome.output };
        await context.store.put(['canary', context.jobId], 'checkpoint', checkpoint);
        return { text: result.text, parts };
      },
    };
    const worker = createQueueWorker({ connection: redis.url, handlers: { canary: handler } });
    const client = createQueueClient({ connection: redis.url });
    try {
      const job = await client.submit<{ text: string; parts: AgentStreamPart[] }>('canary', 'canary-turn', null, { attempts: 1 });
      const events: AnyTroupeEvent[] = [];
      job.onEvent((event) => events.push(event));
      const result = await job.result;
      const streamed = events.flatMap((event) => (event.type === 'agent:part' ? [(event.payload as { part: AgentStreamPart }).part] : []));
      // What the origin shows: the deltas joined, and everything else it received.
      expect(joinedText(streamed)).toContain(`The token is ${REDACTED} and the password ${REDACTED}`);
      expect(canaryLeaks(joinedText(streamed))).toEqual({});
      expect(canaryLeaks(JSON.stringify({ events, result }))).toEqual({});
      const stored = await client.store.get(['canary', job.id], 'checkpoint');
      expect(stored).toBeDefined();
      expect(canaryLeaks(JSON.stringify(stored))).toEqual({});
    } finally {
      await client.close();
      await worker.close();
    }
    // Everything Redis wrote to disk (appendfsync always).
    expect(canaryLeaks(filesText(redis.dataDir))).toEqual({});
  }, 120_000);
});
