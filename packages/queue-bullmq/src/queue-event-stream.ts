import { parseEvent, runInEventScope, type AnyTroupeEvent, type EventBus, type EventScope } from '@troupe/core';
import { type SecretRedactor } from '@troupe/core/util';
import type { Redis } from 'ioredis';

/** Stream entries kept per origin (approximate trim). */
const STREAM_MAX_LEN = 200_000;
/** How long a worker gathers events before sending them (they reach the origin at most this much later). */
const EVENT_BATCH_MS = 5;

/**
 * Worker side: appends a job's bus events to its origin's Redis stream, in
 * the order they were emitted. Secrets of the worker's env are
 * redacted from every event before it leaves the machine.
 */
export class JobEventWriter {
  private readonly pending = new Set<Promise<unknown>>();
  private batch: string[] = [];
  private scheduled: ReturnType<typeof setTimeout> | undefined;
  private failed: unknown;

  constructor(
    private readonly redis: Redis,
    private readonly streamKey: string,
    private readonly jobId: string,
    private readonly redactor: SecretRedactor,
  ) {}

  /**
   * Queues one event. Events emitted within {@link EVENT_BATCH_MS} of each
   * other (a step's start, an agent's output chunk, a run's end each yield
   * several) go to Redis together, one pipeline of `XADD`s in one socket
   * write, instead of one write (and one wake-up of Redis and the origin)
   * per event. Commands on one ioredis connection reach Redis in the order
   * they were issued (also when replayed after a reconnect), so the stream
   * keeps the order of emission.
   */
  write(event: AnyTroupeEvent): void {
    this.batch.push(this.redactor.redact(JSON.stringify(event)));
    this.scheduled ??= setTimeout(() => this.send(), EVENT_BATCH_MS);
  }

  /** Resolves once every queued event is in Redis; rejects with the first write error. */
  async flush(): Promise<void> {
    this.send();
    await Promise.all(this.pending);
    if (this.failed !== undefined) throw this.failed;
  }

  private send(): void {
    if (this.scheduled !== undefined) clearTimeout(this.scheduled);
    this.scheduled = undefined;
    const events = this.batch;
    if (events.length === 0) return;
    this.batch = [];
    const pipeline = this.redis.pipeline();
    for (const json of events) pipeline.xadd(this.streamKey, 'MAXLEN', '~', String(STREAM_MAX_LEN), '*', 'job', this.jobId, 'event', json);
    const sent: Promise<unknown> = pipeline.exec().then(
      (replies) => {
        this.failed ??= replies?.find(([error]) => error)?.[0] ?? undefined;
        this.pending.delete(sent);
      },
      (error: unknown) => {
        this.failed ??= error;
        this.pending.delete(sent);
      },
    );
    this.pending.add(sent);
  }
}

/** Compares two stream ids (`ms-seq`). */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}

/**
 * Origin side: reads its event stream on a dedicated connection (blocking
 * `XREAD`) and publishes each event on the origin's bus, in stream order, so
 * `[AUTO]` messages, traces and usage look the same as in-process. `drain`
 * asks for the stream's end on `commands`, a connection that never blocks:
 * on the reading one it would queue behind the pending `XREAD` and wait out
 * its timeout whenever no new event came.
 */
export class EventStreamReader {
  private lastId = '0-0';
  private stopped = false;
  private readonly loop: Promise<void>;
  private waiters: { id: string; resolve: () => void }[] = [];
  private readonly jobListeners = new Map<string, Set<(event: AnyTroupeEvent) => void>>();
  /** The event scope each job was submitted in (see {@link EventStreamReader.scopeJob}). */
  private readonly jobScopes = new Map<string, EventScope>();
  /** Jobs whose completion was published: a retry that finds the run already done (its worker died between the two) says it again. */
  private readonly completed = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly commands: Redis,
    private readonly streamKey: string,
    private readonly bus: EventBus | undefined,
  ) {
    this.loop = this.run();
  }

  /**
   * Publishes the events of one job inside `scope` (the event scope it was submitted in), so the usage ledger
   * charges its turns to the origin's agent and run, and traces nest under it, as in-process. Returns a function
   * that forgets it.
   */
  scopeJob(jobId: string, scope: EventScope): () => void {
    this.jobScopes.set(jobId, scope);
    return () => {
      if (this.jobScopes.get(jobId) === scope) this.jobScopes.delete(jobId);
    };
  }

  /** Calls `listener` with each event of one job; returns an unsubscribe function. */
  onJob(jobId: string, listener: (event: AnyTroupeEvent) => void): () => void {
    let set = this.jobListeners.get(jobId);
    if (!set) {
      set = new Set();
      this.jobListeners.set(jobId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.jobListeners.get(jobId) === set) this.jobListeners.delete(jobId);
    };
  }

  /** Resolves once every event in the stream right now has been published. */
  async drain(): Promise<void> {
    const [last] = (await this.commands.xrevrange(this.streamKey, '+', '-', 'COUNT', '1')) as [string, string[]][];
    if (!last || compareStreamIds(last[0], this.lastId) <= 0 || this.stopped) return;
    await new Promise<void>((resolve) => this.waiters.push({ id: last[0], resolve }));
  }

  /** Stops reading (after the current blocking read returns). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.redis.disconnect();
    await this.loop;
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.redis.xread('COUNT', '1000', 'BLOCK', '1000', 'STREAMS', this.streamKey, this.lastId)) as typeof reply;
      } catch {
        if (this.stopped) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          this.lastId = id;
          this.deliver(fields);
        }
      }
      this.waiters = this.waiters.filter((waiter) => {
        if (compareStreamIds(waiter.id, this.lastId) > 0) return true;
        waiter.resolve();
        return false;
      });
    }
  }

  private deliver(fields: string[]): void {
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
    if (record.event === undefined || record.job === undefined) return;
    let event: AnyTroupeEvent;
    try {
      event = parseEvent(record.event);
    } catch {
      // A type this process does not know (a plugin's event): pass the envelope on as it came.
      try {
        event = JSON.parse(record.event) as AnyTroupeEvent;
      } catch {
        return;
      }
    }
    if (event.type === 'queue:job-completed') {
      if (this.completed.has(record.job)) return;
      this.completed.add(record.job);
    }
    const bus = this.bus;
    if (bus) runInEventScope(this.jobScopes.get(record.job), () => bus.publish(event));
    for (const listener of this.jobListeners.get(record.job) ?? []) listener(event);
  }
}
