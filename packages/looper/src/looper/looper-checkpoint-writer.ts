import type { LooperSnapshot } from './looper-state';
import type { LooperHistoryEntry, LooperStateStore } from './looper-state-store';

/**
 * Writes a Looper's checkpoints one after another, in order: a change that
 * arrives while a write is queued (not started) joins it, so one
 * transaction saves the latest snapshot and every history entry since the
 * previous write. A failed write is reported and never stops the next one.
 */
export class LooperCheckpointWriter {
  private writes: Promise<void> = Promise.resolve();
  private queued: { snapshot: LooperSnapshot; entries: LooperHistoryEntry[] } | undefined;

  constructor(
    private readonly store: LooperStateStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues `snapshot` with its history entry. */
  write(snapshot: LooperSnapshot, entry: LooperHistoryEntry): void {
    if (this.queued) {
      this.queued.snapshot = snapshot;
      this.queued.entries.push(entry);
      return;
    }
    const job = { snapshot, entries: [entry] };
    this.queued = job;
    this.writes = this.writes
      .then(() => {
        if (this.queued === job) this.queued = undefined;
        return this.store.save(job.snapshot, job.entries);
      })
      .catch(this.onError);
  }

  /** Resolves once every checkpoint queued so far is saved (or failed). Never rejects. */
  flush(): Promise<void> {
    return this.writes;
  }
}
