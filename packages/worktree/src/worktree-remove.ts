import { rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { agentPathspec, type Workspace } from './worktree-create';
import { GitCommandError } from './worktree-errors';
import { gitText, linkedGitDir, runGit } from './worktree-git';
import { markerHost, readMarkers, removeMarker } from './worktree-marker';
import { indexPath } from './worktree-result';
import { readRepo, type RepoInfo } from './worktree-repo';
import { withRepoLock } from './worktree-repo-queue';
import { parkSpare, sparesWanted } from './worktree-spares';

/** What {@link removeWorkspace} did. */
export interface RemoveWorkspaceResult {
  /** The branch was deleted too (it held no commits beyond the base). */
  branchDeleted: boolean;
}

async function commitsBeyondBase(info: RepoInfo, branch: string, baseCommit: string, signal?: AbortSignal): Promise<number> {
  // One call: a branch that does not exist (exit 128) has no commits.
  const count = await runGit(['rev-list', '--count', `${baseCommit}..refs/heads/${branch}`, '--'], { cwd: info.topLevel, okCodes: [128], signal });
  if (count.exitCode === 0) return Number(count.stdout.trim());
  const exists = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: info.topLevel, okCodes: [1], signal });
  if (exists.exitCode === 0) throw new GitCommandError(['rev-list', '--count', `${baseCommit}..refs/heads/${branch}`], count.exitCode, count.stderr);
  return 0;
}

/** The bookkeeping folder of a linked worktree, from its `.git` file, when it lies in the repository's `worktrees/`. */
async function worktreeAdminDir(info: RepoInfo, path: string): Promise<string | undefined> {
  const admin = await linkedGitDir(path);
  if (!admin) return undefined;
  const inWorktrees = relative(join(info.commonDir, 'worktrees'), admin);
  return inWorktrees !== '' && !inWorktrees.startsWith('..') && !isAbsolute(inWorktrees) && !inWorktrees.includes(sep) ? admin : undefined;
}

async function removeFolderAndBranch(
  info: RepoInfo,
  ws: Pick<Workspace, 'name' | 'path' | 'branch' | 'baseCommit'>,
  signal?: AbortSignal,
  discardCommits = false,
  spares?: number,
): Promise<RemoveWorkspaceResult> {
  const commits = discardCommits ? 0 : await commitsBeyondBase(info, ws.branch, ws.baseCommit, signal);
  // The files go first, outside the lock (removals of large workspaces run side by side); the bookkeeping of the
  // now missing folder is pruned under it.
  // Only a folder of this repository's workspaces folder, and only a linked worktree (a marker could name any path).
  const inside = relative(info.workspacesDir, ws.path);
  const linked = await stat(join(ws.path, '.git')).then((found) => found.isFile(), () => false);
  // Its own bookkeeping folder (`.git/worktrees/<id>`), named by its `.git` file: removed by itself afterwards, never by
  // `git worktree prune`, which would also take the half-made bookkeeping of a `worktree add` in another process.
  const adminDir = linked ? await worktreeAdminDir(info, ws.path) : undefined;
  // A folder without its `.git` file is one whose host died inside `git worktree add` (git had made the folder, not
  // yet linked it): git calls it "not a working tree", so it goes the same way, when it is this workspace's own folder.
  const ownFolder = inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && (linked || ws.path === join(info.workspacesDir, ws.name));
  const parked = ownFolder && linked && (await parkSpare(info, ws.path, await sparesWanted(info, spares, signal), signal));
  if (ownFolder && !parked) await rm(ws.path, { recursive: true, force: true, maxRetries: 3 });
  const branchDeleted = await withRepoLock(
    info.commonDir,
    async () => {
      // A parked folder took its bookkeeping with it (`git worktree move`): only the branch is left to decide.
      if (!parked) {
        if (await stat(ws.path).catch(() => undefined)) await runGit(['worktree', 'remove', '--force', '--force', ws.path], { cwd: info.topLevel, signal });
        else if (adminDir) await rm(adminDir, { recursive: true, force: true, maxRetries: 3 });
        else await runGit(['worktree', 'prune'], { cwd: info.topLevel, signal });
      }
      if (commits > 0) return false;
      const deleted = await runGit(['branch', '-D', '--quiet', ws.branch], { cwd: info.topLevel, signal, okCodes: [1] });
      return deleted.exitCode === 0;
    },
    signal,
  );
  await removeMarker(info.workspacesDir, ws.name);
  return { branchDeleted };
}

/** Options of {@link removeWorkspace}. */
export interface RemoveWorkspaceOptions {
  /** Stops the git calls. */
  signal?: AbortSignal;
  /**
   * Delete the branch even when it holds commits beyond the base: for work that was judged and dropped (a losing
   * best-of-N attempt), whose commits nobody will merge. Default `false`: a branch with commits is kept.
   */
  discardCommits?: boolean;
  /**
   * Keep the folder as a spare for the next {@link createWorkspace} of this repository, while fewer than this many
   * are kept: its `HEAD` detached, its files reset and cleaned (nothing of the agent's or the setup's stays), moved
   * under `.troupe/workspaces/.spares/`. The next creation then rewrites only the files that differ from its base,
   * instead of checking out and later deleting every file: on a repository of 10,000 files that is the difference
   * between seconds and about a tenth of one. Default: the repository's `git config troupe.workspaceSpares`, else 0
   * (the folder is deleted). {@link removeSpares} deletes them.
   */
  spares?: number;
}

/**
 * Removes a workspace's folder (uncommitted changes in it are discarded) and its branch when the branch holds no
 * commits beyond the base; a branch with commits is kept for review or merge (unless `discardCommits`).
 */
export async function removeWorkspace(ws: Workspace, options: RemoveWorkspaceOptions = {}): Promise<RemoveWorkspaceResult> {
  const info = await readRepo(ws.repo, options.signal);
  return removeFolderAndBranch(info, ws, options.signal, options.discardCommits === true, options.spares);
}

/** Why {@link gcWorkspaces} kept a workspace. */
export type GcKeptReason = 'host-running' | 'other-machine' | 'has-commits' | 'uncommitted-changes';

/** One workspace {@link gcWorkspaces} looked at. */
export interface GcWorkspaceEntry {
  /** The workspace's name. */
  name: string;
  /** Its folder. */
  path: string;
  /** Its branch. */
  branch: string;
  /** The process that created it. */
  hostPid: number;
}

/** What {@link gcWorkspaces} removed and kept, with reasons. */
export interface GcWorkspacesResult {
  /** Leftovers removed, folder and branch. */
  removed: GcWorkspaceEntry[];
  /** Workspaces left in place, each with why. */
  kept: (GcWorkspaceEntry & { reason: GcKeptReason })[];
}

/**
 * Cleans up after a host that died (`kill -9`, a crash): of the workspaces whose creating process is gone, removes
 * those without commits or uncommitted changes (folder and branch) and keeps the others, saying why. Workspaces of
 * living hosts are kept. Run it at start-up.
 */
export async function gcWorkspaces(options: { repo: string; signal?: AbortSignal }): Promise<GcWorkspacesResult> {
  const { signal } = options;
  const info = await readRepo(options.repo, signal);
  const result: GcWorkspacesResult = { removed: [], kept: [] };
  for (const marker of await readMarkers(info.workspacesDir)) {
    const entry: GcWorkspaceEntry = { name: marker.name, path: marker.path, branch: marker.branch, hostPid: marker.hostPid };
    const host = markerHost(marker);
    if (host !== 'gone') {
      result.kept.push({ ...entry, reason: host === 'running' ? 'host-running' : 'other-machine' });
      continue;
    }
    if ((await commitsBeyondBase(info, marker.branch, marker.baseCommit, signal)) > 0) {
      result.kept.push({ ...entry, reason: 'has-commits' });
      continue;
    }
    // A folder whose files were never checked out (its host died right after `worktree add`) has no index yet: nothing in it is work.
    const linked = await stat(join(marker.path, '.git')).then((found) => found.isFile(), () => false);
    if (linked && (await stat(await indexPath(marker.path, signal)).then(() => true, () => false))) {
      const status = await gitText(['--no-optional-locks', 'status', '--porcelain', ...(await agentPathspec(marker, signal))], { cwd: marker.path, signal }).catch(() => '');
      if (status !== '') {
        result.kept.push({ ...entry, reason: 'uncommitted-changes' });
        continue;
      }
    }
    await removeFolderAndBranch(info, marker, signal);
    result.removed.push(entry);
  }
  return result;
}
