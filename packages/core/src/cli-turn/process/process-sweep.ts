import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { procPids } from './kill-process-group';

/**
 * Environment variable that marks every process of a run: each spawned agent
 * CLI gets a fresh token appended here (`:`-separated, so a Troupe running
 * inside an agent turn keeps its parent's token too), and every descendant
 * inherits it, including those that leave the process group with `setsid()`
 * or a double fork. After a run, `/proc/<pid>/environ` is searched for the
 * token and whatever still carries it is killed.
 */
export const RUN_TOKEN_ENV = 'TROUPE_RUN_TOKENS';

/** True where descendants can be found by their token (Linux, with `/proc`). */
export const canSweepByToken = process.platform === 'linux';

/** A fresh token for one run: `t<host pid>-<random>`. */
export function newRunToken(): string {
  return `t${process.pid}-${randomBytes(8).toString('hex')}`;
}

/** `env` with `token` appended to {@link RUN_TOKEN_ENV}. */
export function withRunToken(env: NodeJS.ProcessEnv, token: string): NodeJS.ProcessEnv {
  const existing = env[RUN_TOKEN_ENV];
  env[RUN_TOKEN_ENV] = existing ? `${existing}:${token}` : token;
  return env;
}

/** Tokens of runs whose leftovers were not swept yet; swept synchronously if the host exits first. */
const liveTokens = new Set<string>();
let exitHookInstalled = false;

/** Remembers a run's token so its processes are killed if the host exits before the run is swept. */
export function trackRunToken(token: string): void {
  liveTokens.add(token);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    if (liveTokens.size > 0) for (const pid of findTokenPidsSync([...liveTokens])) signalPid(pid, 'SIGKILL');
  });
}

/** Forgets a token (its run was swept). */
export function untrackRunToken(token: string): void {
  liveTokens.delete(token);
}

function signalPid(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Reused for every `/proc/<pid>/environ` read (reads are synchronous, so one buffer serves all). */
const environBuffer = Buffer.allocUnsafe(64 * 1024);

/** True when the process's environment holds one of the needles. Zombies (empty environment) and other users' processes never match. */
function environHolds(pid: number, needles: readonly Buffer[], longest: number): boolean {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return false; // exited meanwhile, or another user's process
  }
  try {
    let kept = 0;
    for (;;) {
      const read = readSync(fd, environBuffer, kept, environBuffer.length - kept, null);
      if (read === 0) return false;
      const view = environBuffer.subarray(0, kept + read);
      for (const needle of needles) if (view.includes(needle)) return true;
      // An environment longer than the buffer: keep the end, so a token across two reads is found.
      kept = Math.min(longest - 1, view.length);
      view.copyWithin(0, view.length - kept);
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Pids per event-loop turn: a scan never holds the loop for long. */
const SCAN_BATCH = 32;

/** Where to look: every pid, or (`above`) only pids allocated after a given one. */
export interface TokenScanOptions {
  /**
   * Only pids greater than this one: the descendants of a process started
   * recently all got higher pids (unless pids wrapped around, which
   * {@link descendantPidFloor} checks).
   */
  above?: number;
}

function candidatePids(entries: readonly string[], options: TokenScanOptions): number[] {
  const above = options.above ?? 0;
  const pids: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    if (pid > above && pid !== process.pid) pids.push(pid);
  }
  return pids;
}

/** Pids (other than this process) whose environment holds one of the tokens, reading a few at a time between event-loop turns. */
export async function findTokenPids(tokens: readonly string[], options: TokenScanOptions = {}): Promise<number[]> {
  if (!canSweepByToken || tokens.length === 0) return [];
  const needles = tokens.map((token) => Buffer.from(token));
  const longest = Math.max(...needles.map((needle) => needle.length));
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  const pids = candidatePids(entries, options);
  for (let index = 0; index < pids.length; index++) {
    if (index > 0 && index % SCAN_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    const pid = pids[index] as number;
    if (environHolds(pid, needles, longest)) found.push(pid);
  }
  return found;
}

/** Synchronous {@link findTokenPids}, for the host's `exit` hook. */
export function findTokenPidsSync(tokens: readonly string[]): number[] {
  if (!canSweepByToken || tokens.length === 0) return [];
  const needles = tokens.map((token) => Buffer.from(token));
  const longest = Math.max(...needles.map((needle) => needle.length));
  return (procPids() ?? []).filter((pid) => environHolds(pid, needles, longest));
}

/** Runs shorter than this scan only pids above their own (a long run may have seen pids wrap around). */
const SHORT_RUN_MS = 10_000;

/**
 * The lowest pid a descendant of `pid` (spawned `startedAt`, `performance.now()`
 * time) can have: `pid` itself when the run was short and pids have not
 * wrapped around since (the kernel's last allocated pid is still above it);
 * otherwise 0 (scan everything).
 */
export function descendantPidFloor(pid: number, startedAt: number): number {
  if (!canSweepByToken || performance.now() - startedAt > SHORT_RUN_MS) return 0;
  try {
    const lastPid = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'latin1').trim());
    return Number.isInteger(lastPid) && lastPid >= pid ? pid : 0;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills every process that still carries one of the tokens: SIGTERM, then
 * SIGKILL to whatever is left after `graceMs`, scanning again for processes
 * forked meanwhile. Resolves with the number of processes found. Linux only
 * (elsewhere resolves 0 at once).
 */
export async function sweepRunTokens(tokens: readonly string[], graceMs: number, options: TokenScanOptions = {}): Promise<number> {
  const found = new Set<number>();
  let pids = await findTokenPids(tokens, options);
  if (pids.length === 0) return 0;
  for (const pid of pids) {
    found.add(pid);
    signalPid(pid, 'SIGTERM');
  }
  const deadline = Date.now() + graceMs;
  let wait = 5;
  while (pids.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(wait, Math.max(1, deadline - Date.now())));
    wait = Math.min(wait * 2, 50);
    pids = await findTokenPids(tokens, options);
    for (const pid of pids) {
      if (!found.has(pid)) signalPid(pid, 'SIGTERM');
      found.add(pid);
    }
  }
  // SIGKILL cannot be ignored; a process forking while we kill is caught by the next pass.
  for (let pass = 0; pass < 20; pass++) {
    if (pids.length === 0) {
      // A child caught mid-fork or mid-exec (its environ briefly unreadable) would be missed: look once more.
      await sleep(20);
      pids = await findTokenPids(tokens, options);
      if (pids.length === 0) break;
    }
    for (const pid of pids) {
      found.add(pid);
      signalPid(pid, 'SIGKILL');
    }
    await sleep(10);
    pids = await findTokenPids(tokens, options);
  }
  return found.size;
}

/**
 * Start time of a process (clock ticks since boot, field 22 of
 * `/proc/<pid>/stat`), which with the pid identifies it even after the pid
 * is reused. `undefined` when unknown (not Linux, or the process is gone).
 */
export function processStartTime(pid: number): number | undefined {
  if (!canSweepByToken) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Format: pid (comm) state ppid … ; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
