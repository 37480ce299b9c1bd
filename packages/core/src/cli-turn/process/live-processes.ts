import { terminateProcessGroup } from './kill-process-group';
import { processStartTime, sweepRunTokens } from './process-sweep';

/**
 * One agent process Troupe started and that has not been reaped yet. Enough
 * to find it again from another process after this one died (`kill -9`):
 * the pid with its start time (pids are reused) and the run token its
 * descendants carry.
 */
export interface LiveProcessRecord {
  /** Troupe's id of the process (`proc-N`). */
  processId: string;
  /** OS pid, also its process group id. */
  pid: number;
  /** Start time (clock ticks since boot) on Linux; `undefined` elsewhere. */
  startTime: number | undefined;
  /** The token in its environment (`TROUPE_RUN_TOKENS`) and its descendants'. */
  token: string;
  /** The command (no arguments, secrets redacted). */
  command: string;
}

const live = new Map<string, LiveProcessRecord>();
const watchers = new Set<(records: LiveProcessRecord[]) => void>();

function notify(): void {
  if (watchers.size === 0) return;
  const records = liveProcesses();
  for (const watcher of watchers) {
    try {
      watcher(records);
    } catch (error) {
      process.emitWarning(`Troupe live-process watcher threw: ${String(error)}`, 'TroupeWarning');
    }
  }
}

/** @internal Records a spawned process. */
export function addLiveProcess(record: Omit<LiveProcessRecord, 'startTime'>): void {
  live.set(record.processId, { ...record, startTime: watchers.size > 0 ? processStartTime(record.pid) : undefined });
  notify();
}

/** @internal Forgets a process once it and its descendants are gone. */
export function removeLiveProcess(processId: string): void {
  if (live.delete(processId)) notify();
}

/** The agent processes this Troupe process started that are still running (or not yet reaped). */
export function liveProcesses(): LiveProcessRecord[] {
  return [...live.values()].map((record) => {
    if (record.startTime === undefined) record.startTime = processStartTime(record.pid);
    return { ...record };
  });
}

/**
 * Calls `listener` with the full list of live agent processes each time one
 * starts or ends (e.g. to record them with a session, so that the next run
 * can stop what a killed runner left). Returns the unregister function.
 *
 * @example
 * ```ts
 * const stop = watchLiveProcesses((records) => void store.put(['session'], 'agent-processes', records));
 * ```
 */
export function watchLiveProcesses(listener: (records: LiveProcessRecord[]) => void): () => void {
  if (typeof listener !== 'function') throw new TypeError('watchLiveProcesses: expected a function');
  watchers.add(listener);
  return () => {
    watchers.delete(listener);
  };
}

/**
 * Stops processes recorded by another Troupe process that died without
 * cleaning up (see {@link watchLiveProcesses}): each recorded leader whose pid
 * still has the recorded start time gets its process group terminated, then
 * every process that carries one of the recorded run tokens (descendants
 * that left the group included) is killed. Linux only: elsewhere a pid
 * cannot be told from a reused one and nothing is killed. Resolves with the
 * number of processes stopped.
 */
export async function stopLeftoverProcesses(records: readonly LiveProcessRecord[], options: { graceMs?: number } = {}): Promise<number> {
  const graceMs = options.graceMs ?? 2000;
  let stopped = 0;
  for (const record of records) {
    if (record.startTime === undefined || !Number.isInteger(record.pid) || record.pid <= 1) continue;
    if (processStartTime(record.pid) !== record.startTime) continue; // gone, or the pid now belongs to another process
    stopped++;
    await terminateProcessGroup(record.pid, graceMs);
  }
  const tokens = records.map((record) => record.token).filter((token) => typeof token === 'string' && token.length >= 8);
  return stopped + (await sweepRunTokens(tokens, graceMs));
}
