import { runGit } from './worktree-git';

/**
 * The committer identity for commits the package makes (leftovers, merges): the repository's own `user.name` /
 * `user.email` when set, otherwise "Troupe", so a commit never fails on a machine without a git identity.
 */
export async function commitIdentityEnv(cwd: string, signal?: AbortSignal): Promise<Record<string, string>> {
  const found = await runGit(['config', '--get-regexp', '^user\\.(name|email)$'], { cwd, signal, okCodes: [1] });
  const value = (key: string) => found.stdout.split('\n').find((line) => line.startsWith(`${key} `))?.slice(key.length + 1).trim() ?? '';
  const env: Record<string, string> = {};
  const setName = process.env.GIT_AUTHOR_NAME ?? (value('user.name') || 'Troupe');
  const setEmail = process.env.GIT_AUTHOR_EMAIL ?? (value('user.email') || 'troupe@localhost');
  env.GIT_AUTHOR_NAME = setName;
  env.GIT_AUTHOR_EMAIL = setEmail;
  env.GIT_COMMITTER_NAME = process.env.GIT_COMMITTER_NAME ?? setName;
  env.GIT_COMMITTER_EMAIL = process.env.GIT_COMMITTER_EMAIL ?? setEmail;
  return env;
}
