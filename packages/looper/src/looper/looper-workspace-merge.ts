import { resolve } from 'node:path';
import { InvalidArgumentError, InvalidStateError } from '@troupe/core/errors';
import type { Workspace } from '@troupe/worktree';
import type { LooperWorkspace } from './looper-state';
import type { LooperWorkspaceTexts } from './looper-texts';

/** `@troupe/worktree`, loaded on first use: an optional peer, needed only with `isolation: 'worktree'`. */
export type WorktreeModule = typeof import('@troupe/worktree');

/**
 * @internal Loads `@troupe/worktree`; a missing install is named with its install command.
 */
export async function loadWorktree(): Promise<WorktreeModule> {
  try {
    return await import('@troupe/worktree');
  } catch (error) {
    throw new InvalidArgumentError('isolation', `"worktree" needs the package @troupe/worktree, which is not installed: npm install @troupe/worktree`, { cause: error });
  }
}

/**
 * @internal One git call (arguments, no shell) for what `@troupe/worktree` has no operation for: the branch a checkout
 * is on, which checkout has a branch, whether it is clean, and the fast-forward of the parent. `@troupe/worktree`'s
 * own runner (cleaned environment, its `GitCommandError` on failure); stdout without the trailing newline.
 */
export function looperGit(worktree: WorktreeModule, args: readonly string[], cwd: string, signal?: AbortSignal): Promise<string> {
  return worktree.gitText(args, signal ? { cwd, signal } : { cwd });
}

/** A file the merge could not combine, with its conflicting regions (`@troupe/worktree`'s `MergeConflict`). */
export interface LooperMergeConflict {
  /** Path relative to the repository. */
  file: string;
  /** Each region: 1-based line of its marker, the target's lines (`ours`) and the workspace's (`theirs`). */
  hunks: { line: number; ours: string[]; theirs: string[] }[];
}

/** What a `merge` of a run's workspace did: `into` moved to `commit`, or the conflicts (nothing changed). */
export type LooperMergeOutcome =
  | { ok: true; into: string; strategy: LooperMergeStrategy; commit: string }
  | { ok: false; into: string; strategy: LooperMergeStrategy; conflicts: LooperMergeConflict[] };

/** How the workspace branch goes into the target (see `mergeWorkspace`). */
export type LooperMergeStrategy = 'merge' | 'rebase' | 'squash';

function asWorkspace(record: LooperWorkspace): Workspace {
  return { name: record.name, path: record.path, branch: record.branch, baseCommit: record.baseCommit, repo: record.repo, ...(record.setupFiles ? { setupFiles: record.setupFiles } : {}) };
}

/** The checkout each branch is checked out at (`refs/heads/x` → path). */
async function checkouts(worktree: WorktreeModule, repo: string, signal?: AbortSignal): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  let path = '';
  for (const line of (await looperGit(worktree, ['worktree', 'list', '--porcelain'], repo, signal)).split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    if (line.startsWith('branch ')) map.set(line.slice('branch '.length), path);
  }
  return map;
}

/**
 * Merges a Looper run's workspace branch into `into` (default: the branch the run started from), never leaving a
 * half-merged checkout. `mergeWorkspace` refuses a branch that is checked out, and the parent checkout usually has
 * the start branch checked out, so:
 *
 * - `into` checked out in the run's parent checkout: when that checkout has no changes to tracked files, the merge is
 *   made on a temporary branch (in `mergeWorkspace`'s temporary worktree) and the parent is then fast-forwarded to it
 *   (`git merge --ff-only`); with changes it is refused, naming them.
 * - `into` checked out elsewhere: refused by `mergeWorkspace`, naming that checkout.
 * - `into` not checked out: merged there directly.
 * - `into` a branch that does not exist: made at the run's base commit, then merged (a review branch).
 *
 * A conflict returns `{ ok: false, conflicts }` and changes no branch and no checkout. After a merge the workspace
 * folder is removed (its branch stays: it holds the commits).
 *
 * @throws InvalidArgumentError when the run started on a detached `HEAD` and no `into` is given, or `strategy` is wrong.
 * @throws InvalidStateError when the parent checkout has changes, or `into` is checked out in another checkout.
 */
export async function mergeLooperWorkspace(
  record: LooperWorkspace,
  options: { into?: string; strategy?: LooperMergeStrategy; signal?: AbortSignal } = {},
): Promise<LooperMergeOutcome> {
  const worktree = await loadWorktree();
  const { signal } = options;
  const strategy = options.strategy ?? 'merge';
  if (!['merge', 'rebase', 'squash'].includes(strategy)) throw new InvalidArgumentError('strategy', `"${String(strategy)}" is not merge, rebase or squash`);
  const into = options.into ?? record.startBranch;
  if (!into) throw new InvalidArgumentError('into', `the run started on a detached HEAD in ${record.repo}: name the branch to merge ${record.branch} into`);
  const ws = asWorkspace(record);
  const exists = await looperGit(worktree, ['rev-parse', '--verify', '--quiet', `refs/heads/${into}`], record.repo, signal).then(
    () => true,
    () => false,
  );
  if (!exists) await looperGit(worktree, ['branch', '--no-track', '--end-of-options', into, record.baseCommit], record.repo, signal);
  const at = (await checkouts(worktree, record.repo, signal)).get(`refs/heads/${into}`);
  let outcome: LooperMergeOutcome;
  if (at === undefined || resolve(at) !== resolve(record.repo)) {
    // Not checked out (merged in place), or checked out elsewhere (mergeWorkspace refuses, naming the checkout).
    const merged = await worktree.mergeWorkspace(ws, { into, strategy, ...(signal ? { signal } : {}) });
    outcome = merged.ok ? { ok: true, into, strategy, commit: merged.commit } : { ok: false, into, strategy, conflicts: merged.conflicts };
  } else {
    outcome = await mergeIntoParent(worktree, ws, at, into, strategy, signal);
  }
  if (outcome.ok) await worktree.removeWorkspace(ws).catch(() => undefined);
  return outcome;
}

async function mergeIntoParent(worktree: WorktreeModule, ws: Workspace, parent: string, into: string, strategy: LooperMergeStrategy, signal?: AbortSignal): Promise<LooperMergeOutcome> {
  const dirty = await looperGit(worktree, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no'], parent, signal);
  if (dirty !== '') {
    const files = dirty.split('\n').map((line) => line.slice(3)).slice(0, 10).join(', ');
    throw new InvalidStateError(`The checkout ${parent} has ${into} checked out with uncommitted changes (${files}); commit or stash them, or merge into another branch with "into"`);
  }
  const temp = `${ws.branch}-merge-${Date.now().toString(36)}`;
  await looperGit(worktree, ['branch', '--no-track', temp, `refs/heads/${into}`], ws.repo, signal);
  try {
    const merged = await worktree.mergeWorkspace(ws, { into: temp, strategy, message: `Merge ${ws.branch} into ${into}`, ...(signal ? { signal } : {}) });
    if (!merged.ok) return { ok: false, into, strategy, conflicts: merged.conflicts };
    // The parent's branch moves only by a fast-forward of a clean checkout: it either lands on the merge or is left as it was.
    await looperGit(worktree, ['merge', '--ff-only', '--quiet', merged.commit], parent, signal);
    return { ok: true, into, strategy, commit: merged.commit };
  } finally {
    await looperGit(worktree, ['branch', '-D', temp], ws.repo).catch(() => undefined);
  }
}

/** @internal The workspace record after a merge (unchanged on a conflict). */
export function mergedWorkspace(record: LooperWorkspace, outcome: LooperMergeOutcome): LooperWorkspace {
  return outcome.ok ? { ...record, merged: { into: outcome.into, strategy: outcome.strategy, commit: outcome.commit } } : record;
}

/** @internal The answer to a `merge` command, in the Looper's language. */
export function mergeReplyText(texts: LooperWorkspaceTexts, record: LooperWorkspace, outcome: LooperMergeOutcome): string {
  return outcome.ok
    ? texts.merged(record.branch, outcome.into, outcome.strategy, outcome.commit)
    : texts.conflicts(
        record.branch,
        outcome.into,
        outcome.conflicts.map((conflict) => ({ file: conflict.file, hunks: conflict.hunks.length })),
      );
}
