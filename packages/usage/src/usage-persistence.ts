import type { Namespace, Store, StoreCallOptions } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { usageRecordSchema, type UsageRecord } from '@troupe/core';

/**
 * Reads the usage records persisted under `namespace` (e.g. a session's
 * `['sessions', id, 'usage']`), oldest first. Items that are not valid
 * records are skipped.
 */
export async function readUsageRecords(store: Store, namespace: Namespace, options: StoreCallOptions = {}): Promise<UsageRecord[]> {
  const items = await store.list(namespace, options);
  const records: UsageRecord[] = [];
  for (const item of items) {
    const parsed = usageRecordSchema.safeParse(item.value);
    if (parsed.success) records.push(parsed.data);
  }
  return records.sort(byTime);
}

/** Oldest first; records of the same millisecond in id order (ids count up within a ledger). */
export function byTime(a: UsageRecord, b: UsageRecord): number {
  return a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1);
}

/** Saves a ledger's records to its store one after the other, without making the run wait for the store. */
export interface UsageRecordWriter {
  /** Queues `record` for writing; a failed write is a process warning, never an error of the run that spent the tokens. */
  write(record: UsageRecord): void;
  /** Resolves once every record queued so far is written (or its failure warned about). */
  flush(): Promise<void>;
}

/** One item per record under `namespace`, keyed by the record's id, written in the order the records came. */
export function createUsageRecordWriter(store: Store, namespace: Namespace): UsageRecordWriter {
  let writes: Promise<void> = Promise.resolve();
  return {
    write(record) {
      writes = writes
        .then(() => store.put(namespace, record.id, record))
        .catch((error: unknown) => {
          process.emitWarning(`Troupe could not save a usage record: ${serializeError(error).message}`, 'TroupeWarning');
        });
    },
    flush: () => writes,
  };
}
