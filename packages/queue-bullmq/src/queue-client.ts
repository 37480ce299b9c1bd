import { randomUUID } from 'node:crypto';
import { AbortError, currentEventScope, InvalidArgumentError, TroupeError, type AnyTroupeEvent, type EventBus } from '@troupe/core';
import { readRenamedOption, redactSecrets, secretValuesFromEnv } from '@troupe/core/util';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, DEFAULT_QUEUE_PREFIX, openRedis, type QueueConnection } from './queue-connection';
import { registerQueueEvents } from './queue-events';
import { EventStreamReader } from './queue-event-stream';
import { readFailureRecord } from './queue-failure-record';
import type { QueueJobData } from './queue-job';
import { CONTROL_TTL_SECONDS, queueKeys } from './queue-keys';
import { RedisStore } from './redis-store';

/** How failed attempts are retried: BullMQ's backoff. */
export interface QueueBackoff {
  type: 'fixed' | 'exponential';
  /** First delay in ms (doubles each retry with `exponential`). */
  delayMs: number;
}

/** Options for {@link createQueueClient}. */
export interface QueueClientOptions {
  /** Redis: a `redis://` URL or ioredis options. */
  connection: QueueConnection;
  /** The origin's bus: every job's events are published here, in order. */
  eventBus?: EventBus;
  /** Prefix of Troupe's keys. Default `troupe`. */
  prefix?: string;
  /** Names this origin's event stream. Default a random id. */
  originId?: string;
  /**
   * Attempts per job, the first one included (1 = no retry; BullMQ's
   * `attempts`). Default 3. Named as Troupe names every count that includes
   * the first try; `maxRetries` elsewhere counts the retries after it.
   */
  maxAttempts?: number;
  /** @deprecated Use `maxAttempts` (the same count). Still read, with a `DeprecationWarning`; removed in a later minor version. */
  attempts?: number;
  /** Delay between attempts. Default exponential from 1 s. */
  backoff?: QueueBackoff;
  /** Env whose secret-looking values may never appear in a job payload. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Per-job options of {@link QueueClient.submit}. */
export interface SubmitOptions {
  /** A job id of your own (idempotent submit: the same id is one job). Default a random id. */
  jobId?: string;
  /** Aborting cancels the job (and kills its agent CLI on the worker). */
  signal?: AbortSignal;
  /** Attempts of this job, the first one included. Default: the client's `maxAttempts`. */
  maxAttempts?: number;
  /** @deprecated Use `maxAttempts` (the same count). Still read, with a `DeprecationWarning`. */
  attempts?: number;
  backoff?: QueueBackoff;
}

/** A job sent to workers. */
export interface QueuedJob<R = unknown> {
  readonly queue: string;
  readonly id: string;
  /**
   * Resolves with the job's result once it completed and every event it sent
   * before has reached the origin's bus; rejects when it failed for good (its
   * attempts used up, or canceled: an `AbortError`).
   */
  readonly result: Promise<R>;
  /** Calls `listener` with each of the job's events (they also go to the client's bus). */
  onEvent(listener: (event: AnyTroupeEvent) => void): () => void;
  /** Sends a command to the handler on the worker (for a Looper job: `stop`, `add_pending`, `status`). */
  command(input: string): Promise<void>;
  /** Cancels the job: a waiting job never starts, a running one is aborted (its CLI killed) and not retried. */
  cancel(): Promise<void>;
  /** BullMQ's state: `waiting`, `active`, `delayed`, `completed`, `failed`… */
  state(): Promise<string>;
}

/** The origin's side of the queue (see {@link createQueueClient}). */
export interface QueueClient {
  /** Adds a job of `kind` to `queue`. */
  submit<R = unknown>(queue: string, kind: string, payload: unknown, options?: SubmitOptions): Promise<QueuedJob<R>>;
  /** Re-attaches to a job submitted earlier (by id). */
  job<R = unknown>(queue: string, jobId: string): QueuedJob<R>;
  /** Caps how many jobs of `queue` run at once across every worker (BullMQ's global concurrency). */
  setGlobalConcurrency(queue: string, concurrency: number): Promise<void>;
  /** Job counts by state (waiting, active, completed, failed, delayed), e.g. for a dashboard. */
  counts(queue: string): Promise<Record<string, number>>;
  /** The Redis-backed store workers keep checkpoints in (read a job's state from the origin). */
  readonly store: RedisStore;
  /** Stops reading events and closes every connection. */
  close(): Promise<void>;
}

const DEFAULT_BACKOFF: QueueBackoff = { type: 'exponential', delayMs: 1000 };

/** `maxAttempts`, or the deprecated `attempts` (warned about once per process; giving both is an error). */
function readMaxAttempts(options: { maxAttempts?: number | undefined; attempts?: number | undefined }): number | undefined {
  const value = readRenamedOption<number>(options, {
    name: 'maxAttempts',
    deprecatedName: 'attempts',
    where: 'queue options',
    warning: {
      message: '@troupe/queue-bullmq: the "attempts" option is deprecated; use "maxAttempts" (the same count, the first attempt included)',
      code: 'TROUPE_QUEUE_ATTEMPTS',
      type: 'DeprecationWarning',
    },
  });
  if (value === undefined) return undefined;
  if (!(Number.isInteger(value) && value > 0)) throw new InvalidArgumentError(options.maxAttempts !== undefined ? 'maxAttempts' : 'attempts', `expected a positive integer, got ${String(value)}`);
  return value;
}

function checkBackoff(value: QueueBackoff | undefined): QueueBackoff | undefined {
  if (value === undefined) return undefined;
  if (value === null || (value.type !== 'fixed' && value.type !== 'exponential') || !(Number.isInteger(value.delayMs) && value.delayMs >= 0)) {
    throw new InvalidArgumentError('backoff', 'expected { type: "fixed" | "exponential", delayMs: integer >= 0 }');
  }
  return value;
}

/**
 * Throws when a payload would carry a secret: a value of a secret-looking
 * variable of `env` (`*_API_KEY`, `*TOKEN*`…) or anything shaped like a
 * well-known API key. Workers use their own keys; none travels in a job.
 */
export function assertNoSecretInPayload(payload: unknown, env: Record<string, string | undefined> = process.env): void {
  let json: string;
  try {
    json = JSON.stringify(payload) ?? 'null';
  } catch (error) {
    throw new InvalidArgumentError('payload', `expected JSON data (${(error as Error).message})`, { cause: error });
  }
  if (redactSecrets(json, secretValuesFromEnv(env)) !== json) {
    throw new InvalidArgumentError(
      'payload',
      'it contains a secret (an API key or token); job payloads travel through Redis, so keep keys in the workers’ env or agent registry',
    );
  }
}

/**
 * The origin side: submits jobs to BullMQ queues and publishes the events
 * workers stream back on `eventBus`, in order, so the origin sees `[AUTO]`
 * lines, traces and usage as if the work ran in-process.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const client = createQueueClient({ connection: 'redis://127.0.0.1:6379', eventBus: bus });
 * const job = await client.submit('troupe-looper', 'looper', { task: 'Add tests', workspace: { gitUrl: 'https://…' } });
 * console.log(await job.result);
 * await client.close();
 * ```
 */
export function createQueueClient(options: QueueClientOptions): QueueClient {
  registerQueueEvents();
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
  const keys = queueKeys(prefix);
  const maxAttempts = readMaxAttempts(options) ?? 3;
  const backoff = checkBackoff(options.backoff) ?? DEFAULT_BACKOFF;
  const originId = options.originId ?? randomUUID();
  const env = options.env ?? process.env;
  const redis = openRedis(options.connection, `troupe-origin:${originId}`);
  const reader = new EventStreamReader(openRedis(options.connection, `troupe-origin-events:${originId}`), redis, keys.events(originId), options.eventBus);
  const store = new RedisStore(redis, { prefix });
  const queues = new Map<string, { queue: Queue; events: QueueEvents; connections: Redis[] }>();
  let closed = false;

  function queueOf(name: string) {
    if (closed) throw new AbortError('queue client closed');
    let entry = queues.get(name);
    if (!entry) {
      const queueConnection = openRedis(options.connection, `troupe-queue:${originId}`);
      const eventsConnection = openRedis(options.connection, `troupe-queue-events:${originId}`);
      const events = new QueueEvents(name, { connection: eventsConnection, prefix: 'bull' });
      events.on('error', () => {});
      // One listener per job waiting for its result.
      events.setMaxListeners(0);
      entry = { queue: new Queue(name, { connection: queueConnection, prefix: 'bull' }), events, connections: [queueConnection, eventsConnection] };
      entry.queue.on('error', () => {});
      entry.queue.setMaxListeners(0);
      queues.set(name, entry);
    }
    return entry;
  }

  function handle<R>(queueName: string, jobId: string, signal?: AbortSignal, forgetScope?: () => void): QueuedJob<R> {
    const { queue, events } = queueOf(queueName);
    let rejectCanceled!: (error: unknown) => void;
    const canceled = new Promise<never>((_, reject) => (rejectCanceled = reject));
    canceled.catch(() => {});
    // A canceled job ends at the origin at once; the worker running it (or the next to take it) aborts it and fails it without retry.
    const cancel = async () => {
      rejectCanceled(new AbortError(`job ${jobId} canceled`));
      await redis.multi().set(keys.canceled(queueName, jobId), '1', 'EX', CONTROL_TTL_SECONDS).publish(keys.control(queueName), JSON.stringify({ queue: queueName, jobId })).exec();
    };
    // Waiting for the result starts on first use (a handle only used for commands or state opens nothing).
    let result: Promise<R> | undefined;
    const awaitResult = (): Promise<R> => {
      if (result) return result;
      const finished = (async () => {
        await events.waitUntilReady();
        const job = await Job.fromId(queue, jobId);
        if (!job) throw new InvalidArgumentError('jobId', `no job ${jobId} on queue "${queueName}"`);
        try {
          const value = (await job.waitUntilFinished(events)) as R;
          await reader.drain();
          return value;
        } catch (error) {
          await reader.drain().catch(() => {});
          if ((await redis.exists(keys.canceled(queueName, jobId))) === 1) throw new AbortError(`job ${jobId} canceled`, { cause: error });
          if (TroupeError.isInstance(error)) throw error;
          const failure = await readFailureRecord(redis, keys.failure(queueName, jobId));
          throw new QueueJobError(queueName, jobId, failure?.message ?? (error instanceof Error ? error.message : String(error)), {
            cause: error,
            ...(failure?.code !== undefined ? { failureCode: failure.code, params: failure.params ?? {} } : {}),
          });
        }
      })();
      // Its events are all published once it settled (drained above): its scope is no longer needed. (This also
      // handles `finished`'s rejection: callers get it through `result`.)
      const forget = () => forgetScope?.();
      void finished.then(forget, forget);
      result = Promise.race([finished, canceled]);
      result.catch(() => {});
      return result;
    };
    if (signal) {
      const onAbort = () => void cancel().catch(() => {});
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        void awaitResult().then(
          () => signal.removeEventListener('abort', onAbort),
          () => signal.removeEventListener('abort', onAbort),
        );
      }
    }
    return {
      queue: queueName,
      id: jobId,
      get result() {
        return awaitResult();
      },
      onEvent: (listener) => reader.onJob(jobId, listener),
      async command(input) {
        if (typeof input !== 'string' || input === '') throw new InvalidArgumentError('input', 'expected a non-empty command string');
        await redis
          .multi()
          .rpush(keys.commands(queueName, jobId), input)
          .expire(keys.commands(queueName, jobId), CONTROL_TTL_SECONDS)
          .publish(keys.control(queueName), JSON.stringify({ queue: queueName, jobId }))
          .exec();
      },
      cancel,
      async state() {
        return (await (await Job.fromId(queue, jobId))?.getState()) ?? 'unknown';
      },
    };
  }

  return {
    store,
    async submit<R>(queueName: string, kind: string, payload: unknown, submitOptions: SubmitOptions = {}): Promise<QueuedJob<R>> {
      if (typeof queueName !== 'string' || queueName === '' || queueName.includes(':')) throw new InvalidArgumentError('queue', `expected a queue name without ":", got ${JSON.stringify(queueName)}`);
      if (typeof kind !== 'string' || kind === '') throw new InvalidArgumentError('kind', 'expected a non-empty job kind');
      AbortError.throwIfAborted(submitOptions.signal, 'submit');
      assertNoSecretInPayload(payload, env);
      const jobId = submitOptions.jobId ?? randomUUID();
      const { queue } = queueOf(queueName);
      const retry = checkBackoff(submitOptions.backoff) ?? backoff;
      const data: QueueJobData = { kind, payload, eventStream: keys.events(originId) };
      // The job's events come back on the reader's path: they belong to the scope it was submitted in (its run, its agent).
      const scope = currentEventScope();
      const forgetScope = scope ? reader.scopeJob(jobId, scope) : undefined;
      try {
        await queue.add(kind, data, {
          jobId,
          attempts: readMaxAttempts(submitOptions) ?? maxAttempts,
          backoff: { type: retry.type, delay: retry.delayMs },
          removeOnComplete: false,
          removeOnFail: false,
        });
      } catch (error) {
        forgetScope?.();
        throw error;
      }
      options.eventBus?.emit('queue:job-submitted', { queue: queueName, jobId, kind }, { source: 'queue' });
      return handle<R>(queueName, jobId, submitOptions.signal, forgetScope);
    },
    job: (queueName, jobId) => handle(queueName, jobId),
    async setGlobalConcurrency(queueName, concurrency) {
      if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new InvalidArgumentError('concurrency', `expected a positive integer, got ${String(concurrency)}`);
      await queueOf(queueName).queue.setGlobalConcurrency(concurrency);
    },
    async counts(queueName) {
      return queueOf(queueName).queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'paused', 'prioritized');
    },
    async close() {
      closed = true;
      await reader.stop();
      for (const { queue, events, connections } of queues.values()) {
        await events.close().catch(() => {});
        await queue.close().catch(() => {});
        await Promise.all(connections.map(closeRedis));
      }
      await closeRedis(redis);
    },
  };
}

/**
 * A queued job failed for good (its attempts used up); `message` is its last
 * failure. `failureCode` and `params` say why in no language (as on
 * `queue:job-failed`), for callers that word the failure themselves;
 * `reason` is the worker's English message, for any code they do not know.
 */
export class QueueJobError extends TroupeError {
  override readonly name = 'QueueJobError';
  /** The last failure's code: a `QueueFailureCode` or another Troupe error's code; undefined when the worker gave none. */
  readonly failureCode: string | undefined;
  /** What a message about `failureCode` needs (see `QueueFailureParams`). */
  readonly params: Readonly<Record<string, string | number>>;

  constructor(
    readonly queue: string,
    readonly jobId: string,
    /** The last failure's own message, without the job and queue (for callers that word the message themselves). */
    readonly reason: string,
    options: { cause?: unknown; failureCode?: string; params?: Record<string, string | number> } = {},
  ) {
    super('AGENT_ERROR', `job ${jobId} on queue "${queue}" failed: ${reason}`, options);
    this.failureCode = options.failureCode;
    this.params = options.params ?? {};
  }
}
