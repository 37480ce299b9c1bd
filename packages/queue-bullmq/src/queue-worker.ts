import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AbortError, EventBus, InvalidArgumentError } from '@troupe/core';
import { createSecretRedactor, secretValuesFromEnv, serializeError } from '@troupe/core/util';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, DEFAULT_QUEUE_PREFIX, openRedis, type QueueConnection } from './queue-connection';
import { QueueError, queueFailureOf } from './queue-error';
import { registerQueueEvents } from './queue-events';
import { writeFailureRecord } from './queue-failure-record';
import { JobEventWriter } from './queue-event-stream';
import type { QueueJobData, QueueJobHandler } from './queue-job';
import { queueKeys } from './queue-keys';
import { RedisStore } from './redis-store';

/** Options for {@link createQueueWorker}. */
export interface QueueWorkerOptions {
  /** Redis: a `redis://` URL or ioredis options. */
  connection: QueueConnection;
  /** Queue name → the handler of its jobs. A worker serves each queue listed. */
  handlers: Record<string, QueueJobHandler<any, any>>;
  /** Jobs run at once per queue on this worker. Default 1. */
  concurrency?: number;
  /** Prefix of Troupe's keys (events, control, checkpoints). Default `troupe`. */
  prefix?: string;
  /** Shown in events. Default `<hostname>-<pid>`. */
  workerId?: string;
  /**
   * How long a job's lock (and this worker's run lease) lasts without renewal,
   * in ms: a worker that dies (kill -9) gives its job up after about this long
   * plus `stalledIntervalMs`. Default 30 000.
   */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs, in ms. Default 15 000. */
  stalledIntervalMs?: number;
  /** How many times a job may stall (its worker died) and still be retried. Default 2. */
  maxStalledCount?: number;
  /** Env whose secret-looking values are redacted from every event sent to the origin. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** A running worker (see {@link createQueueWorker}). */
export interface QueueWorker {
  readonly id: string;
  /**
   * Resolves once the handlers' start-up work (`QueueJobHandler.start`, e.g. cleaning up the workspaces of a killed
   * worker) is done and the worker takes jobs; rejects with the first start-up failure (the worker takes jobs anyway).
   */
  readonly ready: Promise<void>;
  /** Jobs running here now. */
  activeJobs(): number;
  /**
   * Stops taking jobs and closes its connections. By default waits for the
   * jobs in progress; `force` cancels them (they are retried elsewhere from
   * their checkpoints).
   */
  close(options?: { force?: boolean }): Promise<void>;
}

interface ActiveJob {
  controller: AbortController;
  listeners: Set<(input: string) => void>;
  buffered: string[];
}

/**
 * Takes a job's run lease unless the job was canceled, in one round trip,
 * and forgets the failure of an earlier attempt (this attempt's own, if any,
 * replaces it): KEYS = canceled flag, lease, failure record; ARGV = token,
 * ms. 0 = canceled, 1 = another worker holds the lease, 2 = taken.
 */
const TAKE_LEASE =
  "if redis.call('exists', KEYS[1]) == 1 then return 0 end if redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then redis.call('del', KEYS[3]) return 2 end return 1";
/** Compare-and-renew / compare-and-delete of a run lease. */
const RENEW_LEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE_LEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** True when a job's abort reason is its origin's cancel (not a shutdown or a lost lease). */
function isCanceledAtOrigin(reason: unknown): boolean {
  return QueueError.isInstance(reason) && reason.failureCode === 'QUEUE_JOB_CANCELED';
}

/**
 * What BullMQ gets for a failed attempt: an `UnrecoverableError` (no retry) for a failure that retrying cannot help,
 * else an `Error` of the same name. BullMQ stores its message and stack in Redis (`failedReason`, `stacktrace`), where
 * any reader of the queue sees them: both are redacted of the worker's secrets.
 */
function bullFailure(error: unknown, redact: (text: string) => string): Error {
  const message = redact(error instanceof Error ? error.message : String(error));
  const unrecoverable = error instanceof UnrecoverableError || (QueueError.isInstance(error) && error.unrecoverable);
  const failure = unrecoverable ? new UnrecoverableError(message) : new Error(message);
  if (!unrecoverable && error instanceof Error) failure.name = error.name;
  failure.stack = error instanceof Error && error.stack !== undefined ? redact(error.stack) : `${failure.name}: ${message}`;
  return failure;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new InvalidArgumentError(name, `expected a positive integer, got ${String(value)}`);
  return value;
}

/**
 * Starts a worker: it takes jobs from the queues of `handlers`, runs each
 * with its handler, streams the job's events back to its origin, obeys
 * cancellation and commands from the origin, and holds a lease so a job is
 * never run twice at once. A worker that dies mid-job leaves the job to
 * BullMQ's stalled-job detection: another worker retries it, and the handler
 * resumes from its checkpoint (`context.resumed`).
 *
 * @example
 * ```ts
 * const worker = createQueueWorker({
 *   connection: 'redis://127.0.0.1:6379',
 *   handlers: { 'troupe-looper': createLooperJobHandler({ createLooper }) },
 *   concurrency: 2,
 * });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export function createQueueWorker(options: QueueWorkerOptions): QueueWorker {
  registerQueueEvents();
  const queues = Object.keys(options.handlers ?? {});
  if (queues.length === 0) throw new InvalidArgumentError('handlers', 'expected at least one queue name → handler');
  const concurrency = positive(options.concurrency, 'concurrency', 1);
  const lockDuration = positive(options.lockDurationMs, 'lockDurationMs', 30_000);
  const stalledInterval = positive(options.stalledIntervalMs, 'stalledIntervalMs', 15_000);
  const maxStalledCount = positive(options.maxStalledCount, 'maxStalledCount', 2);
  const workerId = options.workerId ?? `${hostname()}-${process.pid}`;
  const keys = queueKeys(options.prefix ?? DEFAULT_QUEUE_PREFIX);
  const secrets = secretValuesFromEnv(options.env ?? process.env);
  const redactor = createSecretRedactor({ secrets });
  const redactText = (text: string) => redactor.redact(text);
  const redis = openRedis(options.connection, `troupe-worker:${workerId}`);
  const subscriber = openRedis(options.connection, `troupe-worker-control:${workerId}`);
  const store = new RedisStore(redis, { prefix: options.prefix ?? DEFAULT_QUEUE_PREFIX });
  const active = new Map<string, ActiveJob>();
  const activeKey = (queue: string, jobId: string) => `${queue}\u0000${jobId}`;

  /** Delivers the origin's control messages for one active job. */
  async function pollControl(queue: string, jobId: string): Promise<void> {
    const entry = active.get(activeKey(queue, jobId));
    if (!entry) return;
    const [[, canceled], [, commands]] = (await redis
      .multi()
      .exists(keys.canceled(queue, jobId))
      .lrange(keys.commands(queue, jobId), 0, -1)
      .del(keys.commands(queue, jobId))
      .exec()) as [[null, number], [null, string[]], unknown];
    for (const input of commands) {
      if (entry.listeners.size === 0) entry.buffered.push(input);
      for (const listener of entry.listeners) listener(input);
    }
    if (canceled) entry.controller.abort(new QueueError('QUEUE_JOB_CANCELED', { jobId }));
  }

  subscriber.on('message', (_channel: string, message: string) => {
    try {
      const { queue, jobId } = JSON.parse(message) as { queue: string; jobId: string };
      void pollControl(queue, jobId).catch(() => {});
    } catch {
      // Not ours: ignore.
    }
  });
  const subscribed = subscriber.subscribe(...queues.map((queue) => keys.control(queue))).catch(() => {});

  const recordFailure = (queue: string, jobId: string, error: unknown) => writeFailureRecord(redis, keys.failure(queue, jobId), error, redactor, secrets);

  /** Fails the job before it started (no `queue:job-started`, so no `queue:job-failed` either): records why, returns what to throw. */
  async function refuse(queue: string, jobId: string, error: QueueError): Promise<unknown> {
    await recordFailure(queue, jobId, error);
    return bullFailure(error, redactText);
  }

  async function processJob(queue: string, handler: QueueJobHandler, job: Job<QueueJobData>, token: string | undefined, bullSignal?: AbortSignal): Promise<unknown> {
    const jobId = job.id as string;
    const data = job.data;
    if (data === null || typeof data !== 'object' || data.kind !== handler.kind) {
      throw await refuse(queue, jobId, new QueueError('QUEUE_JOB_KIND_MISMATCH', { jobId, queue, kind: String(data?.kind), expected: handler.kind }));
    }
    let payload: unknown;
    try {
      payload = handler.parse(data.payload);
    } catch (error) {
      throw await refuse(queue, jobId, new QueueError('QUEUE_PAYLOAD_INVALID', { jobId, kind: handler.kind, detail: serializeError(error, secrets).message }, { cause: error }));
    }
    // The lease: a second worker that got this job while the first still runs it (a false stall) waits instead.
    const leaseKey = keys.lease(queue, jobId);
    const leaseToken = randomUUID();
    const taken = await redis.eval(TAKE_LEASE, 3, keys.canceled(queue, jobId), leaseKey, keys.failure(queue, jobId), leaseToken, String(lockDuration));
    if (taken === 0) throw await refuse(queue, jobId, new QueueError('QUEUE_JOB_CANCELED', { jobId }));
    if (taken !== 2) {
      await job.moveToDelayed(Date.now() + Math.ceil(lockDuration / 2), token);
      throw new DelayedError();
    }
    let leaseHeld = true;
    const controller = new AbortController();
    const entry: ActiveJob = { controller, listeners: new Set(), buffered: [] };
    active.set(activeKey(queue, jobId), entry);
    const renew = setInterval(() => {
      redis
        .eval(RENEW_LEASE, 1, leaseKey, leaseToken, String(lockDuration))
        .then((renewed) => {
          if (renewed !== 1) controller.abort(new QueueError('QUEUE_LEASE_LOST', { jobId }));
        })
        .catch(() => {});
    }, Math.max(200, Math.floor(lockDuration / 3)));
    const onBullAbort = () => controller.abort(bullSignal?.reason ?? new AbortError('worker shutting down'));
    bullSignal?.addEventListener('abort', onBullAbort, { once: true });
    const bus = new EventBus({ source: workerId });
    const writer = new JobEventWriter(redis, data.eventStream, jobId, redactor);
    const unsubscribe = bus.on('*', (event) => writer.write(event));
    const attempt = Math.max(1, job.attemptsStarted ?? job.attemptsMade + 1);
    const resumed = attempt > 1 || (job.stalledCounter ?? 0) > 0;
    bus.emit('queue:job-started', { queue, jobId, attempt, workerId, resumed }, { source: workerId });
    try {
      await pollControl(queue, jobId);
      const result = await handler.run(payload, {
        queue,
        jobId,
        attempt,
        resumed,
        workerId,
        eventBus: bus,
        store,
        signal: controller.signal,
        onCommand(listener) {
          entry.listeners.add(listener);
          for (const input of entry.buffered.splice(0)) listener(input);
          return () => entry.listeners.delete(listener);
        },
      });
      if (controller.signal.aborted) throw controller.signal.reason;
      // The run is over: give the lease up, checking it was still ours. Another worker took the job over (this
      // one stalled past its lock): its run is the one that counts.
      clearInterval(renew);
      leaseHeld = false;
      if ((await redis.eval(RELEASE_LEASE, 1, leaseKey, leaseToken)) !== 1) throw new QueueError('QUEUE_LEASE_LOST', { jobId });
      bus.emit('queue:job-completed', { queue, jobId, attempt, workerId }, { source: workerId });
      await writer.flush();
      return result ?? null;
    } catch (error) {
      const canceled = isCanceledAtOrigin(controller.signal.reason);
      const failure = canceled ? controller.signal.reason : error;
      const unrecoverable = canceled || error instanceof UnrecoverableError || (QueueError.isInstance(error) && error.unrecoverable);
      const willRetry = !unrecoverable && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      bus.emit('queue:job-failed', { queue, jobId, attempt, workerId, willRetry, error: serializeError(failure, secrets), ...queueFailureOf(failure) }, { source: workerId });
      await Promise.all([writer.flush().catch(() => {}), recordFailure(queue, jobId, failure)]);
      throw bullFailure(failure, redactText);
    } finally {
      clearInterval(renew);
      bullSignal?.removeEventListener('abort', onBullAbort);
      unsubscribe();
      active.delete(activeKey(queue, jobId));
      if (leaseHeld) await redis.eval(RELEASE_LEASE, 1, leaseKey, leaseToken).catch(() => {});
    }
  }

  const bullConnections: Redis[] = [];
  const workers = queues.map(
    (queue) =>
      new Worker(queue, (job: Job<QueueJobData>, token?: string, signal?: AbortSignal) => processJob(queue, options.handlers[queue] as QueueJobHandler, job, token, signal), {
        connection: bullConnections[bullConnections.push(openRedis(options.connection, `troupe-bullmq:${workerId}`)) - 1] as Redis,
        concurrency,
        lockDuration,
        stalledInterval,
        maxStalledCount,
        prefix: 'bull',
        autorun: false,
      }),
  );
  // BullMQ reports connection trouble as 'error' events: without a listener Node would crash the worker.
  for (const worker of workers) worker.on('error', () => {});
  // Jobs are taken once every handler has cleaned up after a killed predecessor (its leftovers are not mixed with new work).
  const starting = new AbortController();
  // One call per handler, also when it serves several queues.
  const started = Promise.allSettled([...new Set(Object.values(options.handlers))].map(async (handler) => handler.start?.({ workerId, signal: starting.signal })));
  const ready = started.then((outcomes) => {
    if (!starting.signal.aborted) for (const worker of workers) void worker.run().catch(() => {});
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  });
  ready.catch(() => {});

  return {
    id: workerId,
    ready,
    activeJobs: () => active.size,
    async close(closeOptions = {}) {
      starting.abort(new AbortError('worker shutting down'));
      await started;
      if (closeOptions.force) for (const entry of active.values()) entry.controller.abort(new AbortError('worker shutting down'));
      await Promise.all(workers.map((worker) => worker.close(closeOptions.force === true)));
      await subscribed;
      await Promise.all([closeRedis(subscriber), closeRedis(redis), ...bullConnections.map(closeRedis)]);
    },
  };
}
