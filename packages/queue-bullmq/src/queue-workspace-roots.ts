import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveWorkspacePath } from '@troupe/workspace-tools';
import { QueueError, type QueueFolderField } from './queue-error';

/**
 * The real path of `path` (symlinks resolved) when it is an existing folder
 * inside one of `roots`, the folders a worker lets jobs work in: a job names
 * its workspace (or a local repository to clone), and a worker must not run
 * its agents, with its keys, wherever a job says (`/etc`, a home folder).
 * Otherwise fails the job without retry (a {@link QueueError}), naming the refused path and `what`
 * it was for. Roots are resolved with their symlinks at each check (a root
 * created after the worker started counts).
 */
export async function checkInsideRoots(path: string, roots: readonly string[], what: QueueFolderField): Promise<string> {
  const absolute = resolve(path);
  for (const root of roots) {
    const inside = await resolveWorkspacePath(root, absolute).catch(() => undefined);
    if (inside === undefined) continue;
    if (!inside.exists || !statSync(inside.absolute).isDirectory()) throw new QueueError('QUEUE_FOLDER_MISSING', { field: what, path: absolute });
    return inside.absolute;
  }
  const real = realPath(absolute);
  const shown = real === undefined || real === absolute ? absolute : `${absolute} (${real})`;
  throw new QueueError('QUEUE_FOLDER_NOT_ALLOWED', { field: what, shown, roots: roots.join(', ') });
}

/** `path` with its symlinks resolved, or undefined when it does not exist. */
function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
