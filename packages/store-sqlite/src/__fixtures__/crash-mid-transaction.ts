// Commits one transaction, then starts a second one and waits to be killed in the middle of it.
// Usage: node --import tsx --conditions=@troupe/source crash-mid-transaction.ts <db path>
import { openSqliteStore } from '@troupe/store-sqlite';

const store = openSqliteStore(process.argv[2] as string);
await store.transaction(async (tx) => {
  await tx.put(['step'], 'state', { iteration: 1 });
  await tx.put(['step', 'history'], '0000000001', { kind: 'coder' });
});
await store.transaction(async (tx) => {
  await tx.put(['step'], 'state', { iteration: 2 });
  await tx.put(['step', 'history'], '0000000002', { kind: 'review' });
  process.stdout.write('mid-transaction\n');
  await new Promise(() => setInterval(() => {}, 1000)); // killed here
});
