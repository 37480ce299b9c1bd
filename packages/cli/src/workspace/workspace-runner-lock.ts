import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Store } from '@troupe/core/store';
import { workspaceNamespace } from './troupe-workspace';
import { isProcessAlive } from '@troupe/core/util';

/** Who runs the workspace's Looper right now; stored in the workspace database. */
export interface RunnerRecord {
  pid: number;
  hostname: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** Where its control socket listens. */
  socketPath: string;
  sessionId: string;
  /** `looper` (a `troupe looper` run) or `interactive`. */
  mode: 'looper' | 'interactive';
  /** Identifies this holder (pids get reused). */
  token: string;
}

export { isProcessAlive };

/** True when the record's process is alive (records from another host count as alive: we cannot tell). */
export function isRunnerAlive(record: RunnerRecord): boolean {
  return record.hostname !== hostname() || isProcessAlive(record.pid);
}

/** A token for a new runner record. */
export function newRunnerToken(): string {
  return randomBytes(8).toString('hex');
}

/** The runner record, if any (alive or stale). */
export async function readRunner(store: Store): Promise<RunnerRecord | undefined> {
  return (await store.get<RunnerRecord>(workspaceNamespace(), 'runner'))?.value;
}

/** What {@link acquireRunner} did. */
export type AcquireRunnerResult =
  | { acquired: true; /** A dead holder that was replaced (its socket file may be left over). */ stale: RunnerRecord | undefined }
  | { acquired: false; holder: RunnerRecord };

/**
 * Claims the workspace for this process: one running Looper per workspace.
 * Atomic across processes (one SQLite write transaction): of two processes
 * claiming at once, one wins and the other sees it as the holder. A record
 * left by a process that died (`kill -9`) is taken over.
 */
export async function acquireRunner(store: Store, record: Omit<RunnerRecord, 'pid' | 'hostname'>): Promise<AcquireRunnerResult> {
  return store.transaction(async (tx) => {
    const existing = (await tx.get<RunnerRecord>(workspaceNamespace(), 'runner'))?.value;
    if (existing && existing.token !== record.token && isRunnerAlive(existing)) return { acquired: false, holder: existing };
    await tx.put(workspaceNamespace(), 'runner', { ...record, pid: process.pid, hostname: hostname() } satisfies RunnerRecord);
    return { acquired: true, stale: existing && existing.token !== record.token ? existing : undefined };
  });
}

/** Gives the workspace up, if this process (token) still holds it. */
export async function releaseRunner(store: Store, token: string): Promise<void> {
  await store.transaction(async (tx) => {
    const existing = (await tx.get<RunnerRecord>(workspaceNamespace(), 'runner'))?.value;
    if (existing?.token === token) await tx.delete(workspaceNamespace(), 'runner');
  });
}
