import { AbortError, type EventBus, type Unsubscribe } from '@troupe/core';

/**
 * What the executor sleeps on instead of polling: a counter bumped by every
 * `pipeline:batch-planned` / `pipeline:planning-completed` event of its
 * thread on the bus (and by each batch that finishes). The executor notes
 * the counter, reads the store, and waits only if the counter has not moved
 * since, so a notification between the read and the wait is never lost.
 *
 * @internal
 */
export class PipelineWakeups {
  private count = 0;
  private readonly waiters = new Set<() => void>();
  private readonly offs: Unsubscribe[];

  constructor(bus: EventBus, channelId: string) {
    const bump = () => this.bump();
    this.offs = [bus.on('pipeline:batch-planned', bump, { channelId }), bus.on('pipeline:planning-completed', bump, { channelId })];
  }

  /** The counter now; pass it to {@link wait}. */
  get version(): number {
    return this.count;
  }

  /** Wakes every waiter. */
  bump(): void {
    this.count++;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /** Resolves once the counter passed `since`; rejects with `AbortError` when `signal` aborts first. */
  wait(since: number, signal: AbortSignal): Promise<void> {
    if (this.count !== since) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const fail = () => reject(new AbortError('The pipeline executor stopped waiting', { cause: signal.reason }));
      if (signal.aborted) return fail();
      const waiter = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.delete(waiter);
        fail();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Unsubscribes from the bus. */
  dispose(): void {
    for (const off of this.offs) off();
  }
}
