import { markerHost, readMarkers } from './worktree-marker';
import { readRepo } from './worktree-repo';

/** One workspace of a repository, as its marker describes it ({@link listWorkspaces}). */
export interface WorkspaceListing {
  /** The workspace's name. */
  name: string;
  /** Its branch. */
  branch: string;
  /** Its folder. */
  path: string;
  /** The commit it was made from. */
  baseCommit: string;
  /** The process that made it. */
  hostPid: number;
  /** The machine it runs on, when the marker names one. */
  hostName?: string;
  /** When it was made (ms since the epoch; `NaN` when the marker holds no valid time). */
  createdAt: number;
  /** That process is still running, or runs on another machine (where it cannot be looked up from here). */
  hostAlive: boolean;
}

/**
 * The workspaces made in `repo`'s repository (from any of its checkouts), read from their markers, oldest first.
 * Read-only: it starts no git process beyond finding the repository. What `troupe workspaces list` shows; use
 * {@link gcWorkspaces} to clean up the leftovers of dead hosts.
 *
 * @throws InvalidArgumentError naming `repo` when it is not a usable git checkout.
 * @example
 * ```ts
 * for (const ws of await listWorkspaces({ repo: '.' })) console.log(ws.name, ws.branch, ws.hostAlive ? 'running' : 'left over');
 * ```
 */
export async function listWorkspaces(options: { repo: string; signal?: AbortSignal }): Promise<WorkspaceListing[]> {
  const info = await readRepo(options.repo, options.signal);
  return (await readMarkers(info.workspacesDir))
    .map((marker) => ({
      name: marker.name,
      branch: marker.branch,
      path: typeof marker.path === 'string' ? marker.path : '',
      baseCommit: typeof marker.baseCommit === 'string' ? marker.baseCommit : '',
      hostPid: marker.hostPid,
      ...(typeof marker.hostName === 'string' ? { hostName: marker.hostName } : {}),
      createdAt: typeof marker.createdAt === 'string' ? Date.parse(marker.createdAt) : Number.NaN,
      hostAlive: markerHost(marker) !== 'gone',
    }))
    .sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
}
