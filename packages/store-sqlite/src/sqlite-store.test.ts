import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalStoreConformanceCases, storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
import { openSqliteStore, SQLITE_STORE_SCHEMA_VERSION, SqliteStore, SqliteStoreError } from '@troupe/store-sqlite';
import { sqliteStoreMigrations } from './sqlite-store-migrations';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('SqliteStore (:memory:) (Store conformance)', () => {
  const withStore = withConformanceStore(
    ({ now }) => openSqliteStore(':memory:', { now }),
    (store) => (store as SqliteStore).close(),
  );
  for (const c of storeConformanceCases()) it(c.name, withStore(c));
  for (const c of approvalStoreConformanceCases()) it(c.name, withStore(c));
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-store-sqlite-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteStore (file, WAL) (Store conformance)', () => {
  const withStore = withConformanceStore(
    ({ now }) => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'troupe-store-conf-')), 'store.db'), { now }),
    async (store) => {
      await (store as SqliteStore).close();
      rmSync(join((store as SqliteStore).path, '..'), { recursive: true, force: true });
    },
  );
  for (const c of storeConformanceCases()) it(c.name, withStore(c));
  for (const c of approvalStoreConformanceCases()) it(c.name, withStore(c));
});

function lines(child: ChildProcess): AsyncIterator<string> {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let index: number;
    while ((index = buffer.indexOf('\n')) >= 0) {
      queue.push(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
    }
    wake?.();
  });
  return {
    async next() {
      while (queue.length === 0) {
        if (child.exitCode !== null) return { done: true, value: undefined };
        await new Promise<void>((resolve) => {
          wake = resolve;
          child.once('exit', () => resolve());
        });
      }
      return { done: false, value: queue.shift() as string };
    },
  };
}

describe('SqliteStore on disk', () => {
  it('keeps data across close and reopen, in WAL mode, at the current schema version', async () => {
    const path = join(dir, 'troupe.db');
    const store = openSqliteStore(path);
    expect(store.schemaVersion).toBe(SQLITE_STORE_SCHEMA_VERSION);
    await store.put(['session', 's1', 'messages', 'looper'], '0000000001', { content: '[AUTO] Loop started' });
    await store.close();
    expect(store.isOpen).toBe(false);
    await expect(store.get(['x'], 'y')).rejects.toMatchObject({ name: 'SqliteStoreError', reason: 'closed' });

    const again = openSqliteStore(path);
    expect((await again.get(['session', 's1', 'messages', 'looper'], '0000000001'))?.value).toEqual({ content: '[AUTO] Loop started' });
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_STORE_SCHEMA_VERSION);
    raw.close();
    await again.close();
  });

  it('a process killed with SIGKILL in the middle of a transaction leaves none of its writes', async () => {
    const path = join(dir, 'crash.db');
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', join(fixtures, 'crash-mid-transaction.ts'), path], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const output = lines(child);
    expect((await output.next()).value).toBe('mid-transaction');
    child.kill('SIGKILL');
    await once(child, 'exit');

    const store = openSqliteStore(path);
    expect((await store.get(['step'], 'state'))?.value).toEqual({ iteration: 1 });
    expect((await store.list(['step', 'history'])).map((i) => i.key)).toEqual(['0000000001']);
    await store.close();
  });

  it('fails clearly (reason "locked") when another process holds the write lock past the busy timeout', async () => {
    const path = join(dir, 'locked.db');
    const setup = openSqliteStore(path);
    await setup.put(['a'], 'k', 'before');
    await setup.close();
    const holder = spawn(process.execPath, [join(fixtures, 'hold-write-lock.cjs'), path], { cwd: packageDir, stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      expect((await lines(holder).next()).value).toBe('locked');
      const error = await (async () => {
        try {
          const store = openSqliteStore(path, { busyTimeoutMs: 200 });
          await store.put(['a'], 'k', 'during');
          await store.close();
          return undefined;
        } catch (caught) {
          return caught;
        }
      })();
      expect(SqliteStoreError.isSqliteStoreError(error)).toBe(true);
      expect(error).toMatchObject({ reason: 'locked', path, sqliteCode: expect.stringMatching(/^SQLITE_BUSY/) });
      expect((error as Error).message).toContain(`the database ${path} is locked by another connection (waited 200 ms)`);
    } finally {
      holder.stdin?.end();
      await once(holder, 'exit');
    }
    const store = openSqliteStore(path);
    expect((await store.get(['a'], 'k'))?.value).toBe('before');
    await store.close();
  });

  it('refuses a file written by a newer schema version, naming both versions', async () => {
    const path = join(dir, 'newer.db');
    (await openSqliteStore(path).close());
    const raw = new Database(path);
    raw.pragma(`user_version = ${SQLITE_STORE_SCHEMA_VERSION + 2}`);
    raw.close();
    expect(() => openSqliteStore(path)).toThrow(SqliteStoreError);
    expect(() => openSqliteStore(path)).toThrow(
      `${path} uses store schema v${SQLITE_STORE_SCHEMA_VERSION + 2}, newer than this @troupe/store-sqlite (0.0.0-source) supports (v${SQLITE_STORE_SCHEMA_VERSION}). Upgrade @troupe/store-sqlite`,
    );
    try {
      openSqliteStore(path);
    } catch (error) {
      expect(error).toMatchObject({ reason: 'schema-too-new', code: 'STORE_ERROR' });
    }
  });

  it('migrates an older file step by step and records each migration', async () => {
    const path = join(dir, 'older.db');
    const v1Only = sqliteStoreMigrations.slice(0, 1);
    const old = openSqliteStore(path, { migrations: v1Only });
    await old.put(['kept'], 'k', 'from v1');
    await old.close();
    const v2 = [...sqliteStoreMigrations, { version: SQLITE_STORE_SCHEMA_VERSION + 1, name: 'test: notes table', up: (db: Database.Database) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)') }];
    const store = openSqliteStore(path, { migrations: v2 });
    expect(store.schemaVersion).toBe(SQLITE_STORE_SCHEMA_VERSION + 1);
    expect((await store.get(['kept'], 'k'))?.value).toBe('from v1');
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT version, name, package_version FROM troupe_migrations ORDER BY version').all()).toEqual([
      { version: 1, name: 'items and migrations tables', package_version: '0.0.0-source' },
      { version: 2, name: 'test: notes table', package_version: '0.0.0-source' },
    ]);
    raw.close();
    // The released package then refuses the file it cannot read.
    expect(() => openSqliteStore(path)).toThrow(/newer than this @troupe\/store-sqlite/);
  });

  it('a migration that fails leaves the file at the previous version', async () => {
    const path = join(dir, 'failing.db');
    const broken = [...sqliteStoreMigrations, { version: SQLITE_STORE_SCHEMA_VERSION + 1, name: 'broken', up: (db: Database.Database) => db.exec('CREATE TABLE items (x)') }];
    expect(() => openSqliteStore(path, { migrations: broken })).toThrow(/already exists/);
    const store = openSqliteStore(path);
    expect(store.schemaVersion).toBe(SQLITE_STORE_SCHEMA_VERSION);
    await store.close();
  });

  it('refuses foreign SQLite databases and files that are not databases', () => {
    const foreign = join(dir, 'foreign.db');
    const raw = new Database(foreign);
    raw.exec('CREATE TABLE users (id INTEGER)');
    raw.close();
    expect(() => openSqliteStore(foreign)).toThrow(/is a SQLite database but not a Troupe store .*refusing to change it/);
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'hello, I am not a database at all, just some text that is long enough '.repeat(20));
    expect(() => openSqliteStore(text)).toThrow(expect.objectContaining({ reason: 'not-a-store' }));
  });

  it('fails with reason "cannot-open" when the folder is missing or not writable', () => {
    expect(() => openSqliteStore(join(dir, 'missing', 'troupe.db'))).toThrow(expect.objectContaining({ reason: 'cannot-open' }));
    expect(() => openSqliteStore(join(dir, 'missing', 'troupe.db'))).toThrow(`the folder ${join(dir, 'missing')} does not exist`);
    if (process.getuid?.() === 0) return; // root writes anywhere
    const locked = join(dir, 'ro');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    expect(() => openSqliteStore(join(locked, 'troupe.db'))).toThrow(expect.objectContaining({ reason: 'cannot-open' }));
  });

  it('read-only stores read but refuse writes; a missing file cannot be opened read-only', async () => {
    const path = join(dir, 'ro.db');
    const writer = openSqliteStore(path);
    await writer.put(['a'], 'k', 1);
    await writer.close();
    const reader = openSqliteStore(path, { readonly: true });
    expect((await reader.get(['a'], 'k'))?.value).toBe(1);
    await expect(reader.put(['a'], 'k', 2)).rejects.toMatchObject({ reason: 'read-only' });
    await reader.close();
    expect(() => openSqliteStore(join(dir, 'none.db'), { readonly: true })).toThrow(expect.objectContaining({ reason: 'cannot-open' }));
  });

  it('two connections to one file see each other’s commits, never a transaction in progress', async () => {
    const path = join(dir, 'shared.db');
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    await a.put(['q'], 'k', 1);
    expect((await b.get(['q'], 'k'))?.value).toBe(1);
    let inside!: () => void;
    const reachedInside = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let finish!: () => void;
    const done = a.transaction(async (tx) => {
      await tx.put(['q'], 'k', 2);
      inside();
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    await reachedInside;
    expect((await b.get(['q'], 'k'))?.value).toBe(1);
    finish();
    await done;
    expect((await b.get(['q'], 'k'))?.value).toBe(2);
    await a.close();
    await b.close();
  });

  it('calls from outside a running transaction wait for it; calls inside it join it', async () => {
    const store = openSqliteStore(':memory:');
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = store.transaction(async () => {
      await store.put(['o'], 'k', 'inside'); // the store itself, not tx: joins the transaction
      order.push('tx-wrote');
      await gate;
      order.push('tx-done');
    });
    await Promise.resolve();
    const outside = store.get(['o'], 'k').then((item) => {
      order.push(`outside-read:${String(item?.value)}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['tx-wrote']);
    release();
    await Promise.all([tx, outside]);
    expect(order).toEqual(['tx-wrote', 'tx-done', 'outside-read:inside']);
    await store.close();
  });

  it('rejects bad options with the option named', () => {
    expect(() => openSqliteStore('')).toThrow(/path/);
    expect(() => openSqliteStore(':memory:', { busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    expect(() => openSqliteStore(':memory:', { synchronous: 'off' as 'full' })).toThrow(/synchronous/);
  });
});
