import { execFile } from 'node:child_process';
import { AbortError } from '@troupe/core';
import { GitCommandError } from '@troupe/worktree';

/** Variables that would point git at another repository than the one named by `cwd` (set inside git hooks). */
const INHERITED_GIT_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX', 'GIT_OBJECT_DIRECTORY'];

/** Options of one {@link queueGit} call. */
export interface QueueGitOptions {
  cwd: string;
  /** Variables added to the cleaned environment (`GIT_INDEX_FILE` of a temporary index). */
  env?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Exit codes that are answers, not failures. */
  okCodes?: readonly number[];
}

/**
 * Runs git with arguments (never a shell) for the queue's bundle and patch steps, which `@troupe/worktree` does not
 * export a runner for; rejects with its {@link GitCommandError}. Returns stdout and the exit code.
 */
export function queueGit(args: readonly string[], options: QueueGitOptions): Promise<{ stdout: string; exitCode: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const name of INHERITED_GIT_VARIABLES) delete env[name];
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new AbortError(`git ${args[0] ?? ''} was aborted`, { cause: options.signal.reason }));
    execFile('git', [...args], { cwd: options.cwd, env: { ...env, ...options.env }, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', signal: options.signal, windowsHide: true }, (error, stdout, stderr) => {
      if (options.signal?.aborted) return reject(new AbortError(`git ${args[0] ?? ''} was aborted`, { cause: options.signal.reason }));
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      if (code === 0 || (code !== null && options.okCodes?.includes(code))) return resolve({ stdout, exitCode: code });
      reject(new GitCommandError(args, code, stderr || (error && typeof error.code === 'string' ? `${error.code}: ${error.message}` : ''), { cause: error }));
    });
  });
}

/** {@link queueGit}'s stdout without its trailing newline. */
export async function queueGitText(args: readonly string[], options: QueueGitOptions): Promise<string> {
  return (await queueGit(args, options)).stdout.replace(/\n$/, '');
}

/** The full id of `revision` as a commit in `cwd`, or undefined when the repository has no such commit. */
export async function resolveCommit(cwd: string, revision: string, signal?: AbortSignal): Promise<string | undefined> {
  const found = await queueGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], { cwd, signal, okCodes: [1, 128] });
  return found.exitCode === 0 ? found.stdout.trim() : undefined;
}
