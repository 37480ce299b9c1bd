import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { liveProcesses, runProcess, stopLeftoverProcesses, watchLiveProcesses, type LiveProcessRecord } from '@troupe/core/cli-turn';
import { fakeAgentProcessConfig, isProcessRunning } from '@troupe/core/testing';


function startTimeOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/** What a runner that died with `kill -9` leaves: an agent CLI in its own group, and a grandchild that left the group. */
async function orphanedAgent(token: string): Promise<{ leader: number; escaped: number }> {
  const script = `
    const { spawn } = require('node:child_process');
    const sleeper = 'process.on("SIGTERM",()=>{});setInterval(()=>{},1e6)';
    const escaped = spawn(process.execPath, ['-e', sleeper], { stdio: 'ignore', detached: true });
    escaped.unref();
    console.log(escaped.pid);
    setInterval(() => {}, 1e6);`;
  const leader = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, TROUPE_RUN_TOKENS: token } });
  leader.unref();
  const escaped = await new Promise<number>((resolve) => leader.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
  leader.stdout.destroy();
  return { leader: leader.pid as number, escaped };
}

describe.runIf(process.platform === 'linux')('live agent processes', () => {
  it('are reported to watchers with pid, start time and run token while they run', async () => {
    const seen: LiveProcessRecord[][] = [];
    const stop = watchLiveProcesses((records) => seen.push(records));
    try {
      const run = runProcess(fakeAgentProcessConfig({ lines: ['{"type":"result"}'], exitDelayMs: 100 }), { completion: { type: 'jsonl', completionTypes: ['result'] } });
      await run.outcome;
      const during = liveProcesses().find((record) => record.pid === run.pid);
      expect(during).toMatchObject({ pid: run.pid, command: process.execPath, startTime: startTimeOf(run.pid as number) });
      expect(during?.token).toMatch(/^t\d+-[0-9a-f]{16}$/);
      await run.exited;
      expect(liveProcesses().some((record) => record.pid === run.pid)).toBe(false);
      expect(seen.at(-1)?.some((record) => record.pid === run.pid)).toBe(false);
      expect(seen.some((records) => records.some((record) => record.pid === run.pid && record.startTime !== undefined))).toBe(true);
    } finally {
      stop();
    }
  });

  it('stopLeftoverProcesses stops what a dead runner recorded: the leader and a descendant that left its group', async () => {
    const token = `t999999-${'a1b2c3d4'.repeat(2)}`;
    const { leader, escaped } = await orphanedAgent(token);
    expect(isProcessRunning(leader) && isProcessRunning(escaped)).toBe(true);
    const stopped = await stopLeftoverProcesses([{ processId: 'proc-1', pid: leader, startTime: startTimeOf(leader), token, command: 'node' }], { graceMs: 200 });
    expect(stopped).toBeGreaterThanOrEqual(2);
    expect(isProcessRunning(leader)).toBe(false);
    expect(isProcessRunning(escaped)).toBe(false);
  });

  it('never kills a reused pid: a record whose start time does not match is skipped', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore', detached: true });
    try {
      const pid = other.pid as number;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const stopped = await stopLeftoverProcesses([{ processId: 'proc-9', pid, startTime: startTimeOf(pid) - 1, token: 't1-0000000000000000', command: 'node' }]);
      expect(stopped).toBe(0);
      expect(isProcessRunning(pid)).toBe(true);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
