import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@troupe/core';
import { gitText, removeWorkspace, runGit, runInWorkspace, workspaceResult, type Workspace, type WorkspaceResult } from '@troupe/worktree';
import { QueueError } from './queue-error';
import { resolveCommit } from './queue-git';
import { jobFolderName } from './queue-job-folder';

/** How a job isolates its agents: `'worktree'` runs them in a workspace (a git worktree on its own branch) of the worker's copy. */
export type QueueIsolation = 'worktree';

/** How a worktree job's change travels back: a git bundle of its commits, or a binary-safe patch (`git diff --binary`). */
export type JobChangeFormat = 'bundle' | 'patch';

/** Default cap on a job's change in its result, in bytes: BullMQ keeps the result in Redis. */
export const DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * What a job run with `isolation: 'worktree'` hands back to its origin: where its change lives on the worker, what it
 * touched, and the change itself, ready for {@link applyJobResult}.
 */
export interface JobWorkspaceResult {
  /** The job it came from (its origin branch is `troupe/job-<jobId>` by default). */
  jobId: string;
  /** The workspace branch on the worker (kept there with its commits until removed). */
  branch: string;
  /** The commit the job started from: the origin's, when it named one. */
  baseCommit: string;
  /** The branch's head after the leftovers were committed; equal to `baseCommit` when nothing changed. */
  headCommit: string;
  /** Per-file line counts from `baseCommit` to `headCommit`, and their totals. */
  diffstat: WorkspaceResult['diffstat'];
  /** The job changed something (`headCommit` differs from `baseCommit`). */
  changed: boolean;
  /** `bundle` or `patch`: which of the two fields below carries the change (neither when nothing changed). */
  format: JobChangeFormat;
  /** `git bundle create … base..branch`, base64: the commits, applied with `git fetch`. */
  bundle?: string;
  /** `git diff --binary base head`: for an origin that wants a patch rather than commits. */
  patch?: string;
  /** Size of the change before base64, in bytes. */
  bytes: number;
}

/** Options of {@link runJobInWorkspace}. */
export interface JobWorkspaceOptions {
  /** The worker's copy of the repository (a clone, or a folder the job named). */
  repo: string;
  jobId: string;
  /** The commit the origin asked for. Default: the copy's `HEAD`. */
  base?: string | undefined;
  format?: JobChangeFormat | undefined;
  /** Cap on the change, in bytes. Default {@link DEFAULT_MAX_RESULT_BYTES}. */
  maxResultBytes?: number | undefined;
  /** `workspace:*` events go here (the job's bus, so they reach the origin). */
  bus?: EventBus | undefined;
  signal?: AbortSignal | undefined;
}

/** The name prefix of a job's workspaces: one per attempt, `<prefix>-a<n>`. */
function workspacePrefix(jobId: string): string {
  return `job-${jobFolderName(jobId)}`;
}

/** Checks `path` is the top of a git checkout (not a bare repository), else a `QUEUE_NOT_A_REPOSITORY` error without retry. */
export async function checkJobRepository(path: string, signal?: AbortSignal): Promise<void> {
  const inside = await runGit(['rev-parse', '--is-inside-work-tree'], { cwd: path, signal, okCodes: [128] }).catch(() => undefined);
  if (inside?.exitCode !== 0 || inside.stdout.trim() !== 'true') throw new QueueError('QUEUE_NOT_A_REPOSITORY', { path });
}

/**
 * The workspaces earlier attempts of the job left (their worker died or they failed), newest last, found by their
 * branches and the worktree list: each is a {@link Workspace} whose base is the job's base.
 */
async function earlierAttempts(repo: string, prefix: string, baseCommit: string, signal?: AbortSignal): Promise<{ attempt: number; workspace: Workspace; exists: boolean }[]> {
  const branches = (await gitText(['for-each-ref', '--format=%(refname:short)', `refs/heads/troupe/${prefix}-a*`], { cwd: repo, signal })).split('\n').filter(Boolean);
  const list = await gitText(['worktree', 'list', '--porcelain'], { cwd: repo, signal });
  const paths = new Map<string, string>();
  let path = '';
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    if (line.startsWith('branch refs/heads/')) paths.set(line.slice('branch refs/heads/'.length), path);
  }
  return branches
    .map((branch) => {
      const name = branch.slice('troupe/'.length);
      const attempt = Number(/-a(\d+)$/.exec(name)?.[1] ?? Number.NaN);
      const folder = paths.get(branch);
      return { attempt, exists: folder !== undefined, workspace: { name, path: folder ?? '', branch, baseCommit, repo } };
    })
    .filter((entry) => Number.isInteger(entry.attempt))
    .sort((a, b) => a.attempt - b.attempt);
}

/**
 * Where this attempt starts: the job's base, or — when an earlier attempt of the job left work here (its worker was
 * killed mid-job) — that attempt's branch, its uncommitted leftovers committed first, so nothing it did is lost.
 */
async function carryOver(repo: string, jobId: string, baseCommit: string, signal?: AbortSignal): Promise<{ start: string; next: number }> {
  const earlier = await earlierAttempts(repo, workspacePrefix(jobId), baseCommit, signal);
  let start = baseCommit;
  for (const { workspace, exists } of earlier) {
    if (exists) {
      await workspaceResult(workspace, { commit: { message: `troupe: job ${jobId}, work of an interrupted attempt` }, ...(signal ? { signal } : {}) });
      await removeWorkspace(workspace, { ...(signal ? { signal } : {}) });
    }
    const head = await resolveCommit(repo, `refs/heads/${workspace.branch}`, signal);
    // Only a branch that grew from this job's base carries its work on.
    if (head !== undefined && head !== baseCommit && (await runGit(['merge-base', '--is-ancestor', baseCommit, head], { cwd: repo, signal, okCodes: [1] })).exitCode === 0) start = head;
  }
  return { start, next: (earlier.at(-1)?.attempt ?? 0) + 1 };
}

/** The change from `base` to `branch` as a bundle or a patch, checked against the size limit. */
async function packChange(repo: string, result: Omit<JobWorkspaceResult, 'format' | 'bytes'>, format: JobChangeFormat, limit: number, signal?: AbortSignal): Promise<Pick<JobWorkspaceResult, 'bundle' | 'patch' | 'bytes'>> {
  let data: Buffer;
  if (format === 'patch') {
    data = Buffer.from((await runGit(['diff', '--binary', '--no-color', '--no-ext-diff', '--no-renames', result.baseCommit, result.headCommit], { cwd: repo, signal })).stdout, 'utf8');
  } else {
    const folder = await mkdtemp(join(tmpdir(), 'troupe-bundle-'));
    try {
      const file = join(folder, 'job.bundle');
      await runGit(['bundle', 'create', '--quiet', file, `refs/heads/${result.branch}`, `^${result.baseCommit}`], { cwd: repo, signal });
      data = await readFile(file);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
  if (data.length > limit) throw new QueueError('QUEUE_RESULT_TOO_LARGE', { jobId: result.jobId, bytes: data.length, limit, branch: result.branch, repo });
  return format === 'patch' ? { patch: data.toString('utf8'), bytes: data.length } : { bundle: data.toString('base64'), bytes: data.length };
}

/** Commits a cancelled attempt's leftovers on its branch and removes its folder (the branch stays when it holds work). */
async function setAsideCancelled(ws: Workspace, jobId: string): Promise<void> {
  try {
    await workspaceResult(ws, { commit: { message: `troupe: job ${jobId}, work of a cancelled attempt` } });
  } finally {
    await removeWorkspace(ws).catch(() => undefined);
  }
}

/**
 * Runs a job's work in a workspace of the worker's copy of its repository (via `runInWorkspace`, so the parent
 * checkout is checked untouched, with the job id as owner), from the commit the origin asked for; then commits the
 * leftovers on the workspace branch and returns the change as a bundle or patch (see {@link JobWorkspaceResult}).
 * The workspace folder is removed at the end (also when the job is cancelled, its leftovers committed first); its
 * branch, holding the commits, stays on the worker. A retry after the worker died continues from the work the dead
 * attempt left in this copy.
 */
export async function runJobInWorkspace<T>(options: JobWorkspaceOptions, run: (path: string) => Promise<T>): Promise<{ value: T; workspace: JobWorkspaceResult }> {
  const { repo, jobId, signal } = options;
  await checkJobRepository(repo, signal);
  const requested = options.base ?? 'HEAD';
  const baseCommit = await resolveCommit(repo, requested, signal);
  if (baseCommit === undefined) throw new QueueError('QUEUE_BASE_MISSING', { base: requested, repo });
  const { start, next } = await carryOver(repo, jobId, baseCommit, signal);
  let made: Workspace | undefined;
  const { value, workspace } = await runInWorkspace(
    { repo, base: start, name: `${workspacePrefix(jobId)}-a${next}`, commit: { message: `troupe: job ${jobId}` }, keep: 'always', owner: jobId, ...(options.bus ? { bus: options.bus } : {}), ...(signal ? { signal } : {}) },
    (ws) => {
      made = ws;
      return run(ws.path);
    },
  ).catch(async (error: unknown) => {
    // A cancelled job is not retried: its folder would stay until the worker restarts. Its leftovers are committed on
    // its branch (a later job of the same id carries them on) and the folder goes now.
    if (signal?.aborted && made) await setAsideCancelled(made, jobId);
    throw error;
  });
  // The job's own result: from its base (an interrupted attempt's commits included), not from this attempt's start.
  const fromBase: Workspace = { ...workspace, baseCommit };
  const result = await workspaceResult(fromBase, { ...(signal ? { signal } : {}) });
  const changed = result.headCommit !== baseCommit;
  const format = options.format ?? 'bundle';
  const summary = { jobId, branch: result.branch, baseCommit, headCommit: result.headCommit, diffstat: result.diffstat, changed };
  try {
    const packed = changed ? await packChange(repo, summary, format, options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, signal) : { bytes: 0 };
    return { value, workspace: { ...summary, format, ...packed } };
  } finally {
    // The folder goes; a branch with commits stays (the change is never only in a job result).
    await removeWorkspace(fromBase, { ...(signal ? { signal } : {}) });
  }
}
