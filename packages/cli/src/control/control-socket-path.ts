import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Unix sockets paths are limited to ~107 bytes; stay well under. */
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Where this process's control socket goes: `<workspace>/.troupe/control-<pid>.sock`,
 * or, when that path is too long for a Unix socket, a private (0700) folder in the
 * system temp folder.
 */
export function controlSocketPath(troupeDir: string): string {
  // Windows has no Unix sockets in the file system: a named pipe, private to the user by default.
  if (process.platform === 'win32') return `\\\\.\\pipe\\troupe-${createHash('sha256').update(troupeDir).digest('hex').slice(0, 16)}-${process.pid}`;
  const preferred = join(troupeDir, `control-${process.pid}.sock`);
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH_BYTES) return preferred;
  const hash = createHash('sha256').update(troupeDir).digest('hex').slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), `${PRIVATE_DIR_PREFIX}${hash}-`));
  return join(dir, PRIVATE_SOCKET_NAME);
}

const PRIVATE_DIR_PREFIX = 'troupe-ctl-';
const PRIVATE_SOCKET_NAME = 'control.sock';

/** True for a socket in a private folder made by {@link controlSocketPath} (removed with its socket). */
function isPrivateSocket(socketPath: string): boolean {
  const dir = dirname(socketPath);
  return basename(socketPath) === PRIVATE_SOCKET_NAME && dirname(dir) === tmpdir() && basename(dir).startsWith(PRIVATE_DIR_PREFIX);
}

/** Removes a socket file left by a process that died (and its private temp folder). */
export function removeStaleSocket(socketPath: string): void {
  if (socketPath === '' || process.platform === 'win32') return;
  try {
    if (existsSync(socketPath)) unlinkSync(socketPath);
    if (isPrivateSocket(socketPath)) rmSync(dirname(socketPath), { recursive: true, force: true });
  } catch {
    // best effort
  }
}
