import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { sep } from 'node:path';
import type { Namespace, Store } from '@troupe/core/store';
import { stopLeftoverProcesses, watchLiveProcesses, type LiveProcessRecord } from '@troupe/core/process-groups';

/** The agent processes one attempt of a job has running, kept in the shared store under the job. */
interface JobProcessesRecord {
  /** Which attempt wrote it (a fresh token per attempt). */
  ownerToken: string;
  /** The worker's pid, for messages. */
  workerPid: number;
  processes: LiveProcessRecord[];
}

const KEY = 'agent-processes';

/** Records a job's agent processes while its attempt runs (see {@link recordJobProcesses}). */
export interface JobProcessRecorder {
  /** From now on, processes whose working folder is inside `path` (the job's workspace) are the job's. */
  claimFolder(path: string): void;
  /** This process (Troupe's `proc-N` id), e.g. the clone's `git`, is the job's wherever it runs. */
  claimProcess(processId: string): void;
  /** Stops recording and removes the record: the attempt is over and its processes were stopped. */
  stop(): Promise<void>;
}

/** Linux: a process's working folder, or undefined when it cannot be read (gone, or not Linux). */
function workingFolder(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/**
 * Keeps, in the store every worker shares, the list of the agent processes
 * this worker runs for one job (pid, start time, run token), up to date as
 * they start and end. If the worker is killed (`kill -9`) its agent CLIs
 * live on (each has its own process group); the worker that retries the job
 * reads the list and stops them first ({@link stopLeftoverJobProcesses}), so
 * two Coders never work in the same workspace at once. Processes are the
 * job's when they run inside its workspace or were claimed by id, so jobs
 * sharing a worker keep separate lists.
 */
export function recordJobProcesses(store: Store, namespace: Namespace): JobProcessRecorder {
  const ownerToken = randomUUID();
  const folders: string[] = [];
  const claimed = new Set<string>();
  const cwdOf = new Map<string, string | undefined>();
  let all: LiveProcessRecord[] = [];
  let written = '';
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const update = () => {
    const live = new Set(all.map((record) => record.processId));
    for (const id of cwdOf.keys()) if (!live.has(id)) cwdOf.delete(id);
    const mine = all.filter((record) => {
      if (claimed.has(record.processId)) return true;
      if (!cwdOf.has(record.processId)) cwdOf.set(record.processId, workingFolder(record.pid));
      const cwd = cwdOf.get(record.processId);
      // Both are real paths (the kernel's, and the workspace checked with its symlinks resolved).
      return cwd !== undefined && folders.some((folder) => cwd === folder || cwd.startsWith(`${folder}${sep}`));
    });
    const signature = mine.map((record) => record.processId).join(',');
    if (signature === written) return;
    written = signature;
    // One write at a time, in order, so the stored list is always the latest.
    writing = writing.then(async () => {
      if (stopped) return;
      const record: JobProcessesRecord = { ownerToken, workerPid: process.pid, processes: mine };
      await store.put(namespace, KEY, record).catch(() => {});
    });
  };
  const unwatch = watchLiveProcesses((records) => {
    all = records;
    update();
  });
  return {
    claimFolder(path) {
      folders.push(path);
      update();
    },
    claimProcess(processId) {
      claimed.add(processId);
      update();
    },
    async stop() {
      unwatch();
      await writing;
      stopped = true;
      await store
        .transaction(async (tx) => {
          const current = (await tx.get<JobProcessesRecord>(namespace, KEY))?.value;
          if (current?.ownerToken === ownerToken) await tx.delete(namespace, KEY);
        })
        .catch(() => {});
    },
  };
}

/**
 * Stops the agent processes an earlier attempt of the job left running (its
 * worker died without cleaning up), checking each pid still is that process
 * (its start time) and sweeping its descendants by run token, then removes
 * the record. Resolves with how many processes were stopped and the dead
 * worker's pid, or undefined when nothing was recorded.
 */
export async function stopLeftoverJobProcesses(store: Store, namespace: Namespace): Promise<{ stopped: number; workerPid: number } | undefined> {
  const record = (await store.get<JobProcessesRecord>(namespace, KEY))?.value;
  if (!record) return undefined;
  const stopped = await stopLeftoverProcesses(Array.isArray(record.processes) ? record.processes : []);
  await store.transaction(async (tx) => {
    const current = (await tx.get<JobProcessesRecord>(namespace, KEY))?.value;
    if (current?.ownerToken === record.ownerToken) await tx.delete(namespace, KEY);
  });
  return { stopped, workerPid: record.workerPid };
}
