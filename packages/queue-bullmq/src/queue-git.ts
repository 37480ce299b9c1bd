import { runGit } from '@troupe/worktree';

/** The full id of `revision` as a commit in `cwd`, or undefined when the repository has no such commit. */
export async function resolveCommit(cwd: string, revision: string, signal?: AbortSignal): Promise<string | undefined> {
  const found = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], { cwd, signal, okCodes: [1, 128] });
  return found.exitCode === 0 ? found.stdout.trim() : undefined;
}
