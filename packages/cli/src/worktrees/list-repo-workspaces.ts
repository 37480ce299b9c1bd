import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isProcessAlive } from '../workspace/workspace-runner-lock';

/** A workspace of a repository, as its marker describes it. */
export interface RepoWorkspace {
  name: string;
  branch: string;
  path: string;
  /** The process that made it. */
  hostPid: number;
  /** When it was made (ms since the epoch; NaN when the marker has no valid time). */
  createdAt: number;
  /** That process is still running. */
  hostAlive: boolean;
}

/** The main checkout of the repository `repo` is in (where `.troupe/workspaces/` lives, also from a linked worktree). */
function mainCheckout(repo: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error((stderr || error.message).trim(), { cause: error }));
      else resolve(dirname(stdout.trim()));
    });
  });
}

/**
 * The workspaces `@troupe/worktree` made in `repo`, read from their markers (`.troupe/workspaces/.markers/`), oldest
 * first. Read-only: `troupe workspaces list`. (The marker format is `@troupe/worktree`'s; a `listWorkspaces` there
 * would replace this.)
 *
 * @throws Error naming git's complaint when `repo` is not in a git repository.
 */
export async function listRepoWorkspaces(repo: string): Promise<RepoWorkspace[]> {
  const dir = join(await mainCheckout(repo), '.troupe', 'workspaces', '.markers');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith('.json'));
  const found: RepoWorkspace[] = [];
  for (const file of files) {
    try {
      const marker = JSON.parse(await readFile(join(dir, file), 'utf8')) as { name?: unknown; branch?: unknown; path?: unknown; hostPid?: unknown; createdAt?: unknown };
      if (typeof marker.name !== 'string' || typeof marker.branch !== 'string' || typeof marker.hostPid !== 'number') continue;
      found.push({
        name: marker.name,
        branch: marker.branch,
        path: typeof marker.path === 'string' ? marker.path : '',
        hostPid: marker.hostPid,
        createdAt: typeof marker.createdAt === 'string' ? Date.parse(marker.createdAt) : Number.NaN,
        hostAlive: marker.hostPid === process.pid || isProcessAlive(marker.hostPid),
      });
    } catch {
      // A marker half-written by a killed host names no workspace to show.
    }
  }
  return found.sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
}
