import { spawnSync } from 'node:child_process';
import { MemoryStore } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { acquireRunner, isProcessAlive, readRunner, releaseRunner } from './workspace-runner-lock';

const record = (token: string) => ({ startedAt: 1, socketPath: `/tmp/${token}.sock`, sessionId: 's1', mode: 'looper' as const, token });

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout as unknown as number;
}

describe('workspace runner lock', () => {
  it('one holder at a time; the holder may re-claim; release only by its own token', async () => {
    const store = new MemoryStore();
    expect(await acquireRunner(store, record('a'))).toEqual({ acquired: true, stale: undefined });
    expect(await readRunner(store)).toMatchObject({ pid: process.pid, token: 'a', socketPath: '/tmp/a.sock' });
    // Another claimant (same live pid here, different token) is refused and told who holds it.
    expect(await acquireRunner(store, record('b'))).toMatchObject({ acquired: false, holder: { token: 'a' } });
    expect(await acquireRunner(store, record('a'))).toMatchObject({ acquired: true });
    await releaseRunner(store, 'b');
    expect((await readRunner(store))?.token).toBe('a');
    await releaseRunner(store, 'a');
    expect(await readRunner(store)).toBeUndefined();
  });

  it('takes over from a holder whose process died (kill -9 leaves its record behind)', async () => {
    const store = new MemoryStore();
    const pid = Number(deadPid());
    expect(isProcessAlive(pid)).toBe(false);
    await store.put(['troupe', 'workspace'], 'runner', { ...record('dead'), pid, hostname: (await import('node:os')).hostname() });
    const claim = await acquireRunner(store, record('new'));
    expect(claim).toMatchObject({ acquired: true, stale: { token: 'dead', pid } });
    expect((await readRunner(store))?.token).toBe('new');
  });
});
