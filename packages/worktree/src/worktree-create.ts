import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, cp, mkdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, ProcessError } from '@troupe/core/errors';
import { hostSecretRedactor } from '@troupe/core/util';
import { GitCommandError } from './worktree-errors';
import { gitText, runGit } from './worktree-git';
import { removeMarker, thisHost, writeMarker } from './worktree-marker';
import { readRepo, type RepoInfo } from './worktree-repo';
import { withRepoLock } from './worktree-repo-queue';
import { claimSpare, resetSpare } from './worktree-spares';
import { checkOutSubmodules } from './worktree-submodules';

/** What to prepare in a new workspace before an agent runs in it. */
export interface WorkspaceSetup {
  /**
   * Untracked files of the parent checkout to copy in (paths relative to it, e.g. `.env`): a worktree holds only
   * tracked files, and an agent often needs the local configuration the user keeps out of git.
   */
  copy?: string[];
  /** A command run in the workspace, as argv (no shell), e.g. `['npm', 'ci']`. A failure removes the workspace. */
  command?: string[];
}

/** Options of {@link createWorkspace}. */
export interface CreateWorkspaceOptions {
  /** A checkout of the repository: the main one, a linked worktree, on any branch or a detached `HEAD`. */
  repo: string;
  /** The commit-ish the workspace starts from. Default: `HEAD` of the checkout `repo` points at (not the default branch). */
  base?: string;
  /** The workspace's name: its folder and its branch `troupe/<name>`. Letters, digits, `.`, `_`, `-`. Default: a random one. */
  name?: string;
  /** Files to copy in and a command to run before the agent starts. */
  setup?: WorkspaceSetup;
  /** Stops the creation; a half-made workspace is removed. */
  signal?: AbortSignal;
}

/** A workspace: a linked worktree on its own branch, which an agent may change freely. */
export interface Workspace {
  /** Its name, unique in the repository: the folder's and the branch's last part. */
  name: string;
  /** The workspace folder: the agent's working directory. */
  path: string;
  /** Its branch, `troupe/<name>`. */
  branch: string;
  /** The commit it started from; its result's diff is taken against it. */
  baseCommit: string;
  /** The checkout it was made from (top level). */
  repo: string;
  /**
   * Files `setup.copy` put in (e.g. `.env`): left out of its diff, its commits and the leftover check of
   * {@link gcWorkspaces}, so local configuration and its secrets never reach a branch.
   */
  setupFiles?: string[];
}

/**
 * The pathspec of an agent's own changes in a workspace: everything but the files its setup copied in. Files git
 * ignores anyway are left out of it (`git add` refuses a pathspec that names an ignored file).
 */
export async function agentPathspec(ws: Pick<Workspace, 'setupFiles' | 'path'>, signal?: AbortSignal): Promise<string[]> {
  const files = ws.setupFiles ?? [];
  if (files.length === 0) return ['--', ':(top)'];
  const checked = await runGit(['check-ignore', '--no-index', '--', ...files], { cwd: ws.path, signal, okCodes: [1] });
  const ignored = new Set(checked.stdout.split('\n'));
  return ['--', ':(top)', ...files.filter((file) => !ignored.has(file)).map((file) => `:(top,exclude,literal)${file}`)];
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function checkName(name: string): void {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.endsWith('.lock') || name.includes('..')) {
    throw new InvalidArgumentError('name', `"${String(name)}" is not a workspace name (letters, digits, ".", "_", "-", at most 100, not ending in ".lock")`);
  }
}

async function resolveBase(info: RepoInfo, repo: string, base: string, signal?: AbortSignal): Promise<string> {
  try {
    return await gitText(['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`], { cwd: repo, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    const what = base === 'HEAD' ? `${info.topLevel} has no commit yet (HEAD is unborn)` : `"${base}" names no commit in ${info.topLevel}`;
    throw new InvalidArgumentError('base', what, { cause: error });
  }
}

// Keeps the workspaces folder out of the parent's `git status` without touching a tracked file.
async function ensureExcluded(info: RepoInfo): Promise<void> {
  const excludeFile = join(info.commonDir, 'info', 'exclude');
  const line = '/.troupe/workspaces/';
  const current = await readFile(excludeFile, 'utf8').catch(() => '');
  if (current.split('\n').includes(line)) return;
  await mkdir(join(info.commonDir, 'info'), { recursive: true });
  await appendFile(excludeFile, `${current === '' || current.endsWith('\n') ? '' : '\n'}# Troupe workspaces (@troupe/worktree)\n${line}\n`);
}

/** The files of `setup.copy` as paths relative to the checkout, each checked to stay inside it. */
function setupFiles(from: string, files: readonly string[]): string[] {
  return files.map((file) => {
    const inside = relative(from, resolve(from, file));
    if (typeof file !== 'string' || isAbsolute(file) || inside.startsWith('..') || inside === '') throw new InvalidArgumentError('setup.copy', `"${String(file)}" is not a path inside ${from}`);
    return inside.split(sep).join('/');
  });
}

async function copyUntracked(from: string, to: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const source = join(from, file);
    if (!(await stat(source).catch(() => undefined))) throw new InvalidArgumentError('setup.copy', `${source} does not exist`);
    await cp(source, join(to, file), { recursive: true, force: true });
  }
}

function runSetupCommand(command: readonly string[], cwd: string, signal?: AbortSignal): Promise<void> {
  const [file, ...args] = command;
  if (!file) throw new InvalidArgumentError('setup.command', 'must name a program (argv form, e.g. ["npm", "ci"])');
  return new Promise((resolveRun, reject) => {
    execFile(file, args, { cwd, signal, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (!error) return resolveRun();
      const exitCode = typeof error.code === 'number' ? error.code : null;
      const stderrTail = hostSecretRedactor().redact(stderr.split('\n').slice(-20).join('\n'));
      reject(
        new ProcessError(`The workspace setup command ${file} failed (exit ${exitCode ?? error.code ?? 'signal'}): ${stderrTail.trim() || error.message}`, {
          command: file,
          exitCode,
          signal: (error.signal as NodeJS.Signals | undefined) ?? null,
          stderrTail,
          code: error.code === 'ENOENT' ? 'COMMAND_NOT_FOUND' : 'PROCESS_FAILED',
          cause: error,
        }),
      );
    });
  });
}

function branchTaken(workspace: Workspace, info: RepoInfo): string {
  return `the branch ${workspace.branch} already exists in ${info.topLevel}`;
}

/** Removes a workspace folder and branch created by a failed {@link createWorkspace}; the first error stays the one reported. */
async function undoCreate(info: RepoInfo, workspace: Workspace): Promise<void> {
  await withRepoLock(info.commonDir, async () => {
    await runGit(['worktree', 'remove', '--force', workspace.path], { cwd: info.topLevel }).catch(() => {});
    await runGit(['branch', '-D', workspace.branch], { cwd: info.topLevel }).catch(() => {});
  });
  await removeMarker(info.workspacesDir, workspace.name);
}

/**
 * Creates a workspace: a linked worktree on a new branch `troupe/<name>` from the caller's current `HEAD` (or
 * `base`), under `.troupe/workspaces/<name>` of the main checkout. The parent checkout's `HEAD`, branch, index,
 * stash and status stay as they were. Safe to call many times at once on one repository.
 *
 * @example
 * ```ts
 * const ws = await createWorkspace({ repo: process.cwd(), setup: { copy: ['.env'], command: ['npm', 'ci'] } });
 * // run an agent with cwd = ws.path, then workspaceResult(ws) and mergeWorkspace / removeWorkspace
 * ```
 */
export async function createWorkspace(options: CreateWorkspaceOptions): Promise<Workspace> {
  const { signal } = options;
  const info = await readRepo(options.repo, signal);
  const name = options.name ?? `ws-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  checkName(name);
  const baseCommit = await resolveBase(info, resolve(options.repo), options.base ?? 'HEAD', signal);
  const copied = setupFiles(info.topLevel, options.setup?.copy ?? []);
  const workspace: Workspace = { name, path: join(info.workspacesDir, name), branch: `troupe/${name}`, baseCommit, repo: info.topLevel, ...(copied.length > 0 ? { setupFiles: copied } : {}) };
  let marked = false;
  let started = false;
  const fromSpare = await withRepoLock(
    info.commonDir,
    async () => {
      if (await stat(workspace.path).catch(() => undefined)) {
        const taken = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${workspace.branch}`], { cwd: info.topLevel, okCodes: [1], signal });
        throw new InvalidArgumentError('name', taken.exitCode === 0 ? branchTaken(workspace, info) : `the folder ${workspace.path} already exists`);
      }
      await ensureExcluded(info);
      // The marker before anything git makes: a host killed at any later step leaves a marker that names what
      // gcWorkspaces must clean up (a branch or folder made without one would never be found).
      if (!marked && !(await writeMarker(info.workspacesDir, { ...workspace, ...thisHost() }))) {
        throw new InvalidArgumentError('name', `a workspace named ${name} is recorded in ${info.workspacesDir} already (gcWorkspaces removes it once its host is gone)`);
      }
      marked = true;
      // The branch first, on its own: a ref transaction is all-or-nothing, so a lock race leaves nothing to undo
      // and the step can be retried (`worktree add -b` can make the branch and then fail).
      await runGit(['branch', '--no-track', workspace.branch, baseCommit], { cwd: info.topLevel, signal }).catch((error: unknown) => {
        if (error instanceof GitCommandError && /already exists/.test(error.stderr)) throw new InvalidArgumentError('name', branchTaken(workspace, info), { cause: error });
        throw error;
      });
      started = true;
    },
    signal,
  )
    // Only the bookkeeping under the lock; the files are checked out below, so creations of large repositories
    // write their files side by side instead of one after another.
    // A spare folder of an earlier workspace, when the repository keeps some (`removeWorkspace`'s `spares`), saves
    // writing every file again: only what differs from the new base is rewritten.
    .then(() =>
      withRepoLock(
        info.commonDir,
        async () => {
          if (await claimSpare(info, workspace.path, signal)) return true;
          await runGit(['worktree', 'add', '--quiet', '--no-checkout', workspace.path, workspace.branch], { cwd: info.topLevel, signal });
          return false;
        },
        signal,
      ),
    )
    .catch(async (error: unknown) => {
      // A failed or aborted `worktree add`: take back the branch and whatever of the folder it made.
      if (started) await undoCreate(info, workspace);
      else if (marked) await removeMarker(info.workspacesDir, workspace.name);
      throw error;
    });
  try {
    if (fromSpare) await resetSpare(workspace.path, workspace.branch, signal);
    else await runGit(['reset', '--hard', '--quiet'], { cwd: workspace.path, signal });
    await checkOutSubmodules(info.topLevel, workspace.path, signal);
    if (copied.length > 0) await copyUntracked(info.topLevel, workspace.path, copied);
    if (options.setup?.command) await runSetupCommand(options.setup.command, workspace.path, signal);
  } catch (error) {
    await undoCreate(info, workspace);
    throw error;
  }
  return workspace;
}
