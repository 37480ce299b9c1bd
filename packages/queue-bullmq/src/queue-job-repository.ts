// The repository a job works in on a worker: the folder or clone its payload names, checked against the worker's
// rules (allowed folders, git URL kinds, clone time limit), and the start-up cleanup of job workspaces. Shared by the
// job kinds that run agents in a repository (Looper runs, best-of-N attempts).
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import { z } from 'zod';
import { cloneJobRepository } from './queue-git-clone';
import type { QueueJobContext } from './queue-job';
import { jobFolderName } from './queue-job-folder';
import { checkJobRepository, runJobInWorkspace, type JobChangeFormat, type JobWorkspaceResult } from './queue-job-workspace';
import { recordJobProcesses, stopLeftoverJobProcesses } from './queue-job-processes';
import { checkInsideRoots } from './queue-workspace-roots';
import { collectJobWorkspaces, logJobWorkspaceGc, repositoriesUnder, type JobWorkspaceGcReport } from './queue-workspace-gc';

/** Where a job works (a Looper run, a best-of-N attempt): a folder every worker can reach, or a git repository each worker clones. */
export const looperWorkspaceSchema = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z.object({ gitUrl: z.string().min(1), ref: z.string().min(1).optional() }).strict(),
]);

/** A commit-ish a job starts from (the origin's `HEAD`): never an option to git. */
export const jobBaseSchema = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith('-'), 'must not start with "-"');

/** A job's workspace (see {@link looperWorkspaceSchema}). */
export type JobRepositorySpec = z.infer<typeof looperWorkspaceSchema>;

/** A worker's rules for the repositories jobs name: the options every repository job handler takes. */
export interface JobRepositoryOptions {
  /** Where git workspaces are cloned. Default `<tmpdir>/troupe-worker`. */
  workRoot?: string;
  /**
   * The folders jobs may work in: a job's `path` workspace (symlinks
   * resolved) and a local `gitUrl` must be inside one of them, or the job
   * fails without retry and its Coder never starts. A job names folders on
   * the worker, which runs its agents there with the worker's keys. Default:
   * `[workRoot]`.
   */
  allowedRoots?: readonly string[];
  /**
   * Accept `file://` URLs and plain paths as `gitUrl` (inside `allowedRoots`).
   * Default false: only `https://`, `ssh://` and `user@host:path`.
   */
  allowLocalGitUrls?: boolean;
  /** Time limit of a job's `git clone`, in ms; its `git` and ssh are then killed. Default 600 000 (10 min). */
  cloneTimeoutMs?: number;
  /**
   * Largest change (bundle or patch, in bytes) an `isolation: 'worktree'` job sends back in its result, which
   * BullMQ keeps in Redis. A larger one fails the job without retry; its branch stays on the worker. Default 8 MiB.
   */
  maxResultBytes?: number;
  /**
   * Told what the start-up cleanup of job workspaces did in each repository copy (leftovers of a killed worker:
   * removed when empty, kept when they hold work). Default: a line on stderr per kept workspace.
   */
  onWorkspaceGc?: (report: JobWorkspaceGcReport) => void;
}

/** The worker's rules for the workspaces jobs name. */
export interface WorkspacePolicy {
  workRoot: string;
  allowedRoots: readonly string[];
  allowLocalGitUrls: boolean;
  cloneTimeoutMs: number;
  maxResultBytes: number | undefined;
}

/**
 * The workspace folder for a job: checks a path is an allowed folder, or
 * clones the repository once into a folder named from the job id (a retry
 * reuses the clone).
 */
async function prepareWorkspace(workspace: JobRepositorySpec, jobId: string, policy: WorkspacePolicy, signal: AbortSignal, onProcess: (processId: string) => void): Promise<string> {
  if ('path' in workspace) return await checkInsideRoots(workspace.path, policy.allowedRoots, 'workspace');
  mkdirSync(policy.workRoot, { recursive: true });
  const target = join(policy.workRoot, jobFolderName(jobId));
  if (existsSync(join(target, '.git'))) return await checkInsideRoots(target, [policy.workRoot], 'workspace');
  await cloneJobRepository({
    gitUrl: workspace.gitUrl,
    ref: workspace.ref,
    target,
    allowLocal: policy.allowLocalGitUrls,
    allowedRoots: policy.allowedRoots,
    timeoutMs: policy.cloneTimeoutMs,
    signal,
    onProcess,
  });
  return await checkInsideRoots(target, [policy.workRoot], 'workspace');
}

/** The checked policy of a handler's options, and its start-up cleanup (leftover job workspaces in its clones). */
export function jobRepositoryPolicy(options: JobRepositoryOptions): { policy: WorkspacePolicy; start(context: { signal: AbortSignal }): Promise<void> } {
  const workRoot = resolve(options.workRoot ?? join(tmpdir(), 'troupe-worker'));
  if (options.allowedRoots !== undefined && (!Array.isArray(options.allowedRoots) || options.allowedRoots.some((root) => typeof root !== 'string' || root === ''))) {
    throw new InvalidArgumentError('allowedRoots', 'expected an array of folder paths');
  }
  const cloneTimeoutMs = options.cloneTimeoutMs ?? 600_000;
  if (!(Number.isInteger(cloneTimeoutMs) && cloneTimeoutMs > 0)) throw new InvalidArgumentError('cloneTimeoutMs', `expected a positive integer, got ${String(options.cloneTimeoutMs)}`);
  const maxResultBytes = options.maxResultBytes;
  if (maxResultBytes !== undefined && !(Number.isInteger(maxResultBytes) && maxResultBytes > 0)) throw new InvalidArgumentError('maxResultBytes', `expected a positive integer, got ${String(maxResultBytes)}`);
  const onReport = options.onWorkspaceGc ?? logJobWorkspaceGc;
  const policy: WorkspacePolicy = {
    workRoot,
    allowedRoots: (options.allowedRoots ?? [workRoot]).map((root) => resolve(root)),
    allowLocalGitUrls: options.allowLocalGitUrls === true,
    cloneTimeoutMs,
    maxResultBytes,
  };
  // The job clones in the work folder are this machine's own. A job's `path` repository may be shared with workers
  // on other machines, whose workspaces' processes cannot be checked from here: there the retry of a job cleans up
  // after its own earlier attempts (see runJobInWorkspace).
  return {
    policy,
    start: async ({ signal }) => {
      await collectJobWorkspaces(repositoriesUnder(workRoot), onReport, signal);
    },
  };
}

/**
 * Runs `run` with the job's repository folder, its agent processes recorded in the shared store under `namespace`
 * (a worker killed mid-job leaves its agent CLIs running: the retry stops them before it starts its own).
 */
export async function withJobRepository<T>(
  workspace: JobRepositorySpec,
  context: QueueJobContext,
  policy: WorkspacePolicy,
  namespace: readonly string[],
  run: (path: string) => Promise<T>,
): Promise<T> {
  const processes = [...namespace, 'processes'];
  await stopLeftoverJobProcesses(context.store, processes);
  const recorder = recordJobProcesses(context.store, processes);
  try {
    const path = await prepareWorkspace(workspace, context.jobId, policy, context.signal, (processId) => recorder.claimProcess(processId));
    recorder.claimFolder(path);
    return await run(path);
  } finally {
    await recorder.stop();
  }
}

/**
 * Runs `run` in a workspace of the job's repository copy `repo`, from `base`, and returns its value with the change
 * (see `runJobInWorkspace`). Refused before `run` starts: a folder that is not a repository, a base the copy lacks.
 */
export async function runInJobWorktree<T>(
  repo: string,
  job: { base?: string | undefined; changeFormat?: JobChangeFormat | undefined },
  context: QueueJobContext,
  policy: WorkspacePolicy,
  run: (path: string) => Promise<T>,
): Promise<{ value: T; workspace: JobWorkspaceResult }> {
  await checkJobRepository(repo, context.signal);
  return await runJobInWorkspace({ repo, jobId: context.jobId, base: job.base, format: job.changeFormat, maxResultBytes: policy.maxResultBytes, bus: context.eventBus, signal: context.signal }, run);
}
