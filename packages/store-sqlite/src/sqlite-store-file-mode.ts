import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { InvalidArgumentError } from '@troupe/core/errors';

/** Permissions of the database files by default: the owner only (the store may hold task texts and state). */
export const DEFAULT_SQLITE_FILE_MODE = 0o600;

/** Validates `fileMode`: permission bits only. */
export function checkFileMode(mode: unknown): number {
  if (!(typeof mode === 'number' && Number.isInteger(mode) && mode >= 0 && mode <= 0o777)) {
    throw new InvalidArgumentError('fileMode', `expected permission bits such as 0o600, got ${String(mode)}`);
  }
  return mode;
}

/**
 * Before SQLite opens `path`: creates the database file with `mode` when it
 * is missing (SQLite creates its `-wal` and `-shm` files with the database
 * file's permissions, so they follow), and takes away from an existing
 * database, `-wal` or `-shm` file any permission `mode` does not grant.
 * In-memory and `file:` URI databases are left alone.
 */
export function prepareDatabaseFiles(path: string, mode: number): void {
  if (path === ':memory:' || path.startsWith('file:') || process.platform === 'win32') return;
  try {
    if (!existsSync(path)) closeSync(openSync(path, 'a', mode)); // 'a' never truncates a file created meanwhile
  } catch {
    return; // an unwritable folder: SQLite reports it when it opens the file
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      const current = statSync(file).mode & 0o777;
      if ((current & ~mode) !== 0) chmodSync(file, current & mode);
    } catch {
      // no such file (yet), or not ours to change
    }
  }
}
