import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteStoreMigrations } from './sqlite-store-migrations';
import { STATEMENT_SQL } from './sqlite-store-statements';

/** What SQLite plans for one statement, on the store's real schema. */
function plan(sql: string, parameters: unknown[]): string {
  const db = new Database(':memory:');
  try {
    for (const migration of sqliteStoreMigrations) migration.up(db);
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail).join(' | ');
  } finally {
    db.close();
  }
}

const ns = Buffer.from('pipeline\u0000t\u0000events\u0000BATCH_PLANNED\u0000');
const upper = Buffer.from('pipeline\u0000t\u0000events\u0000BATCH_PLANNED\u0001');

describe('SqliteStore statements', () => {
  // A cursor is a seek in the (ns, key) primary key, not a scan of the namespace up to it.
  it.each([
    ['list', [ns, 10], 'SEARCH items USING PRIMARY KEY (ns=?)'],
    ['listAfter', [ns, '00000041', 10], 'SEARCH items USING PRIMARY KEY (ns=? AND key>?)'],
    ['listRecursive', [ns, upper, 10], 'SEARCH items USING PRIMARY KEY (ns>? AND ns<?)'],
    ['listRecursiveAfter', [ns, '00000041', upper, 10], 'SEARCH items USING PRIMARY KEY ((ns,key)>(?,?) AND ns<?)'],
  ] as const)('%s seeks its range in the primary key', (name, parameters, expected) => {
    const detail = plan(STATEMENT_SQL[name], [...parameters]);
    expect(detail).toBe(expected);
    expect(detail).not.toMatch(/SCAN|TEMP B-TREE/);
  });
});
