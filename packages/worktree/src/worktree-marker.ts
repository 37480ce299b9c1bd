import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '@troupe/core/util';

/** The marker of a workspace, read by {@link gcWorkspaces} after its host died. */
export interface WorkspaceMarker {
  name: string;
  path: string;
  branch: string;
  baseCommit: string;
  /** The process that created it; when it is gone, the workspace is a leftover. */
  hostPid: number;
  /** The machine that process runs on (markers of older versions have none: taken as this machine). */
  hostName?: string;
  /** ISO time of creation. */
  createdAt: string;
  /** Files the setup copied in: not the agent's work, so not a reason to keep the workspace. */
  setupFiles?: string[];
}

// Markers sit beside the workspace folders, not inside them: a file in the workspace would be part of its diff.
function markersDir(workspacesDir: string): string {
  return join(workspacesDir, '.markers');
}

/** Writes a new workspace's marker; `false` when one of that name exists already (its workspace is not gone). */
export async function writeMarker(workspacesDir: string, marker: WorkspaceMarker): Promise<boolean> {
  await mkdir(markersDir(workspacesDir), { recursive: true });
  try {
    await writeFile(join(markersDir(workspacesDir), `${marker.name}.json`), `${JSON.stringify(marker, null, 2)}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function removeMarker(workspacesDir: string, name: string): Promise<void> {
  await rm(join(markersDir(workspacesDir), `${name}.json`), { force: true });
}

/** Every readable marker; a file that is not a marker is skipped (it names no workspace to act on). */
export async function readMarkers(workspacesDir: string): Promise<WorkspaceMarker[]> {
  const files = await readdir(markersDir(workspacesDir)).catch(() => [] as string[]);
  const markers: WorkspaceMarker[] = [];
  for (const file of files.filter((name) => name.endsWith('.json'))) {
    try {
      const value = JSON.parse(await readFile(join(markersDir(workspacesDir), file), 'utf8')) as WorkspaceMarker;
      if (typeof value.name === 'string' && typeof value.hostPid === 'number' && typeof value.branch === 'string') markers.push(value);
    } catch {
      // A marker half-written by a killed host: its workspace is found by `git worktree prune` or by hand.
    }
  }
  return markers;
}

/**
 * Whether the marker's host still runs: `'elsewhere'` when it was made on another machine sharing this disk (its
 * process cannot be looked up from here, so it is never taken for gone).
 */
export function markerHost(marker: Pick<WorkspaceMarker, 'hostPid' | 'hostName'>): 'running' | 'gone' | 'elsewhere' {
  if (marker.hostName !== undefined && marker.hostName !== hostname()) return 'elsewhere';
  return marker.hostPid === process.pid || isProcessAlive(marker.hostPid) ? 'running' : 'gone';
}

/** This process as the host of a new marker. */
export function thisHost(): Pick<WorkspaceMarker, 'hostPid' | 'hostName' | 'createdAt'> {
  return { hostPid: process.pid, hostName: hostname(), createdAt: new Date().toISOString() };
}
