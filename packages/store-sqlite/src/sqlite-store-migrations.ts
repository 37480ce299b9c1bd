import type Database from 'better-sqlite3';
import { SqliteStoreError } from './sqlite-store-error';
import { keepAlive } from './sqlite-native-pin';

/** `PRAGMA application_id` of a Troupe store ("TRUP"), so a foreign database is refused instead of altered. */
export const SQLITE_STORE_APPLICATION_ID = 0x54525550;

/** One schema step. `version` is what `PRAGMA user_version` says once it is applied. */
export interface SqliteStoreMigration {
  version: number;
  /** Short description, recorded in `troupe_migrations`. */
  name: string;
  /** Runs inside the migration's transaction. */
  up(db: Database.Database): void;
}

/**
 * The store's schema history, oldest first. Never edit an entry once
 * released: add a new one with the next version.
 *
 * - v1: `items` (namespace as a BLOB of NUL-terminated UTF-8 segments, so
 *   byte order is namespace order and a namespace's children form one key
 *   range) and `troupe_migrations` (what was applied, when, by which version).
 */
export const sqliteStoreMigrations: readonly SqliteStoreMigration[] = Object.freeze([
  {
    version: 1,
    name: 'items and migrations tables',
    up(db) {
      db.exec(`
        CREATE TABLE items (
          ns BLOB NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns, key)
        ) WITHOUT ROWID;
        CREATE TABLE troupe_migrations (
          version INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          applied_at INTEGER NOT NULL,
          package_version TEXT NOT NULL
        );
      `);
    },
  },
]);

/** The schema version this copy of the package writes. */
export const SQLITE_STORE_SCHEMA_VERSION: number = sqliteStoreMigrations[sqliteStoreMigrations.length - 1]?.version ?? 0;

interface MigrateOptions {
  path: string;
  packageVersion: string;
  readonly: boolean;
  now: () => number;
  migrations: readonly SqliteStoreMigration[];
}

function pragmaNumber(db: Database.Database, name: string): number {
  return Number(keepAlive(db.prepare(`PRAGMA ${name}`)).pluck().get());
}

function tableCount(db: Database.Database): number {
  return Number((keepAlive(db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'")).get() as { n: number }).n);
}

function checkIdentity(db: Database.Database, path: string): void {
  const applicationId = pragmaNumber(db, 'application_id');
  if (applicationId === SQLITE_STORE_APPLICATION_ID) return;
  if (applicationId !== 0 || tableCount(db) > 0) {
    throw new SqliteStoreError(
      'not-a-store',
      path,
      `${path} is a SQLite database but not a Troupe store (application_id ${applicationId}, ${tableCount(db)} table(s)); refusing to change it. Use another file.`,
    );
  }
}

function checkNotNewer(version: number, latest: number, options: MigrateOptions): void {
  if (version <= latest) return;
  throw new SqliteStoreError(
    'schema-too-new',
    options.path,
    `${options.path} uses store schema v${version}, newer than this @troupe/store-sqlite (${options.packageVersion}) supports (v${latest}). ` +
      'Upgrade @troupe/store-sqlite (and the tool using it), or open another file.',
  );
}

/**
 * Brings a database to the latest schema, one transaction per migration
 * (`BEGIN IMMEDIATE`, so two processes opening the same new file do not both
 * migrate it). Refuses files from a newer version and foreign databases.
 * Returns the schema version the database is at.
 */
export function migrateSqliteStore(db: Database.Database, options: MigrateOptions): number {
  const latest = options.migrations[options.migrations.length - 1]?.version ?? 0;
  let version = pragmaNumber(db, 'user_version');
  checkNotNewer(version, latest, options);
  if (version > 0 || pragmaNumber(db, 'application_id') !== 0) checkIdentity(db, options.path);
  if (version === latest) return version;
  if (options.readonly) {
    throw new SqliteStoreError(
      version === 0 ? 'not-a-store' : 'needs-migration',
      options.path,
      version === 0
        ? `${options.path} is not a Troupe store yet (empty database) and cannot be set up read-only; open it read-write once.`
        : `${options.path} uses store schema v${version}; this version needs v${latest}. Open it read-write once to migrate it.`,
    );
  }
  for (const migration of options.migrations) {
    if (migration.version <= version) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      // Another process may have migrated while we waited for the lock.
      version = pragmaNumber(db, 'user_version');
      checkNotNewer(version, latest, options);
      if (migration.version > version) {
        if (version === 0) checkIdentity(db, options.path);
        migration.up(db);
        keepAlive(db.prepare('INSERT INTO troupe_migrations (version, name, applied_at, package_version) VALUES (?, ?, ?, ?)')).run(
          migration.version,
          migration.name,
          options.now(),
          options.packageVersion,
        );
        db.exec(`PRAGMA application_id = ${SQLITE_STORE_APPLICATION_ID}`);
        db.exec(`PRAGMA user_version = ${migration.version}`);
        version = migration.version;
      }
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
  return version;
}
