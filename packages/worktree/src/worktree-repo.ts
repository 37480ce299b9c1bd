import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InvalidArgumentError } from '@troupe/core/errors';
import { gitText, runGit } from './worktree-git';

/** A checkout's facts that every workspace operation needs. */
export interface RepoInfo {
  /** The checkout the caller named (its top level). */
  topLevel: string;
  /** The repository's common git dir, shared by all its worktrees: the key of the lock queue. */
  commonDir: string;
  /** Where this repository's workspaces live. */
  workspacesDir: string;
}

/**
 * Where workspaces live: `<common git dir>/../.troupe/workspaces`, i.e. `.troupe/workspaces` in the main checkout,
 * next to the code the agents read (same disk, so `worktree add` is cheap). It is listed in the repository's
 * `info/exclude` (never in a tracked file) so the parent's `git status` does not change.
 */
export const WORKSPACES_FOLDER = join('.troupe', 'workspaces');

/** Reads and checks the repository `repo` points at; a clear error when it is not a usable non-bare checkout. */
export async function readRepo(repo: string, signal?: AbortSignal): Promise<RepoInfo> {
  if (typeof repo !== 'string' || repo === '') throw new InvalidArgumentError('repo', 'must be the path of a git checkout');
  const path = resolve(repo);
  const folder = await stat(path).catch(() => undefined);
  if (!folder?.isDirectory()) throw new InvalidArgumentError('repo', `${path} is not a folder`);
  // One git call on the happy path; a bare repository or a folder outside git fails it, and is then told apart.
  const found = await runGit(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'], { cwd: path, signal, okCodes: [128] });
  const [topLevel, commonDirRaw] = found.exitCode === 0 ? found.stdout.split('\n') : [];
  if (!topLevel || !commonDirRaw) {
    let bare: string;
    try {
      bare = await gitText(['rev-parse', '--is-bare-repository'], { cwd: path, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new InvalidArgumentError('repo', `${path} is not a git repository`, { cause: error });
    }
    if (bare === 'true') throw new InvalidArgumentError('repo', `${path} is a bare repository; a workspace needs a checkout`);
    throw new InvalidArgumentError('repo', `${path} is inside a git dir, not a checkout`);
  }
  const commonDir = isAbsolute(commonDirRaw) ? commonDirRaw : resolve(path, commonDirRaw);
  return { topLevel, commonDir, workspacesDir: join(dirname(commonDir), WORKSPACES_FOLDER) };
}

/**
 * The main checkout of the repository when `info` is a linked worktree (where the workspaces folder lives, and
 * where `../../../x` from a workspace lands), or `undefined` when `info` is the main checkout or the repository's
 * git dir has no checkout of its own (a bare repository with linked worktrees).
 */
export async function mainCheckoutOf(info: RepoInfo, signal?: AbortSignal): Promise<string | undefined> {
  const main = dirname(info.commonDir);
  if (main === info.topLevel) return undefined;
  const other = await readRepo(main, signal).catch(() => undefined);
  return other && other.topLevel === main && other.commonDir === info.commonDir ? main : undefined;
}
