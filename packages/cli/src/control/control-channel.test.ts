import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Message } from '@troupe/core';
import { MemoryStore } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireRunner } from '../workspace/workspace-runner-lock';
import { connectControl } from './control-client';
import { startControlServer, type ControlServer } from './control-server';
import { controlSocketPath } from './control-socket-path';
import { reachRunner } from './reach-runner';

const message: Message = { id: 'looper#1', channelId: 'looper', seq: 1, role: 'system', content: '[AUTO] Loop started', timestamp: 1 };

describe('control socket', () => {
  let dir: string;
  let server: ControlServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers requests over a Unix socket only its owner can use (0600), pushes events, and reports bad requests', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const socketPath = controlSocketPath(dir);
    expect(socketPath).toBe(join(dir, `control-${process.pid}.sock`));
    server = await startControlServer(socketPath, async (request, connection) => {
      if (request.op === 'looper') {
        if (request.input === 'boom') throw new Error('the Looper refused');
        return { echoed: request.input };
      }
      if (request.op === 'subscribe') {
        connection.push({ event: 'message', message });
        return { subscribed: true };
      }
      return { pong: true };
    });
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    const client = await connectControl(socketPath);
    const events: Message[] = [];
    client.onEvent((event) => events.push(event.message));
    expect(await client.request({ op: 'looper', input: '{"type":"status"}' })).toEqual({ echoed: '{"type":"status"}' });
    await expect(client.request({ op: 'looper', input: 'boom' })).rejects.toThrow('the Looper refused');
    expect(await client.request({ op: 'subscribe' })).toEqual({ subscribed: true });
    expect(events).toEqual([message]);
    client.close();
    await server.close();
    expect(existsSync(socketPath)).toBe(false);
    server = undefined;
  });

  it('a request can be aborted or time out; the connection keeps serving, and a closed connection rejects what is pending', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const socketPath = controlSocketPath(dir);
    // "hang" is answered only once its client has gone.
    server = await startControlServer(socketPath, (request, connection) =>
      request.op === 'looper' && request.input === 'hang' ? new Promise((resolve) => connection.onClose(() => resolve(null))) : Promise.resolve({ echoed: request.op }),
    );
    const client = await connectControl(socketPath);
    const controller = new AbortController();
    const aborted = client.request({ op: 'looper', input: 'hang' }, { abortSignal: controller.signal }).catch((error: unknown) => error);
    controller.abort(new Error('the user pressed Ctrl-C'));
    expect(await aborted).toMatchObject({ name: 'JsonLineRpcError', failure: 'aborted', code: 'ABORTED' });
    expect(await client.request({ op: 'looper', input: 'hang' }, { timeoutMs: 50 }).catch((error: unknown) => error)).toMatchObject({
      failure: 'timed-out',
      message: `the running troupe process's control socket did not answer "looper" within 50 ms`,
    });
    expect(await client.request({ op: 'ping' })).toEqual({ echoed: 'ping' });
    const pending = client.request({ op: 'looper', input: 'hang' }).catch((error: unknown) => error);
    client.close();
    expect(await pending).toMatchObject({ failure: 'closed', message: `the running troupe process's control socket closed before answering "looper"` });
  });

  it('uses a private temp folder when the workspace path is too long for a socket, and removes it on close', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const deep = join(dir, 'x'.repeat(90), '.troupe');
    const socketPath = controlSocketPath(deep);
    expect(dirname(dirname(socketPath))).toBe(tmpdir());
    expect(statSync(dirname(socketPath)).mode & 0o777).toBe(0o700);
    server = await startControlServer(socketPath, async () => ({ ok: true }));
    await server.close();
    server = undefined;
    expect(existsSync(dirname(socketPath))).toBe(false);
  });

  it('reachRunner: nobody holds the workspace → undefined; a live holder that never answers → one clear error', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const store = new MemoryStore();
    expect(await reachRunner(store)).toBeUndefined();
    await acquireRunner(store, { startedAt: 1, socketPath: join(dir, 'nobody.sock'), sessionId: 's', mode: 'looper', token: 't' });
    await expect(reachRunner(store, { patienceMs: 200 })).rejects.toThrow(
      new RegExp(`a troupe process \\(pid ${process.pid}\\) holds this workspace but does not answer on .*nobody\\.sock`),
    );
  });

  it('answers every one of 1,000 clients connecting at once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const socketPath = controlSocketPath(dir);
    let answered = 0;
    server = await startControlServer(socketPath, async (request) => {
      await new Promise((resolve) => setImmediate(resolve));
      answered++;
      return { echoed: request.op === 'looper' ? request.input : request.op };
    });
    const clients = Array.from({ length: 1000 }, async (_, index) => {
      const client = await connectControl(socketPath);
      try {
        return await client.request<{ echoed: string }>({ op: 'looper', input: `client ${index}` }, { timeoutMs: 30_000 });
      } finally {
        client.close();
      }
    });
    const results = await Promise.allSettled(clients);
    const failures = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    expect(results.map((result) => (result as PromiseFulfilledResult<{ echoed: string }>).value.echoed)).toEqual(results.map((_, index) => `client ${index}`));
    expect(answered).toBe(1000);
  }, 60_000);

  it('a client of a socket nobody listens on gets one clear error after retrying', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ctl-'));
    const error = await connectControl(join(dir, 'gone.sock'), { timeoutMs: 150 }).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).toMatch(/^cannot reach the running troupe process at .*gone\.sock \(ENOENT after \d+ attempts in \d+ ms\); retry, or check that it still runs$/);
  });
});
