import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@troupe/core/errors';
import { agentPathspec, type Workspace } from './worktree-create';
import { gitText, linkedGitDir, runGit } from './worktree-git';
import { commitIdentityEnv } from './worktree-identity';

/** One file's line counts in a workspace's diff (`-1` for binary files). */
export interface WorkspaceFileStat {
  /** Path relative to the workspace. */
  file: string;
  /** Lines added (`-1` for a binary file). */
  insertions: number;
  /** Lines removed (`-1` for a binary file). */
  deletions: number;
}

/** What an agent did in a workspace, against the commit it started from. */
export interface WorkspaceResult {
  /** The workspace branch, `troupe/<name>`. */
  branch: string;
  /** The commit the workspace started from. */
  baseCommit: string;
  /** The branch's head commit (after the leftovers commit when `commit` was asked). */
  headCommit: string;
  /** Unified diff from the base to the workspace's files as they are, untracked files included. */
  diff: string;
  /** Per-file line counts of `diff`, and their totals. */
  diffstat: { files: WorkspaceFileStat[]; insertions: number; deletions: number };
  /** The agent made commits on the branch. */
  committed: boolean;
  /** Changes remain outside any commit (after `commit`, always `false`). */
  uncommitted: boolean;
}

/** Options of {@link workspaceResult}. */
export interface WorkspaceResultOptions {
  /** Commit the leftovers on the workspace branch (with a generated message, or `message`). */
  commit?: boolean | { message: string };
  /** Stops the git calls. */
  signal?: AbortSignal;
}

/** A linked worktree's `.git` file names its git dir, which holds its index: read without starting git. */
export async function indexPath(cwd: string, signal?: AbortSignal): Promise<string> {
  const gitDir = await linkedGitDir(cwd);
  if (gitDir) return join(gitDir, 'index');
  return gitText(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, signal });
}

async function headAndTree(cwd: string, signal?: AbortSignal): Promise<[string, string]> {
  const [commit = '', tree = ''] = (await gitText(['rev-parse', 'HEAD', 'HEAD^{tree}'], { cwd, signal })).split('\n');
  return [commit, tree];
}

// The tree of the workspace's files as they are, written through a temporary index (a copy of the real one, so
// unchanged files are not hashed again): the workspace's own index stays as the agent left it.
async function worktreeTree(ws: Workspace, signal?: AbortSignal): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'troupe-index-'));
  const index = join(folder, 'index');
  try {
    const realIndex = await indexPath(ws.path, signal);
    // The copy keeps the real index's times: git trusts a file's stat data only when it is older than the index, so
    // a fresh copy time would hide a same-size edit made in the second the workspace was checked out.
    const copied = await copyFile(realIndex, index).then(
      async () => {
        const times = await stat(realIndex);
        await utimes(index, times.atime, times.mtime);
        return true;
      },
      () => false,
    );
    const env = { GIT_INDEX_FILE: index };
    if (!copied) await runGit(['read-tree', 'HEAD'], { cwd: ws.path, env, signal });
    await runGit(['add', '-A', ...(await agentPathspec(ws, signal))], { cwd: ws.path, env, signal });
    return await gitText(['write-tree'], { cwd: ws.path, env, signal });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function parseNumstat(text: string): WorkspaceResult['diffstat'] {
  const files: WorkspaceFileStat[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const [added, deleted, ...rest] = line.split('\t');
    const binary = added === '-';
    files.push({ file: rest.join('\t'), insertions: binary ? -1 : Number(added), deletions: binary ? -1 : Number(deleted) });
  }
  const sum = (pick: (stat: WorkspaceFileStat) => number) => files.reduce((total, stat) => total + Math.max(0, pick(stat)), 0);
  return { files, insertions: sum((stat) => stat.insertions), deletions: sum((stat) => stat.deletions) };
}

/**
 * The result of a finished workspace: branch, base and head commits, the unified diff and diffstat of everything
 * the agent changed (committed or not, untracked files included), and whether it committed or left changes
 * uncommitted. With `commit`, leftovers are committed on the workspace branch first.
 *
 * @example
 * ```ts
 * const result = await workspaceResult(ws, { commit: true });
 * console.log(result.diffstat.files.map((f) => f.file), result.headCommit);
 * ```
 */
export async function workspaceResult(ws: Workspace, options: WorkspaceResultOptions = {}): Promise<WorkspaceResult> {
  const { signal } = options;
  const cwd = ws.path;
  if (!(await stat(cwd).catch(() => undefined))?.isDirectory()) throw new InvalidArgumentError('ws', `the workspace folder ${cwd} does not exist (was the workspace removed?)`);
  let [tree, [headCommit, headTree]] = await Promise.all([worktreeTree(ws, signal), headAndTree(cwd, signal)]);
  const committedNow = Boolean(options.commit) && tree !== headTree;
  if (committedNow) {
    const message = typeof options.commit === 'object' ? options.commit.message : `troupe: changes of workspace ${ws.name}`;
    const env = await commitIdentityEnv(cwd, signal);
    await runGit(['add', '-A', ...(await agentPathspec(ws, signal))], { cwd, signal });
    await runGit(['commit', '--quiet', '--no-verify', '-m', message], { cwd, env, signal });
    [headCommit, headTree] = await headAndTree(cwd, signal);
    // The commit is the real index after the same `add -A` that made `tree` through the temporary one.
    tree = headTree;
  }
  const diffArgs = ['--no-color', '--no-ext-diff', '--no-renames', ws.baseCommit, tree];
  const [diff, numstat, count] = await Promise.all([
    gitText(['diff', '--binary', ...diffArgs], { cwd, signal }).then((text) => (text === '' ? '' : `${text}\n`)),
    gitText(['diff', '--numstat', ...diffArgs], { cwd, signal }),
    // Known without asking git when HEAD is still the base, or a commit was just made on top of it.
    headCommit === ws.baseCommit ? '0' : committedNow ? '1' : gitText(['rev-list', '--count', `${ws.baseCommit}..${headCommit}`], { cwd, signal }),
  ]);
  return {
    branch: ws.branch,
    baseCommit: ws.baseCommit,
    headCommit,
    diff,
    diffstat: parseNumstat(numstat),
    committed: Number(count) > 0,
    uncommitted: tree !== headTree,
  };
}
