import type Database from 'better-sqlite3';
import { keepAlive } from './sqlite-native-pin';

/** An `items` row as read. */
export interface Row {
  ns: Uint8Array;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
}

/** The store's prepared statements; `list*` take `(ns, [after,] [upperBound,] limit)` (limit -1: none). */
export interface Statements {
  get: Database.Statement<[Buffer, string], Row>;
  put: Database.Statement<[Buffer, string, string, number, number]>;
  delete: Database.Statement<[Buffer, string]>;
  list: Database.Statement<[Buffer, number], Row>;
  listAfter: Database.Statement<[Buffer, string, number], Row>;
  listRecursive: Database.Statement<[Buffer, Buffer, number], Row>;
  listRecursiveAfter: Database.Statement<[Buffer, string, Buffer, number], Row>;
}

const COLUMNS = 'ns, key, value, created_at, updated_at';

/**
 * The SQL of each statement. Every `list` shape is a range of the
 * `(ns, key)` primary key, so a listing after a cursor seeks to it and reads
 * only the rows it returns.
 */
export const STATEMENT_SQL: { readonly [K in keyof Statements]: string } = {
  get: `SELECT ${COLUMNS} FROM items WHERE ns = ? AND key = ?`,
  put: `INSERT INTO items (${COLUMNS}) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  delete: 'DELETE FROM items WHERE ns = ? AND key = ?',
  list: `SELECT ${COLUMNS} FROM items WHERE ns = ? ORDER BY key LIMIT ?`,
  listAfter: `SELECT ${COLUMNS} FROM items WHERE ns = ? AND key > ? ORDER BY key LIMIT ?`,
  listRecursive: `SELECT ${COLUMNS} FROM items WHERE ns >= ? AND ns < ? ORDER BY ns, key LIMIT ?`,
  // `after` only applies to the namespace itself, as in MemoryStore: the row value
  // (ns, key) > (namespace, after) also takes in every child namespace, which sorts after it.
  listRecursiveAfter: `SELECT ${COLUMNS} FROM items WHERE (ns, key) > (?, ?) AND ns < ? ORDER BY ns, key LIMIT ?`,
};

/** Prepares every statement on `db`. */
export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(Object.entries(STATEMENT_SQL).map(([name, sql]) => [name, keepAlive(db.prepare(sql))])) as unknown as Statements;
}
