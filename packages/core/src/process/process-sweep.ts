import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
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

function isPidEntry(entry: string): boolean {
  const code = entry.charCodeAt(0);
  return code >= 48 && code <= 57;
}

function matches(environ: Buffer, needles: readonly Buffer[]): boolean {
  for (const needle of needles) if (environ.includes(needle)) return true;
  return false;
}

/** Pids (other than this process) whose environment holds one of the tokens. Zombies have an empty environment and never match. */
export async function findTokenPids(tokens: readonly string[]): Promise<number[]> {
  if (!canSweepByToken || tokens.length === 0) return [];
  const needles = tokens.map((token) => Buffer.from(token));
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = entries.filter(isPidEntry).map(Number).filter((pid) => pid !== process.pid);
  const found: number[] = [];
  // A few reads in flight at once: fast, without using a file descriptor per process.
  let next = 0;
  const worker = async () => {
    while (next < pids.length) {
      const pid = pids[next++] as number;
      try {
        if (matches(await readFile(`/proc/${pid}/environ`), needles)) found.push(pid);
      } catch {
        // exited meanwhile, or another user's process
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return found;
}

/** Synchronous {@link findTokenPids}, for the host's `exit` hook. */
export function findTokenPidsSync(tokens: readonly string[]): number[] {
  if (!canSweepByToken || tokens.length === 0) return [];
  const needles = tokens.map((token) => Buffer.from(token));
  return (procPids() ?? []).filter((pid) => {
    try {
      return matches(readFileSync(`/proc/${pid}/environ`), needles);
    } catch {
      return false; // exited meanwhile, or another user's process
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills every process that still carries one of the tokens: SIGTERM, then
 * SIGKILL to whatever is left after `graceMs`, scanning again for processes
 * forked meanwhile. Resolves with the number of processes found. Linux only
 * (elsewhere resolves 0 at once).
 */
export async function sweepRunTokens(tokens: readonly string[], graceMs: number): Promise<number> {
  const found = new Set<number>();
  let pids = await findTokenPids(tokens);
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
    pids = await findTokenPids(tokens);
    for (const pid of pids) {
      if (!found.has(pid)) signalPid(pid, 'SIGTERM');
      found.add(pid);
    }
  }
  // SIGKILL cannot be ignored; a process forking while we kill is caught by the next pass.
  for (let pass = 0; pass < 20 && pids.length > 0; pass++) {
    for (const pid of pids) {
      found.add(pid);
      signalPid(pid, 'SIGKILL');
    }
    await sleep(10);
    pids = await findTokenPids(tokens);
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
