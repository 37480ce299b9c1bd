import { AbortError, InvalidArgumentError } from '@troupe/core';

/** Gives a slot back. Calling it twice is harmless. */
export type ReleaseSlot = () => void;

interface Waiter {
  resolve: (release: ReleaseSlot) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * @internal The per-orchestrator concurrency limit: at most `limit` holders
 * at once; others wait in FIFO order, except `high` priority waiters
 * (parents coming back from a fork) who go first so a tree finishes before
 * new work starts.
 */
export class AgentSlots {
  private active = 0;
  private readonly high: Waiter[] = [];
  private readonly normal: Waiter[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError('maxConcurrency', `expected an integer >= 1, got ${String(limit)}`);
  }

  /** Slots in use. */
  get running(): number {
    return this.active;
  }

  /** Waiters. */
  get waiting(): number {
    return this.high.length + this.normal.length;
  }

  /** Waits for a slot; rejects with `AbortError` (the signal's reason as cause) when `signal` aborts first. */
  acquire(signal: AbortSignal, priority: 'normal' | 'high' = 'normal'): Promise<ReleaseSlot> {
    if (signal.aborted) return Promise.reject(new AbortError('Waiting for a concurrency slot was aborted', { cause: signal.reason }));
    if (this.active < this.limit && this.waiting === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const queue = priority === 'high' ? this.high : this.normal;
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = queue.indexOf(waiter);
          if (index !== -1) queue.splice(index, 1);
          reject(new AbortError('Waiting for a concurrency slot was aborted', { cause: signal.reason }));
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      queue.push(waiter);
    });
  }

  private releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.next();
    };
  }

  private next(): void {
    while (this.active < this.limit) {
      const waiter = this.high.shift() ?? this.normal.shift();
      if (!waiter) return;
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      this.active++;
      waiter.resolve(this.releaser());
    }
  }
}
