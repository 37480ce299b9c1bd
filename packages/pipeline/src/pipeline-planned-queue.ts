import type { BatchEventRecord } from './pipeline-types';

/**
 * The executor's view of the `BATCH_PLANNED` log: the unprocessed events it
 * has read and not started yet, lowest batch first, and a cursor so each
 * read of the log returns only events it has not seen. Batches are planned
 * in order, so the cursor is usually the last batch read; an event that
 * shows up below a gap (a planner writing out of order) is still picked up,
 * because the cursor only moves past batches it has seen.
 *
 * @internal
 */
export class PlannedBatchQueue {
  /** Every batch index up to this one has been read (-1: none yet): the next read lists after it. */
  readThrough = -1;
  /** Batch indexes read above a gap, so they are not queued twice. */
  private readonly aheadOfGap = new Set<number>();
  private readonly waiting: BatchEventRecord[] = [];
  private head = 0;

  /** Unprocessed events read and not taken yet. */
  get size(): number {
    return this.waiting.length - this.head;
  }

  /** Takes in a read of the log (events after {@link readThrough}, by batch index). */
  add(events: readonly BatchEventRecord[]): void {
    for (const event of events) {
      const index = event.batchIndex;
      if (index <= this.readThrough || this.aheadOfGap.has(index)) continue;
      if (index === this.readThrough + 1) {
        this.readThrough = index;
        while (this.aheadOfGap.delete(this.readThrough + 1)) this.readThrough++;
      } else this.aheadOfGap.add(index);
      if (!event.processed) this.enqueue(event);
    }
  }

  /** The waiting event of the lowest batch; only call while {@link size} > 0. */
  take(): BatchEventRecord {
    const event = this.waiting[this.head] as BatchEventRecord;
    this.waiting[this.head++] = undefined as unknown as BatchEventRecord;
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return event;
  }

  /** Queues in batch order; events arrive in order, so this is an append but for a late one. */
  private enqueue(event: BatchEventRecord): void {
    let at = this.waiting.length;
    while (at > this.head && (this.waiting[at - 1] as BatchEventRecord).batchIndex > event.batchIndex) at--;
    this.waiting.splice(at, 0, event);
  }
}
