import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AbortError, InvalidArgumentError } from '@troupe/core';
import { GitCommandError, gitText, runGit } from '@troupe/worktree';
import { resolveCommit } from './queue-git';
import type { JobWorkspaceResult } from './queue-job-workspace';

/** Options of {@link applyJobResult}. */
export interface ApplyJobResultOptions {
  /** The origin's checkout (any folder of it). Its checked-out branch, index and files are never touched. */
  repo: string;
  /** The new branch to create. Default `troupe/job-<jobId>`. It must not exist yet. */
  branch?: string;
  signal?: AbortSignal;
}

/** What {@link applyJobResult} did. */
export interface AppliedJobResult {
  /** False when the job changed nothing: no branch was created. */
  applied: boolean;
  /** The branch created in the origin (or that would have been). */
  branch: string;
  /** The commit the job started from. */
  baseCommit: string;
  /** The new branch's head: the job's own commit for a bundle, a new commit on `baseCommit` for a patch. */
  headCommit: string;
}

const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function checkResult(result: JobWorkspaceResult): void {
  const bad = (what: string) => new InvalidArgumentError('result', `expected the workspace result of an isolation "worktree" job (its \`workspace\` field): ${what}`);
  if (result === null || typeof result !== 'object') throw bad(`got ${String(result)}`);
  if (typeof result.jobId !== 'string' || result.jobId === '') throw bad('jobId is missing');
  if (typeof result.baseCommit !== 'string' || !COMMIT_ID.test(result.baseCommit)) throw bad(`baseCommit ${JSON.stringify(result.baseCommit)} is not a commit id`);
  if (typeof result.headCommit !== 'string' || !COMMIT_ID.test(result.headCommit)) throw bad(`headCommit ${JSON.stringify(result.headCommit)} is not a commit id`);
  if (!result.changed) return;
  if (result.format === 'bundle' && typeof result.bundle !== 'string') throw bad('its format is "bundle" but it carries no bundle');
  if (result.format === 'patch' && typeof result.patch !== 'string') throw bad('its format is "patch" but it carries no patch');
  if (result.format !== 'bundle' && result.format !== 'patch') throw bad(`unknown format ${JSON.stringify(result.format)}`);
}

/** The top of the origin's checkout, or an error naming `repo`. */
async function topLevel(repo: string, signal?: AbortSignal): Promise<string> {
  const found = await runGit(['rev-parse', '--show-toplevel'], { cwd: resolve(repo), signal, okCodes: [128] }).catch((error: unknown) => {
    if (AbortError.isInstance(error)) throw error;
    return undefined;
  });
  if (found?.exitCode !== 0) throw new InvalidArgumentError('repo', `${resolve(repo)} is not a git checkout`);
  return found.stdout.trim();
}

/**
 * The checkout `path` is in and its `HEAD` commit, or undefined when it is not in a git checkout (or has no commit):
 * what an origin sends as a worktree job's `base`, and where it applies the result.
 */
export async function readOriginCheckout(path: string, signal?: AbortSignal): Promise<{ repo: string; head: string } | undefined> {
  const repo = await topLevel(path, signal).catch((error: unknown) => {
    if (AbortError.isInstance(error)) throw error;
    return undefined;
  });
  const head = repo === undefined ? undefined : await resolveCommit(repo, 'HEAD', signal);
  return repo !== undefined && head !== undefined ? { repo, head } : undefined;
}

/** Fetches the bundle's branch into `branch`: objects and one new ref, nothing else of the repository changes. */
async function fetchBundle(cwd: string, result: JobWorkspaceResult, branch: string, folder: string, signal?: AbortSignal): Promise<string> {
  const file = join(folder, 'job.bundle');
  await writeFile(file, Buffer.from(result.bundle as string, 'base64'));
  const verify = await runGit(['bundle', 'verify', '--quiet', file], { cwd, signal, okCodes: [1, 128] });
  if (verify.exitCode !== 0) throw new InvalidArgumentError('result', `the bundle of job ${result.jobId} does not verify in ${cwd} (corrupt, or it needs commits the repository lacks)`);
  const heads = (await gitText(['bundle', 'list-heads', file], { cwd, signal })).split('\n').filter(Boolean);
  const ref = heads.map((line) => line.split(' ')[1]).find((name) => name === `refs/heads/${result.branch}`) ?? heads[0]?.split(' ')[1];
  if (ref === undefined) throw new InvalidArgumentError('result', `the bundle of job ${result.jobId} holds no branch`);
  await runGit(['fetch', '--quiet', '--no-write-fetch-head', '--no-tags', '--end-of-options', file, `${ref}:refs/heads/${branch}`], { cwd, signal });
  return await gitText(['rev-parse', `refs/heads/${branch}`], { cwd, signal });
}

/** Applies the patch on `baseCommit` through a temporary index (`git apply --cached --check` first) and commits it as `branch`. */
async function commitPatch(cwd: string, result: JobWorkspaceResult, branch: string, folder: string, signal?: AbortSignal): Promise<string> {
  const file = join(folder, 'job.patch');
  await writeFile(file, result.patch as string);
  const env = { GIT_INDEX_FILE: join(folder, 'index') };
  await runGit(['read-tree', result.baseCommit], { cwd, env, signal });
  try {
    await runGit(['apply', '--cached', '--check', file], { cwd, env, signal });
  } catch (error) {
    const detail = error instanceof GitCommandError ? `: ${error.stderr}` : '';
    throw new InvalidArgumentError('result', `the patch of job ${result.jobId} does not apply on ${result.baseCommit} in ${cwd}${detail}`, { cause: error });
  }
  await runGit(['apply', '--cached', file], { cwd, env, signal });
  const tree = await gitText(['write-tree'], { cwd, env, signal });
  const identity = await runGit(['var', 'GIT_COMMITTER_IDENT'], { cwd, signal, okCodes: [128] });
  const fallback: Record<string, string> = identity.exitCode === 0 ? {} : { GIT_AUTHOR_NAME: 'Troupe', GIT_AUTHOR_EMAIL: 'troupe@localhost', GIT_COMMITTER_NAME: 'Troupe', GIT_COMMITTER_EMAIL: 'troupe@localhost' };
  const commit = await gitText(['commit-tree', tree, '-p', result.baseCommit, '-m', `troupe: job ${result.jobId}`], { cwd, env: { ...env, ...fallback }, signal });
  // The all-zero old value: created only if the branch still does not exist.
  await runGit(['update-ref', `refs/heads/${branch}`, commit, '0'.repeat(result.baseCommit.length)], { cwd, signal });
  return commit;
}

/**
 * Brings a worktree job's change into the origin repository as a new branch (`troupe/job-<jobId>` by default): a
 * bundle is verified (`git bundle verify`) and fetched, a patch is checked (`git apply --check`) and committed on
 * the job's base through a temporary index. The checked-out branch, the index and the working tree are never
 * touched. Fails with an `InvalidArgumentError` naming what is wrong: not a checkout, the branch already exists,
 * the origin lacks the job's base commit, a bundle that does not verify, a patch that does not apply.
 *
 * @example
 * ```ts
 * const { workspace } = await job.result;
 * if (workspace) {
 *   const applied = await applyJobResult(workspace, { repo: process.cwd() });
 *   console.log(`git diff ${applied.baseCommit}..${applied.branch}`);
 * }
 * ```
 */
export async function applyJobResult(result: JobWorkspaceResult, options: ApplyJobResultOptions): Promise<AppliedJobResult> {
  const { signal } = options;
  checkResult(result);
  if (typeof options?.repo !== 'string' || options.repo === '') throw new InvalidArgumentError('repo', 'expected the path of the origin checkout');
  const cwd = await topLevel(options.repo, signal);
  const branch = options.branch ?? `troupe/job-${result.jobId}`;
  const valid = await runGit(['check-ref-format', '--branch', branch], { cwd, signal, okCodes: [1, 128] });
  if (valid.exitCode !== 0 || branch.startsWith('-')) throw new InvalidArgumentError('branch', `"${branch}" is not a valid branch name${options.branch === undefined ? ' (name one with `branch`)' : ''}`);
  if ((await resolveCommit(cwd, `refs/heads/${branch}`, signal)) !== undefined) throw new InvalidArgumentError('branch', `the branch ${branch} already exists in ${cwd}`);
  if ((await resolveCommit(cwd, result.baseCommit, signal)) === undefined) {
    throw new InvalidArgumentError('repo', `${cwd} lacks commit ${result.baseCommit}, the base of job ${result.jobId}; fetch it (or submit from a commit the worker and the origin share)`);
  }
  if (!result.changed) return { applied: false, branch, baseCommit: result.baseCommit, headCommit: result.baseCommit };
  const folder = await mkdtemp(join(tmpdir(), 'troupe-apply-'));
  try {
    const headCommit = result.format === 'bundle' ? await fetchBundle(cwd, result, branch, folder, signal) : await commitPatch(cwd, result, branch, folder, signal);
    return { applied: true, branch, baseCommit: result.baseCommit, headCommit };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
