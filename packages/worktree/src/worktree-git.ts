import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AbortError } from '@troupe/core/errors';
import { GitCommandError } from './worktree-errors';

/** Options of one git call. */
export interface GitOptions {
  /** Folder git runs in. */
  cwd: string;
  /** Variables added to the cleaned environment (e.g. `GIT_INDEX_FILE`). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Exit codes that are answers, not failures (e.g. `1` of `git diff --quiet`). */
  okCodes?: readonly number[];
}

/** What a git call printed and how it exited. */
export interface GitOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

// Variables that would point git at another repository, index or worktree than the one named by `cwd`
// (they are set when Troupe itself runs inside a git hook).
const INHERITED_GIT_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX', 'GIT_OBJECT_DIRECTORY'];

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const name of INHERITED_GIT_VARIABLES) delete env[name];
  return { ...env, ...extra };
}

/** Runs git with arguments (never a shell); rejects with a {@link GitCommandError} on a failing exit. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new AbortError(`git ${args[0] ?? ''} was aborted`, { cause: options.signal.reason }));
      return;
    }
    execFile(
      'git',
      [...args],
      { cwd: options.cwd, env: gitEnv(options.env), maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', signal: options.signal, windowsHide: true },
      (error, stdout, stderr) => {
        if (options.signal?.aborted) {
          reject(new AbortError(`git ${args[0] ?? ''} was aborted`, { cause: options.signal.reason }));
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (code === 0 || (code !== null && options.okCodes?.includes(code))) {
          resolve({ stdout, stderr, exitCode: code });
          return;
        }
        const spawnFailure = error && typeof error.code === 'string' ? `${error.code}: ${error.message}` : '';
        reject(new GitCommandError(args, code, stderr || spawnFailure, { cause: error }));
      },
    );
  });
}

/** Runs git and returns its stdout without the trailing newline. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).stdout.replace(/\n$/, '');
}

/**
 * True when git's failure is a race with another git process, to retry rather than report: one of git's lock files
 * was held, or another worktree's bookkeeping (`.git/worktrees/<name>/`) was half-written or half-removed when this one read it.
 */
export function isGitLockRace(error: unknown): boolean {
  if (!(error instanceof GitCommandError)) return false;
  return (
    /\.lock'?:? File exists|Unable to create '[^']*\.lock'|could not lock config file|cannot lock ref .*(\.lock|unable to create)/i.test(error.stderr) ||
    /failed to read .*worktrees\/[^/]+\/(commondir|gitdir|HEAD)/.test(error.stderr) ||
    // Another process's `git worktree prune` took this one's bookkeeping while `worktree add` was making it.
    /could not open '[^']*worktrees\/[^/']+\/(locked|gitdir|commondir|HEAD)' for writing/.test(error.stderr) ||
    // Another process removed its worktree's bookkeeping while this one listed the worktrees (`git branch -D` checks
    // that no worktree has the branch checked out).
    /Invalid path '[^']*worktrees\/[^/']+'/.test(error.stderr)
  );
}

/** A linked worktree's own git dir, named by its `.git` file (read without starting git); `undefined` when it has none. */
export async function linkedGitDir(worktree: string): Promise<string | undefined> {
  const gitFile = await readFile(join(worktree, '.git'), 'utf8').catch(() => '');
  const gitDir = /^gitdir: (.+)$/m.exec(gitFile)?.[1]?.trim();
  return gitDir ? resolve(worktree, gitDir) : undefined;
}
