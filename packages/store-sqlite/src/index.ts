export { VERSION } from './version';
export { openSqliteStore, SqliteStore, type SqliteStoreOptions } from './sqlite-store';
export { SqliteStoreError, type SqliteStoreErrorReason } from './sqlite-store-error';
export { SQLITE_STORE_APPLICATION_ID, SQLITE_STORE_SCHEMA_VERSION } from './sqlite-store-migrations';
