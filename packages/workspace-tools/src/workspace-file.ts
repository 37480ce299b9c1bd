import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { ToolError } from '@troupe/core';
import type { WorkspacePath } from './workspace-path';

/** What a non-regular file is, for messages; `undefined` for a regular file. */
function kindOf(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function refuse(requested: string, kind: string, access: 'read' | 'write', cause?: unknown): ToolError {
  if (kind === 'a directory') return new ToolError(`"${requested}" is a directory${access === 'read' ? '; use list_files' : ''}`, { cause });
  if (kind === 'a symlink') return new ToolError(`"${requested}" is a symlink; refusing to ${access} through it`, { cause });
  return new ToolError(`"${requested}" is ${kind}, not a regular file; refusing to ${access} it`, { cause });
}

const NONBLOCKING = constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * Opens a workspace file for `read_file` or `write_file` (created when
 * missing, else not yet truncated: call `truncate(0)` on the handle) and
 * proves it is a regular file — checked with `lstat` before opening, and
 * with `fstat` on the opened descriptor in case it was swapped meanwhile.
 *
 * Why: a blocking `open()` of a FIFO waits for the other end inside one of
 * libuv's four pool threads, and four of them freeze every fs, DNS and zlib
 * call of the host. The file is opened with `O_NONBLOCK` (and `O_NOFOLLOW`),
 * so even a FIFO swapped in between the two checks cannot block.
 *
 * Returns the open handle (close it) and its `fstat`.
 *
 * @throws ToolError naming the path when it is missing (read), a directory,
 *   a FIFO, a socket, a device or a symlink.
 */
export async function openWorkspaceFile(target: WorkspacePath, requested: string, access: 'read' | 'write'): Promise<{ handle: FileHandle; stats: Stats }> {
  let before: Stats | undefined;
  try {
    before = await lstat(target.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (access === 'read') throw new ToolError(`File "${requested}" does not exist`, { cause: error });
  }
  const kind = before && kindOf(before);
  if (kind) throw refuse(requested, kind, access);
  let handle: FileHandle;
  try {
    handle =
      access === 'read'
        ? await open(target.absolute, constants.O_RDONLY | NONBLOCKING)
        : await open(target.absolute, constants.O_WRONLY | constants.O_CREAT | NONBLOCKING, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse(requested, 'a symlink', access, error);
    if (code === 'EISDIR') throw refuse(requested, 'a directory', access, error);
    if (code === 'ENXIO') throw refuse(requested, 'a FIFO or socket', access, error); // swapped in after lstat
    if (code === 'ENOENT' && access === 'read') throw new ToolError(`File "${requested}" does not exist`, { cause: error });
    throw error;
  }
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    await handle.close();
    throw error;
  }
  const after = kindOf(stats);
  if (after) {
    await handle.close();
    throw refuse(requested, after, access);
  }
  return { handle, stats };
}
