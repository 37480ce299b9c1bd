import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from '@troupe/core/errors';
import { linkedGitDir, runGit } from './worktree-git';
import { readRepo, type RepoInfo } from './worktree-repo';
import { withRepoLock } from './worktree-repo-queue';

/**
 * The git config key that sets how many spare workspace folders a repository keeps (`git config troupe.workspaceSpares 4`);
 * unset or 0: none, every removed workspace's folder is deleted.
 */
export const SPARES_CONFIG_KEY = 'troupe.workspaceSpares';

/** Where spare folders wait: beside the workspaces, hidden from their listing. */
export function sparesDir(info: Pick<RepoInfo, 'workspacesDir'>): string {
  return join(info.workspacesDir, '.spares');
}

// Per-worktree git state that a fresh checkout never has: a folder holding one is deleted, not kept as a spare.
const UNFINISHED_STATE = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'BISECT_LOG', 'rebase-merge', 'rebase-apply', 'locked', 'config.worktree', join('info', 'sparse-checkout')];

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function spareNames(info: RepoInfo): Promise<string[]> {
  return (await readdir(sparesDir(info)).catch(() => [] as string[])).filter((name) => name.startsWith('spare-')).sort();
}

/** How many spares the repository keeps: the option when given, else its git config (default 0). */
export async function sparesWanted(info: RepoInfo, option: number | undefined, signal?: AbortSignal): Promise<number> {
  if (option !== undefined) {
    if (!Number.isInteger(option) || option < 0) throw new InvalidArgumentError('spares', `must be a whole number ≥ 0, got ${String(option)}`);
    return option;
  }
  const configured = await runGit(['config', '--get', SPARES_CONFIG_KEY], { cwd: info.topLevel, signal, okCodes: [1] });
  const value = Number(configured.stdout.trim());
  return configured.exitCode === 0 && Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * Parks a finished workspace's folder as a spare instead of deleting it: its `HEAD` is detached (so its branch can be
 * deleted or kept as usual), its files are reset and cleaned (the agent's leftovers and the setup's copied files, such
 * as `.env`, are gone), and the folder is moved under `.spares/`. `false` when it cannot be a spare (the pool is full,
 * the folder has submodules or an unfinished merge, rebase or bisect, or git refused): the caller deletes it as usual.
 * Deleting 10,000 files is what makes removal and the next checkout slow on many disks; a spare avoids both.
 */
export async function parkSpare(info: RepoInfo, path: string, max: number, signal?: AbortSignal): Promise<boolean> {
  if (max <= 0) return false;
  const admin = await linkedGitDir(path);
  if (!admin || (await exists(join(path, '.gitmodules')))) return false;
  for (const state of UNFINISHED_STATE) if (await exists(join(admin, state))) return false;
  if ((await spareNames(info)).length >= max) return false;
  try {
    await runGit(['update-ref', '--no-deref', 'HEAD', 'HEAD'], { cwd: path, signal });
    await runGit(['reset', '--hard', '--quiet'], { cwd: path, signal });
    await runGit(['clean', '-ffdxq'], { cwd: path, signal });
  } catch {
    return false;
  }
  return withRepoLock(
    info.commonDir,
    async () => {
      if ((await spareNames(info)).length >= max) return false;
      await mkdir(sparesDir(info), { recursive: true });
      return runGit(['worktree', 'move', path, join(sparesDir(info), `spare-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`)], { cwd: info.topLevel, signal }).then(
        () => true,
        () => false,
      );
    },
    signal,
  );
}

/**
 * Takes a spare folder for a new workspace: moves it to `path` and leaves it detached, its files still to be reset
 * by the caller. `false` when the repository has none (or another process took the last one first). Runs under the
 * repository lock: `git worktree move` rewrites the worktree's bookkeeping.
 */
export async function claimSpare(info: RepoInfo, path: string, signal?: AbortSignal): Promise<boolean> {
  for (const name of (await spareNames(info)).slice(0, 3)) {
    const moved = await runGit(['worktree', 'move', join(sparesDir(info), name), path], { cwd: info.topLevel, signal }).then(
      () => true,
      () => false,
    );
    if (moved) return true;
    if (signal?.aborted) return false;
  }
  return false;
}

/** Points a claimed spare at the new workspace's branch and makes its files exactly that branch's, with nothing else. */
export async function resetSpare(path: string, branch: string, signal?: AbortSignal): Promise<void> {
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: path, signal });
  await runGit(['reset', '--hard', '--quiet'], { cwd: path, signal });
  await runGit(['clean', '-ffdxq'], { cwd: path, signal });
}

/**
 * Deletes every spare folder of `repo`'s repository (what `troupe workspaces gc --spares` does), e.g. to free the disk.
 * Returns how many were deleted.
 *
 * @example
 * ```ts
 * const deleted = await removeSpares({ repo: '.' });
 * ```
 */
export async function removeSpares(options: { repo: string; signal?: AbortSignal }): Promise<number> {
  const info = await readRepo(options.repo, options.signal);
  let deleted = 0;
  for (const name of await spareNames(info)) {
    const path = join(sparesDir(info), name);
    const admin = await linkedGitDir(path);
    await rm(path, { recursive: true, force: true, maxRetries: 3 });
    await withRepoLock(info.commonDir, async () => {
      if (admin && admin.startsWith(join(info.commonDir, 'worktrees'))) await rm(admin, { recursive: true, force: true, maxRetries: 3 });
    }, options.signal);
    deleted += 1;
  }
  return deleted;
}
