import { stopLeftoverProcesses, watchLiveProcesses, type LiveProcessRecord } from '@troupe/core/process-groups';
import type { Store } from '@troupe/core/store';
import { workspaceNamespace } from './troupe-workspace';

/** The agent processes a runner has running, stored beside its lock. */
interface AgentProcessesRecord {
  /** The runner record's token (whose processes these are). */
  runnerToken: string;
  /** The runner's pid, for messages. */
  pid: number;
  sessionId: string;
  processes: LiveProcessRecord[];
}

const KEY = 'agent-processes';

/**
 * Keeps the workspace's record of this runner's agent processes (pid, start
 * time, run token) up to date as they start and end, so that if the runner
 * is killed (`kill -9`) the next runner can stop them before it resumes.
 * Returns a function that stops recording and removes the record.
 */
export function recordAgentProcesses(store: Store, owner: { runnerToken: string; sessionId: string }): () => Promise<void> {
  let latest: LiveProcessRecord[] | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;
  const write = () => {
    // One write at a time, always of the latest list (a burst of changes makes one write).
    writing = writing.then(async () => {
      const processes = latest;
      latest = undefined;
      if (processes === undefined || stopped) return;
      const record: AgentProcessesRecord = { runnerToken: owner.runnerToken, pid: process.pid, sessionId: owner.sessionId, processes };
      await store.put(workspaceNamespace(), KEY, record).catch(() => {});
    });
  };
  const unwatch = watchLiveProcesses((records) => {
    latest = records;
    write();
  });
  return async () => {
    unwatch();
    await writing;
    stopped = true;
    await store.transaction(async (tx) => {
      const existing = (await tx.get<AgentProcessesRecord>(workspaceNamespace(), KEY))?.value;
      if (existing?.runnerToken === owner.runnerToken) await tx.delete(workspaceNamespace(), KEY);
    }).catch(() => {});
  };
}

/**
 * Stops the agent processes recorded by a runner that died without cleaning
 * up (any runner but `ownToken`, which now holds the workspace), and removes
 * the record. Returns what was stopped, for a message; undefined when
 * nothing was recorded.
 */
export async function stopLeftoverAgentProcesses(store: Store, ownToken: string): Promise<{ stopped: number; pid: number } | undefined> {
  const record = (await store.get<AgentProcessesRecord>(workspaceNamespace(), KEY))?.value;
  if (!record || record.runnerToken === ownToken) return undefined;
  const stopped = await stopLeftoverProcesses(Array.isArray(record.processes) ? record.processes : []);
  await store.transaction(async (tx) => {
    const current = (await tx.get<AgentProcessesRecord>(workspaceNamespace(), KEY))?.value;
    if (current?.runnerToken === record.runnerToken) await tx.delete(workspaceNamespace(), KEY);
  });
  return { stopped, pid: record.pid };
}
