import { TroupeError, type TroupeErrorOptions } from '@troupe/core/errors';

/**
 * Why a {@link SqliteStoreError} was thrown:
 * - `locked`: another connection (often another process) holds the database's
 *   write lock longer than the busy timeout;
 * - `schema-too-new`: the file was written by a newer `@troupe/store-sqlite`;
 * - `not-a-store`: the file is not a SQLite database, or one that is not a Troupe store;
 * - `cannot-open`: the file or its folder cannot be opened or created (missing, not writable);
 * - `read-only`: a write was attempted on a store opened read-only, or on a read-only file;
 * - `needs-migration`: a store opened read-only has an older schema (open it read-write once);
 * - `closed`: the store was closed;
 * - `io`: any other SQLite failure (disk full, I/O error, corruption).
 */
export type SqliteStoreErrorReason =
  | 'locked'
  | 'schema-too-new'
  | 'not-a-store'
  | 'cannot-open'
  | 'read-only'
  | 'needs-migration'
  | 'closed'
  | 'io';

/**
 * A failure of the SQLite store, with the database path and a
 * {@link SqliteStoreErrorReason}. The message says what to do.
 *
 * `code` is `STORE_ERROR`; switch on `reason` for what went wrong.
 *
 * @example
 * ```ts
 * try { store = openSqliteStore('.troupe/troupe.db'); }
 * catch (error) {
 *   if (SqliteStoreError.isSqliteStoreError(error) && error.reason === 'locked') console.error('Another troupe is writing; retry.');
 * }
 * ```
 */
export class SqliteStoreError extends TroupeError {
  /** What went wrong. */
  readonly reason: SqliteStoreErrorReason;
  /** The database file. */
  readonly path: string;
  /** SQLite's error code when SQLite reported it (`SQLITE_BUSY`, `SQLITE_CANTOPEN`…). */
  readonly sqliteCode: string | undefined;

  constructor(reason: SqliteStoreErrorReason, path: string, message: string, options: TroupeErrorOptions & { sqliteCode?: string } = {}) {
    super('STORE_ERROR', message, options);
    this.name = 'SqliteStoreError';
    this.reason = reason;
    this.path = path;
    this.sqliteCode = options.sqliteCode;
  }

  /** True for a {@link SqliteStoreError} from any copy of this package. */
  static isSqliteStoreError(error: unknown): error is SqliteStoreError {
    return TroupeError.isInstance(error) && error.name === 'SqliteStoreError' && typeof (error as SqliteStoreError).reason === 'string';
  }
}

/** SQLite's error code (`SQLITE_BUSY`…) of a better-sqlite3 error, if it is one. */
export function sqliteCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * Wraps a better-sqlite3 error in a {@link SqliteStoreError} naming the file
 * and what to do; returns other errors unchanged.
 */
export function translateSqliteError(error: unknown, path: string, what: string, busyTimeoutMs: number): unknown {
  const sqliteCode = sqliteCodeOf(error);
  if (sqliteCode === undefined) return error;
  const detail = (error as Error).message;
  const options = { cause: error, sqliteCode };
  if (sqliteCode.startsWith('SQLITE_BUSY') || sqliteCode.startsWith('SQLITE_LOCKED')) {
    return new SqliteStoreError(
      'locked',
      path,
      `${what} failed: the database ${path} is locked by another connection (waited ${busyTimeoutMs} ms). Another process is writing to it; retry when it is done.`,
      options,
    );
  }
  if (sqliteCode.startsWith('SQLITE_CANTOPEN')) {
    return new SqliteStoreError('cannot-open', path, `${what} failed: cannot open ${path} (${detail}). Check that its folder exists and is writable.`, options);
  }
  if (sqliteCode === 'SQLITE_NOTADB' || sqliteCode.startsWith('SQLITE_CORRUPT')) {
    return new SqliteStoreError('not-a-store', path, `${what} failed: ${path} is not a valid SQLite database (${detail}).`, options);
  }
  if (sqliteCode.startsWith('SQLITE_READONLY')) {
    return new SqliteStoreError('read-only', path, `${what} failed: ${path} is read-only (${detail}). Check the file's permissions.`, options);
  }
  return new SqliteStoreError('io', path, `${what} failed on ${path}: ${detail}`, options);
}
