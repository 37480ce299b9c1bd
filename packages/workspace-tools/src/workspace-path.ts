import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '@troupe/core';

/** A path inside the workspace, resolved and checked by {@link resolveWorkspacePath}. */
export interface WorkspacePath {
  /** Absolute path with every existing symlink resolved (use this for I/O). */
  absolute: string;
  /** Path relative to the workspace root (`.` for the root), for messages. */
  relative: string;
  /** Whether something exists at the path. */
  exists: boolean;
  /** The workspace root, symlinks resolved. */
  root: string;
}

function isInside(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `requested` (relative to `root`, or absolute) and proves it stays
 * inside the workspace, or throws a {@link ToolError} the model can read:
 *
 * - `..` that climbs out, and absolute paths outside the root, are rejected;
 * - symlinks are followed with `realpath` — of the path itself when it
 *   exists, else of its nearest existing ancestor — and rejected when they
 *   lead outside the (real) root;
 * - a dangling symlink is rejected (writing through it could create a file
 *   anywhere).
 *
 * It does not make later I/O atomic: a process racing to swap a directory
 * for a symlink between the check and the use is out of scope (writes open
 * the final file with `O_NOFOLLOW` to narrow that window).
 *
 * @example
 * ```ts
 * const target = await resolveWorkspacePath('/path/to/repo', 'src/index.ts');
 * await readFile(target.absolute, 'utf8');
 * await resolveWorkspacePath('/path/to/repo', '../secrets.txt'); // throws ToolError
 * ```
 */
export async function resolveWorkspacePath(root: string, requested: string): Promise<WorkspacePath> {
  if (typeof requested !== 'string' || requested.trim() === '') throw new ToolError('Expected a non-empty path');
  if (requested.includes('\0')) throw new ToolError('Path contains a NUL byte');
  const lexicalRoot = resolve(root);
  let realRoot: string;
  try {
    realRoot = await realpath(lexicalRoot);
  } catch (error) {
    throw new ToolError(`The workspace root ${lexicalRoot} does not exist`, { cause: error });
  }
  const lexical = resolve(lexicalRoot, requested);
  // Absolute paths may name the root by its lexical or its real spelling.
  if (!isInside(lexicalRoot, lexical) && !isInside(realRoot, lexical)) {
    throw new ToolError(`Path "${requested}" is outside the workspace`);
  }
  // Nearest existing ancestor (the path itself when it exists).
  let existing = lexical;
  const missing: string[] = [];
  while (!(await exists(existing))) {
    const parent = resolve(existing, '..');
    if (parent === existing) break;
    missing.unshift(existing.slice(parent.length).replace(/^[\\/]+/, ''));
    existing = parent;
  }
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch (error) {
    throw new ToolError(`Path "${requested}" goes through a symlink that points nowhere; refusing to follow it`, { cause: error });
  }
  if (!isInside(realRoot, realExisting)) {
    throw new ToolError(`Path "${requested}" leads outside the workspace through a symlink`);
  }
  const absolute = missing.length > 0 ? join(realExisting, ...missing) : realExisting;
  return { absolute, relative: relative(realRoot, absolute) || '.', exists: missing.length === 0, root: realRoot };
}
