import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, InvalidStateError } from '@troupe/core/errors';
import type { Workspace } from './worktree-create';
import { gitText, runGit } from './worktree-git';
import { commitIdentityEnv } from './worktree-identity';
import { readRepo } from './worktree-repo';
import { withRepoLock } from './worktree-repo-queue';

/** One conflicting region of a file: the target branch's lines and the workspace's lines. */
export interface MergeConflictHunk {
  /** 1-based line of the `<<<<<<<` marker in the conflicted file. */
  line: number;
  /** The lines of the branch merged into (`into`). */
  ours: string[];
  /** The lines of the workspace. */
  theirs: string[];
}

/** A file the merge could not combine. */
export interface MergeConflict {
  /** Path relative to the repository. */
  file: string;
  /** The conflicting regions; empty when the conflict is not about lines (deleted on one side, binary). */
  hunks: MergeConflictHunk[];
}

/** What {@link mergeWorkspace} did: `ok` with the new commit of `into`, or the conflicts (nothing changed). */
export type MergeWorkspaceResult = { ok: true; into: string; commit: string } | { ok: false; into: string; conflicts: MergeConflict[] };

/** Options of {@link mergeWorkspace}. */
export interface MergeWorkspaceOptions {
  /** The branch that receives the workspace's commits. It must not be checked out anywhere (its checkout would go stale). */
  into: string;
  /** `merge`: a merge commit; `rebase`: the workspace's commits replayed on `into`; `squash`: one commit. */
  strategy: 'merge' | 'rebase' | 'squash';
  /** Message of the merge or squash commit. Default: generated from the workspace's name. */
  message?: string;
  /** Stops the merge; the temporary worktree is removed and `into` is not moved. */
  signal?: AbortSignal;
}

/** Splits a conflicted file's markers into hunks (diff3 base sections, when present, are left out). */
export function parseConflictHunks(text: string): MergeConflictHunk[] {
  const hunks: MergeConflictHunk[] = [];
  let current: MergeConflictHunk | undefined;
  let side: 'ours' | 'base' | 'theirs' = 'ours';
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('<<<<<<<')) {
      current = { line: index + 1, ours: [], theirs: [] };
      side = 'ours';
    } else if (current && line.startsWith('|||||||')) side = 'base';
    else if (current && line.startsWith('=======')) side = 'theirs';
    else if (current && line.startsWith('>>>>>>>')) {
      hunks.push(current);
      current = undefined;
    } else if (current && side !== 'base') current[side].push(line);
  });
  return hunks;
}

async function checkedOutAt(topLevel: string, ref: string, signal?: AbortSignal): Promise<string | undefined> {
  const list = await gitText(['worktree', 'list', '--porcelain'], { cwd: topLevel, signal });
  let path = '';
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    if (line === `branch ${ref}`) return path;
  }
  return undefined;
}

/**
 * Merges a workspace's branch into `into` in a temporary worktree (never in the parent checkout) and moves `into`
 * only when the merge succeeded. A conflict returns `{ ok: false, conflicts }` with the files and hunks, and leaves
 * every branch and checkout as it was. Commit leftovers first (`workspaceResult(ws, { commit: true })`): only the
 * branch's commits are merged.
 */
export async function mergeWorkspace(ws: Workspace, options: MergeWorkspaceOptions): Promise<MergeWorkspaceResult> {
  const { signal, strategy } = options;
  if (!['merge', 'rebase', 'squash'].includes(strategy)) throw new InvalidArgumentError('strategy', `"${String(strategy)}" is not merge, rebase or squash`);
  const info = await readRepo(ws.repo, signal);
  const ref = `refs/heads/${options.into}`;
  const cwd = info.topLevel;
  const intoCommit = await gitText(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, signal }).catch((error: unknown) => {
    throw new InvalidArgumentError('into', `no branch "${options.into}" in ${cwd}`, { cause: error });
  });
  const checkout = await checkedOutAt(cwd, ref, signal);
  if (checkout) throw new InvalidStateError(`The branch ${options.into} is checked out at ${checkout}; merging into it would leave that checkout stale. Merge into another branch, or switch that checkout away first`);
  const wsHead = await gitText(['rev-parse', '--verify', '--quiet', `refs/heads/${ws.branch}^{commit}`], { cwd, signal }).catch((error: unknown) => {
    throw new InvalidArgumentError('ws', `the workspace branch ${ws.branch} no longer exists in ${cwd}`, { cause: error });
  });
  const temp = join(info.workspacesDir, `.merge-${ws.name}-${randomBytes(3).toString('hex')}`);
  await withRepoLock(info.commonDir, () => runGit(['worktree', 'add', '--quiet', '--detach', temp, strategy === 'rebase' ? wsHead : intoCommit], { cwd, signal }), signal);
  try {
    const env = await commitIdentityEnv(temp, signal);
    const message = options.message ?? `Merge workspace ${ws.name} (${ws.branch})`;
    const step =
      strategy === 'merge'
        ? ['merge', '--no-ff', '--no-edit', '-m', message, wsHead]
        : strategy === 'squash'
          ? ['merge', '--squash', wsHead]
          : ['rebase', '--quiet', intoCommit];
    const attempt = await runGit(step, { cwd: temp, env, signal, okCodes: [1] });
    if (attempt.exitCode !== 0) {
      const files = (await gitText(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: temp, signal })).split('\0').filter(Boolean);
      const conflicts: MergeConflict[] = [];
      for (const file of files) conflicts.push({ file, hunks: parseConflictHunks(await readFile(join(temp, file), 'utf8').catch(() => '')) });
      return { ok: false, into: options.into, conflicts };
    }
    if (strategy === 'squash') {
      const staged = await runGit(['diff', '--cached', '--quiet'], { cwd: temp, signal, okCodes: [1] });
      if (staged.exitCode === 1) await runGit(['commit', '--quiet', '--no-verify', '-m', message], { cwd: temp, env, signal });
    }
    const commit = await gitText(['rev-parse', 'HEAD'], { cwd: temp, signal });
    // Compare-and-swap: fails (and changes nothing) if `into` moved meanwhile.
    await withRepoLock(info.commonDir, () => runGit(['update-ref', '-m', `troupe: ${strategy} ${ws.branch}`, ref, commit, intoCommit], { cwd, signal }), signal);
    return { ok: true, into: options.into, commit };
  } finally {
    await withRepoLock(info.commonDir, () => runGit(['worktree', 'remove', '--force', '--force', temp], { cwd }).catch(() => undefined));
  }
}
