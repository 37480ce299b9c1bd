import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretRedactor, REDACTED } from '@troupe/core/util';
import { openSqliteStore } from '@troupe/store-sqlite';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-store-private-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.runIf(process.platform !== 'win32')('SqliteStore files are private', () => {
  it('creates the database, -wal and -shm with mode 0600 (whatever the umask allows)', async () => {
    const path = join(dir, 'troupe.db');
    const previous = process.umask(0o022);
    try {
      const store = openSqliteStore(path);
      await store.put(['a'], 'k', { task: 'private task text' });
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens files an older version left readable by others', async () => {
    const path = join(dir, 'troupe.db');
    const first = openSqliteStore(path, { fileMode: 0o644 });
    await first.put(['a'], 'k', 1);
    first.closeSync();
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, '');
    chmodSync(`${path}-wal`, 0o666);
    const store = openSqliteStore(path);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    await store.close();
  });

  it('rejects a bad fileMode with an error naming it', () => {
    expect(() => openSqliteStore(join(dir, 'x.db'), { fileMode: 0o1777 })).toThrow(/fileMode/);
  });

  it('a redactor hides secrets in every value written, in transactions too, and nothing of it reaches the files', async () => {
    const path = join(dir, 'troupe.db');
    const secret = 'canary-db-secret-9911';
    const store = openSqliteStore(path, { redactor: createSecretRedactor({ secrets: [secret] }) });
    await store.put(['messages'], '1', { content: `the key is ${secret}`, nested: [secret], n: 1 });
    await store.transaction(async (tx) => {
      await tx.put(['state'], 'looper', { output: `sk-ant-api03-AAAAAAAAAAAA and ${secret}` });
    });
    expect((await store.get(['messages'], '1'))?.value).toEqual({ content: `the key is ${REDACTED}`, nested: [REDACTED], n: 1 });
    expect((await store.get(['state'], 'looper'))?.value).toEqual({ output: `${REDACTED} and ${REDACTED}` });
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(secret), file).toBe(false);
    }
    await store.close();
  });
});
