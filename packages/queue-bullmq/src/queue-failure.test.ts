// Why a job failed reaches its origin in no language, against a real redis-server: the failure code and its
// parameters on `queue:job-failed` and on the QueueJobError the job's result rejects with, so the origin can word
// it in its user's language; secrets redacted from both; no code for an error the queue does not name.
import { EventBus, type TroupeEventPayloads } from '@troupe/core';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient, createQueueWorker, QueueError, QueueJobError, type QueueClient, type QueueWorker } from './index';
import { findRedisServer, startTestRedis, type TestRedis } from './testing/queue-test-kit';

const QUEUE = 'troupe-failure-test';
const SECRET = 'sk-worker-only-secret-0123456789';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED queue failure tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('a failed job: its code and parameters reach the origin (real redis-server)', () => {
  let redis: TestRedis;
  let worker: QueueWorker;
  let client: QueueClient;
  const bus = new EventBus();
  const failed: TroupeEventPayloads['queue:job-failed'][] = [];
  let runs = 0;

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    worker = createQueueWorker({
      connection: redis.url,
      env: { WORKER_API_KEY: SECRET },
      handlers: {
        [QUEUE]: {
          kind: 'test',
          parse: (payload) => payload as { fail: string },
          async run({ fail }) {
            runs++;
            if (fail === 'refused') throw new QueueError('QUEUE_FOLDER_NOT_ALLOWED', { field: 'workspace', shown: '/etc', roots: '/srv/jobs' });
            if (fail === 'clone') throw new QueueError('QUEUE_GIT_CLONE_FAILED', { url: 'https://example.com/app.git', detail: `fatal: token ${SECRET} rejected` });
            throw new Error('no agent CLI here');
          },
        },
      },
    });
    client = createQueueClient({ connection: redis.url, eventBus: bus, maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } });
    bus.on('queue:job-failed', ({ payload }) => void failed.push(payload));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await worker?.close({ force: true });
    await redis?.dispose();
  });

  async function failure(kind: string, payload: unknown, jobId: string): Promise<QueueJobError> {
    const job = await client.submit(QUEUE, kind, payload, { jobId });
    const error = await job.result.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(QueueJobError);
    return error as QueueJobError;
  }

  it('a refusal: its code and parameters on the event and the error, one attempt only', async () => {
    const before = runs;
    const error = await failure('test', { fail: 'refused' }, 'refused-1');
    expect(runs - before).toBe(1);
    expect(error).toMatchObject({
      failureCode: 'QUEUE_FOLDER_NOT_ALLOWED',
      params: { field: 'workspace', shown: '/etc', roots: '/srv/jobs' },
      reason: 'workspace /etc is outside the folders this worker allows (/srv/jobs); allow its folder with allowedRoots (troupe worker --allow-root DIR)',
    });
    expect(failed.filter((event) => event.jobId === 'refused-1')).toEqual([
      expect.objectContaining({ attempt: 1, willRetry: false, code: 'QUEUE_FOLDER_NOT_ALLOWED', params: { field: 'workspace', shown: '/etc', roots: '/srv/jobs' } }),
    ]);
  }, 60_000);

  it('a job of the wrong kind fails before it starts, and still says why', async () => {
    const error = await failure('other', {}, 'kind-1');
    expect(error).toMatchObject({ failureCode: 'QUEUE_JOB_KIND_MISMATCH', params: { jobId: 'kind-1', queue: QUEUE, kind: 'other', expected: 'test' } });
    expect(error.reason).toBe(`job kind-1 on queue "${QUEUE}" is of kind "other", but this queue's handler runs "test" jobs`);
  }, 60_000);

  it('the worker\'s secrets never reach the origin, in the parameters or the message; a retryable failure is retried', async () => {
    const error = await failure('test', { fail: 'clone' }, 'clone-1');
    expect(error.failureCode).toBe('QUEUE_GIT_CLONE_FAILED');
    expect(JSON.stringify(error.params)).not.toContain(SECRET);
    expect(error.reason).not.toContain(SECRET);
    const events = failed.filter((event) => event.jobId === 'clone-1');
    expect(events.map((event) => [event.attempt, event.willRetry, event.code])).toEqual([
      [1, true, 'QUEUE_GIT_CLONE_FAILED'],
      [2, false, 'QUEUE_GIT_CLONE_FAILED'],
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    // What BullMQ keeps in Redis for any reader of the queue: the failure's message and stack, redacted.
    const bull = new Queue(QUEUE, { connection: { url: redis.url } });
    try {
      const job = await bull.getJob('clone-1');
      expect(job?.failedReason).toMatch(/fatal: token \[REDACTED\] rejected/);
      expect(JSON.stringify([job?.failedReason, job?.stacktrace])).not.toContain(SECRET);
    } finally {
      await bull.close();
    }
  }, 60_000);

  it('an error the queue does not name has no code: the message is all there is', async () => {
    const error = await failure('test', { fail: 'other' }, 'plain-1');
    expect(error).toMatchObject({ failureCode: undefined, params: {}, reason: 'no agent CLI here' });
    const last = failed.filter((event) => event.jobId === 'plain-1').at(-1);
    expect(last).toMatchObject({ error: { message: 'no agent CLI here' } });
    expect(last).not.toHaveProperty('code');
  }, 60_000);
});
