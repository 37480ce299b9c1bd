import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from '@troupe/worktree';
import type { EvalTask } from './eval-task';

/** Where a task's trials start: a checkout and the commit their workspaces are made from. */
export interface EvalTaskRepo {
  repo: string;
  base: string | undefined;
  /** Deletes what was made for the task (nothing for a task that names its own repository). */
  dispose(): Promise<void>;
}

/** The identity the starting commit is made with (no global git config is assumed). */
const GIT_IDENTITY = ['-c', 'user.name=troupe-eval', '-c', 'user.email=eval@troupe.invalid', '-c', 'commit.gpgsign=false'];

/**
 * The repository a task's trials start from: the task's own `repo` at its commit, or a new temporary repository
 * holding its `files/` in one commit (made once per eval, shared by its trials, each in its own workspace).
 */
export async function prepareTaskRepo(task: EvalTask, signal?: AbortSignal): Promise<EvalTaskRepo> {
  if (task.repo) return { repo: task.repo.path, base: task.repo.commit, dispose: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), `troupe-eval-${task.id.slice(0, 40)}-`));
  try {
    await cp(task.filesDir!, dir, { recursive: true });
    await runGit(['init', '--quiet', '--initial-branch=main'], { cwd: dir, signal });
    await runGit(['add', '-A'], { cwd: dir, signal });
    await runGit([...GIT_IDENTITY, 'commit', '--quiet', '--allow-empty', '--no-verify', '-m', `eval task ${task.id}: starting files`], { cwd: dir, signal });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { repo: dir, base: undefined, dispose: () => rm(dir, { recursive: true, force: true }) };
}
