import { runGit } from './worktree-git';

/**
 * The committer identity for commits the package makes (leftovers, merges): the repository's own `user.name` /
 * `user.email` when set, otherwise "Troupe", so a commit never fails on a machine without a git identity.
 */
export async function commitIdentityEnv(cwd: string, signal?: AbortSignal): Promise<Record<string, string>> {
  const [name, email] = await Promise.all([
    runGit(['config', '--get', 'user.name'], { cwd, signal, okCodes: [1] }),
    runGit(['config', '--get', 'user.email'], { cwd, signal, okCodes: [1] }),
  ]);
  const env: Record<string, string> = {};
  const setName = process.env.GIT_AUTHOR_NAME ?? (name.stdout.trim() || 'Troupe');
  const setEmail = process.env.GIT_AUTHOR_EMAIL ?? (email.stdout.trim() || 'troupe@localhost');
  env.GIT_AUTHOR_NAME = setName;
  env.GIT_AUTHOR_EMAIL = setEmail;
  env.GIT_COMMITTER_NAME = process.env.GIT_COMMITTER_NAME ?? setName;
  env.GIT_COMMITTER_EMAIL = process.env.GIT_COMMITTER_EMAIL ?? setEmail;
  return env;
}
