import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AbortError, InvalidArgumentError } from '@troupe/core/errors';
import { checkStoreListOptions, storeValueToJson, type Namespace, type Store, type StoreCallOptions, type StoreItem, type StoreListOptions } from '@troupe/core/store';
import type { SecretRedactor } from '@troupe/core/util';
import { decodeNamespace, encodeNamespace, namespaceUpperBound } from './sqlite-store-codec';
import { prepareStatements, type Row, type Statements } from './sqlite-store-statements';
import { SqliteStoreError, translateSqliteError } from './sqlite-store-error';
import { checkFileMode, DEFAULT_SQLITE_FILE_MODE, prepareDatabaseFiles } from './sqlite-store-file-mode';
import { migrateSqliteStore, sqliteStoreMigrations, type SqliteStoreMigration } from './sqlite-store-migrations';
import { VERSION } from './version';
import { keepAlive } from './sqlite-native-pin';

/** Options for {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits for another connection (another process) to
   * release the database's write lock before failing with a
   * `SqliteStoreError` of reason `locked`. Default 5000 ms.
   */
  busyTimeoutMs?: number;
  /** Open without writing: no migration, every write fails with reason `read-only`. Default false. */
  readonly?: boolean;
  /**
   * `normal` (default): with WAL, a committed transaction survives a crash
   * or `kill -9` of the process; the last commits may be lost on power
   * failure. `full`: also survives power failure, with an fsync per commit.
   */
  synchronous?: 'normal' | 'full';
  /** Clock for `createdAt`/`updatedAt`, for tests. Default `Date.now`. */
  now?: () => number;
  /**
   * Permissions of the database file when it is created (and of its `-wal`
   * and `-shm` files, which SQLite creates with the database's); an existing
   * file is tightened to them. Default `0o600`: the owner only.
   */
  fileMode?: number;
  /**
   * Hides secrets in every value before it is written (e.g. core's
   * `hostSecretRedactor()`, or `createSecretRedactor({ env, secrets })`), so
   * no API key reaches the file whatever wrote it. Default: none.
   */
  redactor?: SecretRedactor;
  /** @internal The schema history to apply (tests of the migration runner). */
  migrations?: readonly SqliteStoreMigration[];
}

/** The transaction an async context is running in (so store calls made inside `work` join it). */
interface TransactionFrame {
  store: SqliteStore;
  depth: number;
  open: boolean;
}

const frames = new AsyncLocalStorage<TransactionFrame>();

/**
 * A durable {@link Store} in one SQLite file (better-sqlite3, WAL journal):
 * the same contract and behaviour as core's `MemoryStore`, kept across
 * restarts and crashes.
 *
 * - **Transactions** are SQLite transactions (`BEGIN IMMEDIATE`): all writes
 *   of `work` commit together or none do, even if the process is killed
 *   mid-way. Calls on the store made inside `work` (through `tx` or the
 *   store itself) join the transaction; calls from elsewhere wait until it
 *   ends. Nested `transaction` calls are savepoints.
 * - **Several processes** may open the same file: readers never block;
 *   writers wait up to `busyTimeoutMs` for each other.
 * - **Schema** is versioned (`PRAGMA user_version`); opening a file written
 *   by a newer version fails with reason `schema-too-new` instead of
 *   corrupting it; older files are migrated on open.
 * - Keys sort by their UTF-8 bytes (code-point order). This matches
 *   `MemoryStore`'s JavaScript string order except between characters above
 *   U+FFFF and those in U+E000–U+FFFF.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@troupe/store-sqlite';
 *
 * const store = openSqliteStore('.troupe/troupe.db');
 * await store.transaction(async (tx) => {
 *   await tx.put(['looper', 'main'], 'state', { iteration: 2 });
 *   await tx.put(['looper', 'main', 'history'], '0000000002', { kind: 'coder' });
 * });
 * store.close();
 * ```
 */
export class SqliteStore implements Store {
  /** The database file. */
  readonly path: string;
  /** The schema version of the file (the latest this package knows, unless opened read-only). */
  readonly schemaVersion: number;
  private readonly db: Database.Database;
  private readonly statements: Statements;
  private readonly now: () => number;
  private readonly busyTimeoutMs: number;
  private readonly redactor: SecretRedactor | undefined;
  /** Transactions queued or running; calls from outside them wait for this chain. */
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private savepoints = 0;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    if (typeof path !== 'string' || path === '') throw new InvalidArgumentError('path', 'expected a database file path (or ":memory:")');
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!(Number.isInteger(busyTimeoutMs) && busyTimeoutMs >= 0)) {
      throw new InvalidArgumentError('busyTimeoutMs', `expected a non-negative integer, got ${String(options.busyTimeoutMs)}`);
    }
    const synchronous = options.synchronous ?? 'normal';
    if (synchronous !== 'normal' && synchronous !== 'full') {
      throw new InvalidArgumentError('synchronous', `expected "normal" or "full", got ${JSON.stringify(synchronous)}`);
    }
    this.path = path;
    this.now = options.now ?? Date.now;
    this.busyTimeoutMs = busyTimeoutMs;
    this.redactor = options.redactor;
    const readonly = options.readonly ?? false;
    const fileMode = checkFileMode(options.fileMode ?? DEFAULT_SQLITE_FILE_MODE);
    if (path !== ':memory:' && !path.startsWith('file:') && !existsSync(dirname(path))) {
      throw new SqliteStoreError('cannot-open', path, `Cannot open ${path}: the folder ${dirname(path)} does not exist.`);
    }
    if (!readonly) prepareDatabaseFiles(path, fileMode);
    let db: Database.Database | undefined;
    try {
      db = keepAlive(new Database(path, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs }));
      if (!readonly) db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
      db.exec('PRAGMA foreign_keys = ON');
      this.schemaVersion = migrateSqliteStore(db, {
        path,
        packageVersion: VERSION,
        readonly,
        now: Date.now,
        migrations: options.migrations ?? sqliteStoreMigrations,
      });
      this.statements = prepareStatements(db);
    } catch (error) {
      db?.close();
      if (SqliteStoreError.isSqliteStoreError(error)) throw error;
      if (readonly && (error as { code?: unknown }).code === 'SQLITE_CANTOPEN') {
        throw new SqliteStoreError('cannot-open', path, `Cannot open ${path} read-only: the file does not exist.`, { cause: error, sqliteCode: 'SQLITE_CANTOPEN' });
      }
      throw translateSqliteError(error, path, 'Opening the store', busyTimeoutMs);
    }
    this.db = db;
  }

  /** False once {@link SqliteStore.close} was called. */
  get isOpen(): boolean {
    return this.db.open;
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    return this.run(options, 'Store.get', () => {
      const row = this.statements.get.get(encodeNamespace(namespace, key), key);
      return row ? (toItem(row) as StoreItem<V>) : undefined;
    });
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    return this.run(options, 'Store.put', () => {
      const ns = encodeNamespace(namespace, key);
      const text = storeValueToJson(this.redactor ? this.redactor.redactValue(value) : value);
      const now = this.now();
      this.statements.put.run(ns, key, text, now, now);
    });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    return this.run(options, 'Store.delete', () => this.statements.delete.run(encodeNamespace(namespace, key), key).changes > 0);
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    return this.run(options, 'Store.list', () => {
      const ns = encodeNamespace(namespace);
      checkStoreListOptions(options);
      const { limit, after, recursive } = options;
      const sqlLimit = limit ?? -1;
      // Each shape has its own statement, so SQLite seeks the cursor in the primary key instead of scanning up to it.
      const { statements } = this;
      const rows = recursive
        ? after === undefined
          ? statements.listRecursive.all(ns, namespaceUpperBound(ns), sqlLimit)
          : statements.listRecursiveAfter.all(ns, after, namespaceUpperBound(ns), sqlLimit)
        : after === undefined
          ? statements.list.all(ns, sqlLimit)
          : statements.listAfter.all(ns, after, sqlLimit);
      return rows.map((row) => toItem(row) as StoreItem<V>);
    });
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    if (typeof work !== 'function') throw new InvalidArgumentError('work', 'expected an async function (tx) => …');
    const frame = frames.getStore();
    if (frame?.store === this && frame.open) return this.nested(frame, work);
    return this.exclusive(async () => {
      AbortError.throwIfAborted(options?.signal, 'Store.transaction');
      this.ensureOpen('Store.transaction');
      this.exec('BEGIN IMMEDIATE', 'Starting a transaction');
      const own: TransactionFrame = { store: this, depth: 0, open: true };
      try {
        const result = await frames.run(own, () => work(this));
        own.open = false;
        this.exec('COMMIT', 'Committing a transaction');
        return result;
      } catch (error) {
        own.open = false;
        if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  /**
   * Closes the database (checkpointing the WAL). Later calls fail with reason
   * `closed`. Waits for running transactions; safe to call twice.
   */
  async close(): Promise<void> {
    await this.exclusive(async () => {
      if (this.db.open) this.db.close();
    });
  }

  /** Closes at once, without waiting for transactions in flight (they fail). For exit handlers. */
  closeSync(): void {
    if (this.db.open) this.db.close();
  }

  private async nested<T>(frame: TransactionFrame, work: (tx: Store) => Promise<T>): Promise<T> {
    const name = `troupe_sp_${++this.savepoints}`;
    this.exec(`SAVEPOINT ${name}`, 'Starting a nested transaction');
    const inner: TransactionFrame = { store: this, depth: frame.depth + 1, open: true };
    try {
      const result = await frames.run(inner, () => work(this));
      inner.open = false;
      this.exec(`RELEASE ${name}`, 'Committing a nested transaction');
      return result;
    } catch (error) {
      inner.open = false;
      if (this.db.open && this.db.inTransaction) {
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
      }
      throw error;
    }
  }

  /** Runs one statement-level operation: inside the caller's transaction, or after queued transactions. */
  private async run<T>(options: StoreCallOptions | undefined, what: string, operation: () => T): Promise<T> {
    AbortError.throwIfAborted(options?.signal, what);
    const frame = frames.getStore();
    // A call made inside `work` joins its transaction. Once the transaction
    // ended, code still running in its async context (a timer it set) is
    // treated like any other caller.
    if (frame?.store === this && frame.open) return this.sync(what, operation);
    if (this.queued > 0) {
      return this.exclusive(async () => {
        AbortError.throwIfAborted(options?.signal, what);
        return this.sync(what, operation);
      });
    }
    return this.sync(what, operation);
  }

  private sync<T>(what: string, operation: () => T): T {
    this.ensureOpen(what);
    try {
      return operation();
    } catch (error) {
      throw translateSqliteError(error, this.path, what, this.busyTimeoutMs);
    }
  }

  private exec(sql: string, what: string): void {
    this.sync(what, () => this.db.exec(sql));
  }

  private ensureOpen(what: string): void {
    if (!this.db.open) throw new SqliteStoreError('closed', this.path, `${what} failed: the store ${this.path} is closed.`);
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.queued++;
    try {
      await previous;
      return await work();
    } finally {
      this.queued--;
      release();
    }
  }
}

/**
 * Opens (creating and migrating when needed) a SQLite store.
 *
 * @throws SqliteStoreError with reason `cannot-open`, `locked`,
 *   `schema-too-new`, `not-a-store` or `needs-migration`.
 *
 * @example
 * ```ts
 * const store = openSqliteStore('/repo/.troupe/troupe.db', { busyTimeoutMs: 2000 });
 * const looper = new Looper({ coder, review, store });
 * await looper.resume();
 * ```
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}

function toItem(row: Row): StoreItem {
  return {
    namespace: decodeNamespace(row.ns),
    key: row.key,
    value: JSON.parse(row.value) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
