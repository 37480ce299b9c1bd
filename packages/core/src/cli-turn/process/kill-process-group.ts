import { readdirSync, readFileSync } from 'node:fs';
import { processSingleton } from '../../util/process-singleton';

/**
 * Live process groups started by Troupe, killed if the host process exits.
 * One set per process, shared by every copy of core (ESM and CJS builds).
 */
const tracked = processSingleton('core.process-groups.v1', () => ({ groups: new Set<number>(), exitHookInstalled: false }));
const liveGroups = tracked.groups;

function installExitHook(): void {
  if (tracked.exitHookInstalled) return;
  tracked.exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

/** Remembers a process group so it is killed if the host exits first. */
export function trackProcessGroup(pgid: number): void {
  installExitHook();
  liveGroups.add(pgid);
}

/** Forgets a process group (it is gone). */
export function untrackProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Number of process groups Troupe currently tracks (for leak checks in tests). */
export function trackedProcessGroupCount(): number {
  return liveGroups.size;
}

/** Ids of the process groups Troupe currently tracks (for leak checks in tests). */
export function trackedProcessGroups(): number[] {
  return [...liveGroups];
}

/**
 * Sends a signal to every process in a group. Returns false when the group
 * no longer exists. Never throws.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any process of the group is alive. Zombies (dead, waiting to be
 * reaped by init, which some container inits do slowly) do not count.
 */
export function isGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  return groupHasLiveMember(pgid);
}

/** Linux: the pids listed in `/proc` (other than this process), or `undefined` when it cannot be read. */
export function procPids(): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code >= 48 && code <= 57 && Number(entry) !== process.pid) pids.push(Number(entry));
  }
  return pids;
}

/** Linux: scans /proc for a member of the group that is not a zombie. */
function groupHasLiveMember(pgid: number): boolean {
  const pids = procPids();
  if (pids === undefined) return true;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    // Format: pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/**
 * Terminates a whole process group: SIGTERM, then SIGKILL after `graceMs`
 * if anything is still alive (the Gemini CLI's parent ignores SIGTERM).
 * Resolves once the group is gone, or after the SIGKILL.
 */
export async function terminateProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) {
    untrackProcessGroup(pgid);
    return;
  }
  const deadline = Date.now() + graceMs;
  let wait = 5;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(1, deadline - Date.now()))));
    if (!isGroupAlive(pgid)) {
      untrackProcessGroup(pgid);
      return;
    }
    wait = Math.min(wait * 2, 50);
  }
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL cannot be ignored; give the kernel a moment to reap.
  for (let i = 0; i < 100 && isGroupAlive(pgid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  untrackProcessGroup(pgid);
}
