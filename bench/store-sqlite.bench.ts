import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@troupe/store-sqlite';
import { median, type BenchKit } from './bench-kit';

interface RawStatement {
  run(...values: unknown[]): unknown;
  all(...values: unknown[]): { value: string }[];
}
interface RawDatabase {
  pragma(source: string): unknown;
  exec(source: string): unknown;
  prepare(source: string): RawStatement;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}
// better-sqlite3 is a dependency of @troupe/store-sqlite, not of the root: reach it through the package.
const Database = createRequire(new URL('../packages/store-sqlite/package.json', import.meta.url))('better-sqlite3') as new (path: string) => RawDatabase;

const snapshot = { version: 1, looperId: 'looper', state: 'RUNNING', revision: 0, currentTask: 'Add a sum function in sum.js and tests for it. '.repeat(10), pending: [], output: 'x'.repeat(1500) };
const message = { id: 'looper#1', channelId: 'looper', seq: 1, role: 'system', content: '[AUTO] Coder done (2.1 s): I added sum.js and its tests.', timestamp: 0 };

/**
 * A Looper checkpoint as the CLI writes it — one transaction with the state
 * (~2 KB), a history entry and two channel messages — through
 * `SqliteStore.transaction`, against the same four rows written by raw
 * better-sqlite3 in one synchronous transaction (same file settings: WAL,
 * synchronous=NORMAL). The difference is the Store layer's cost: async
 * transaction queue, namespace encoding, JSON validation.
 */
export default async function (kit: BenchKit): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-sqlite-'));
  try {
    const store = openSqliteStore(join(dir, 'store.db'));
    const raw = new Database(join(dir, 'raw.db'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec('CREATE TABLE items (ns BLOB NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (ns, key)) WITHOUT ROWID');
    const upsert = raw.prepare('INSERT INTO items VALUES (?, ?, ?, ?, ?) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
    const ns = (...segments: string[]) => Buffer.from(`${segments.join('\0')}\0`);
    const rawCheckpoint = raw.transaction((revision: number) => {
      const now = Date.now();
      upsert.run(ns('sessions', 's', 'looper', 'looper'), 'state', JSON.stringify({ ...snapshot, revision }), now, now);
      upsert.run(ns('sessions', 's', 'looper', 'looper', 'history'), String(revision).padStart(10, '0'), JSON.stringify({ kind: 'coder', revision }), now, now);
      upsert.run(ns('sessions', 's', 'messages', 'looper'), String(2 * revision).padStart(10, '0'), JSON.stringify(message), now, now);
      upsert.run(ns('sessions', 's', 'messages', 'looper'), String(2 * revision + 1).padStart(10, '0'), JSON.stringify(message), now, now);
    });
    const storeCheckpoint = (revision: number) =>
      store.transaction(async (tx) => {
        await tx.put(['sessions', 's', 'looper', 'looper'], 'state', { ...snapshot, revision });
        await tx.put(['sessions', 's', 'looper', 'looper', 'history'], String(revision).padStart(10, '0'), { kind: 'coder', revision });
        await tx.put(['sessions', 's', 'messages', 'looper'], String(2 * revision).padStart(10, '0'), message);
        await tx.put(['sessions', 's', 'messages', 'looper'], String(2 * revision + 1).padStart(10, '0'), message);
      });
    const rounds = 5;
    const perRound = 400;
    const storeUs: number[] = [];
    const rawUs: number[] = [];
    let revision = 0;
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < perRound; i++) {
        revision++;
        let start = process.hrtime.bigint();
        rawCheckpoint(revision);
        rawUs.push(Number(process.hrtime.bigint() - start) / 1000);
        start = process.hrtime.bigint();
        await storeCheckpoint(revision);
        storeUs.push(Number(process.hrtime.bigint() - start) / 1000);
      }
    }
    kit.report({ name: 'Looper checkpoint (state + history + 2 messages), median', value: median(storeUs), unit: 'µs', baselineName: 'raw better-sqlite3 transaction', baselineValue: median(rawUs), target: '≤ 2×' });

    const listStart = process.hrtime.bigint();
    for (let i = 0; i < 50; i++) await store.list(['sessions', 's', 'messages', 'looper']);
    const listUs = Number(process.hrtime.bigint() - listStart) / 1000 / 50;
    const select = raw.prepare('SELECT ns, key, value, created_at, updated_at FROM items WHERE ns = ? ORDER BY key');
    const rawListStart = process.hrtime.bigint();
    for (let i = 0; i < 50; i++) select.all(ns('sessions', 's', 'messages', 'looper')).map((row) => JSON.parse(row.value) as unknown);
    const rawListUs = Number(process.hrtime.bigint() - rawListStart) / 1000 / 50;
    kit.report({ name: `restore a channel of ${2 * revision + 2} messages (Store.list)`, value: listUs, unit: 'µs', baselineName: 'raw SELECT + JSON.parse', baselineValue: rawListUs });
    await store.close();
    raw.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
