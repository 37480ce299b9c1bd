import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from './worktree-git';

/**
 * Applies a unified diff (a workspace's `diff`, a job's patch) to the files of a checkout or workspace folder with
 * `git apply`: the files change, the index, the branch and the commits do not. How a change made in another
 * workspace (or on another machine) is brought into this one. An empty patch changes nothing.
 *
 * @throws GitCommandError (its `stderr` says which file) when the patch does not apply; nothing is changed then.
 *
 * @example
 * ```ts
 * await applyPatchToFolder(process.cwd(), winner.result.diff);
 * ```
 */
export async function applyPatchToFolder(folder: string, patch: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  if (patch.trim() === '') return;
  const scratch = await mkdtemp(join(tmpdir(), 'troupe-patch-'));
  try {
    const file = join(scratch, 'change.patch');
    await writeFile(file, patch.endsWith('\n') ? patch : `${patch}\n`);
    await runGit(['apply', '--binary', '--whitespace=nowarn', file], { cwd: folder, ...(options.signal ? { signal: options.signal } : {}) });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
