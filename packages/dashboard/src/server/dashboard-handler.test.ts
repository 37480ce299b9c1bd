import { connect } from 'node:net';
import { ApprovalStore, EventBus, MemoryStore } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { call, gatedLooper, openStream } from '../testing/dashboard-test-kit';
import { createDashboardHandler, serveDashboard, type ServedDashboard } from '../index';

const served: ServedDashboard[] = [];
afterEach(async () => {
  for (const dashboard of served.splice(0)) await dashboard.close();
});
async function serve(options: Parameters<typeof serveDashboard>[0]) {
  const dashboard = await serveDashboard(options);
  served.push(dashboard);
  return dashboard;
}

describe('createDashboardHandler', () => {
  it('lists the pending approvals without their inputs and decides them as the dashboard (Allow/Deny)', async () => {
    const approvals = new ApprovalStore(new MemoryStore());
    const call1 = { id: 'toolu_1', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute' as const, input: { command: 'git push' }, target: 'git push' };
    const first = await approvals.putPending(call1);
    const second = await approvals.putPending({ ...call1, id: 'toolu_2', input: { command: 'rm -rf build' }, target: 'rm -rf build' });
    const dashboard = await serve({ bus: new EventBus(), approvals });
    const api = dashboard.url.replace('/?', '/api/approvals?');
    const listed = await call(api);
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).pending.map((item: { id: string; target: string }) => [item.id, item.target])).toEqual([[first.id, 'git push'], [second.id, 'rm -rf build']]);
    expect(listed.body).not.toContain('"input"');

    const post = (body: unknown) => call(api, { method: 'POST', body: JSON.stringify(body) });
    expect(JSON.parse((await post({ id: first.id, behavior: 'allow' })).body)).toMatchObject({ ok: true, decided: { id: first.id, behavior: 'allow', decidedBy: 'dashboard' } });
    expect(await post({ id: second.id, behavior: 'deny' })).toMatchObject({ status: 400, body: expect.stringContaining('needs a \\"reason\\"') });
    expect(await post({ id: second.id, behavior: 'maybe' })).toMatchObject({ status: 400 });
    expect((await post({ id: second.id, behavior: 'deny', reason: 'not from CI' })).status).toBe(200);
    expect(await post({ id: second.id, behavior: 'allow' })).toMatchObject({ status: 409, body: expect.stringContaining('already decided') });
    expect(JSON.parse((await call(api)).body).pending).toEqual([]);
    expect((await approvals.listAudit()).map((record) => [record.tool, record.behavior, record.decidedBy, record.reason])).toEqual([
      ['Bash', 'allow', 'dashboard', undefined],
      ['Bash', 'deny', 'dashboard', 'not from CI'],
    ]);
    // Without a store: 403; a page from elsewhere cannot decide (the POST guard of every route).
    const bare = await serve({ bus: new EventBus() });
    expect(JSON.parse((await call(bare.url.replace('/?', '/api/approvals?'))).body)).toEqual({ enabled: false, pending: [] });
    expect((await call(bare.url.replace('/?', '/api/approvals?'), { method: 'POST', body: '{}' })).status).toBe(403);
    expect((await call(api, { method: 'POST', headers: { origin: 'https://evil.example' }, body: '{}' })).status).toBe(403);
  });

  it('listens on 127.0.0.1 with a random port and token, and answers 401 without the token', async () => {
    const dashboard = await serve({ bus: new EventBus() });
    const other = await serve({ bus: new EventBus() });
    expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
    expect(other.token).not.toBe(dashboard.token);
    const root = `http://127.0.0.1:${dashboard.port}`;
    for (const path of ['/', '/events', '/api/looper']) {
      const missing = await call(`${root}${path}`);
      expect(missing.status).toBe(401);
      expect(JSON.parse(missing.body).error).toMatch(/access token/);
      expect(missing.body).not.toContain(dashboard.token);
      expect((await call(`${root}${path}?token=${other.token}`)).status).toBe(401);
    }
    const page = await call(dashboard.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-/);
    expect(page.body).toContain('<div id="app">');
    expect(page.body).not.toMatch(/<script[^>]+src=|(src|href)=["']?https?:/);
    expect((await call(`${root}/`, { headers: { authorization: `Bearer ${dashboard.token}` } })).status).toBe(200);
  });

  it('sends a snapshot with what the store holds, then the live events of a running Looper', async () => {
    const store = new MemoryStore();
    const first = gatedLooper({ store, maxIterations: 1 });
    first.looper.command({ type: 'start', task: 'Write the parser' });
    await first.coderWaiting();
    first.release();
    await first.looper.whenIdle();
    await first.looper.flush();

    const live = gatedLooper({ store });
    const dashboard = await serve({ bus: live.bus, store, looper: live.looper });
    const stream = openStream(dashboard.url.replace('/?', '/events?'));
    const snapshot = await stream.snapshot;
    expect(snapshot.looper.state).toBe('IDLE');
    expect(snapshot.looper.lastRun).toMatchObject({ outcome: first.looper.getStatus().lastRun?.outcome, iterations: 1 });
    expect(snapshot.looper.iterations).toHaveLength(1);
    expect(snapshot.looper.iterations[0]?.steps).toMatchObject({ coder: { status: 'success' }, review: { status: 'success', detail: 'normal' }, judge: { status: 'success' } });
    expect(snapshot.source).toMatchObject({ label: 'in process', controls: true });

    await live.looper.resume();
    live.looper.command({ type: 'start', task: 'Write the lexer' });
    const started = await stream.next((input) => input.type === 'looper:iteration-started');
    expect(started.payload).toMatchObject({ iteration: 1, task: 'Write the lexer' });
    await live.coderWaiting();
    live.release();
    await stream.next((input) => input.type === 'looper:step-completed');
    expect(dashboard.handler.state().looper.iterations.at(-1)?.steps.coder?.status).toBe('success');
    live.looper.command({ type: 'stop', now: true });
    await live.looper.whenIdle();
    stream.close();
  });

  it('takes add_pending and stop from the page, and refuses anything else with a clear error', async () => {
    const live = gatedLooper();
    const dashboard = await serve({ bus: live.bus, store: live.store, looper: live.looper });
    const api = dashboard.url.replace('/?', '/api/looper?');
    live.looper.command({ type: 'start', task: 'Write the lexer' });
    await live.coderWaiting();

    const queued = await call(api, { method: 'POST', body: JSON.stringify({ type: 'add_pending', task: 'Add tests' }) });
    expect(queued.status).toBe(200);
    expect(JSON.parse(queued.body)).toMatchObject({ ok: true });
    expect(live.looper.getStatus().pending.map((item) => item.task)).toEqual(['Add tests']);
    expect(dashboard.handler.state().looper.pending.map((item) => item.task)).toEqual(['Add tests']);

    for (const [body, message] of [
      ['{', /not JSON/],
      [JSON.stringify({ type: 'start', task: 'x' }), /unknown command type "start"/],
      [JSON.stringify({ type: 'add_pending', task: '  ' }), /non-empty "task"/],
      ['x'.repeat(70_000), /larger than/],
    ] as const) {
      const refused = await call(api, { method: 'POST', body });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error).toMatch(message);
    }
    expect((await call(api)).status).toBe(405);

    const stopped = await call(api, { method: 'POST', body: JSON.stringify({ type: 'stop' }) });
    expect(JSON.parse(stopped.body)).toMatchObject({ ok: true });
    expect(dashboard.handler.state().looper.stopRequested).toBe(true);
    live.release();
    await live.looper.whenIdle();
    expect(dashboard.handler.state().looper.lastRun?.outcome).toBe('stopped');
  });

  it('has no controls without a Looper, and serves under a base path in a host app', async () => {
    const bus = new EventBus();
    const handler = createDashboardHandler(bus, undefined, { basePath: '/ops/dashboard/' });
    const { createServer } = await import('node:http');
    const server = createServer((request, response) => {
      if (request.url?.startsWith('/ops/dashboard')) return handler(request, response);
      response.end('host app');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect((await call(`http://127.0.0.1:${port}/`)).body).toBe('host app');
      expect((await call(`http://127.0.0.1:${port}/ops/dashboard/?token=${handler.token}`)).status).toBe(200);
      const refused = await call(`http://127.0.0.1:${port}/ops/dashboard/api/looper?token=${handler.token}`, { method: 'POST', body: '{"type":"stop"}' });
      expect(refused.status).toBe(403);
      expect(handler.state().source.controls).toBe(false);
    } finally {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(() => createDashboardHandler(bus, undefined, { token: 'short' })).toThrow(/token/);
    expect(() => createDashboardHandler(bus, undefined, { basePath: 'ops' })).toThrow(/basePath/);
  });

  it('reads the usage ledger\'s stored records, and survives a store it cannot read', async () => {
    const store = new MemoryStore();
    const record = { id: 'r1', kind: 'agent-turn', timestamp: 1, source: 'claude', model: 'claude-opus-5-5', inputTokens: 24, outputTokens: 16, cachedInputTokens: 0, reasoningTokens: 0, costUsd: 0.000416, costSource: 'reported', agentId: 'looper-coder', runs: { looper: 'looper/run-1' } };
    await store.put(['sessions', 's1', 'usage'], 'r1', record);
    const handler = createDashboardHandler(new EventBus(), store, { usageNamespace: ['sessions', 's1', 'usage'] });
    await handler.ready;
    expect(handler.state().usage).toMatchObject({ source: 'ledger', agents: [{ agentId: 'looper-coder', calls: 1, inputTokens: 24, outputTokens: 16, costUsd: 0.000416, models: ['claude-opus-5-5'] }] });
    handler.close();

    const failures: string[] = [];
    const broken = Object.assign(new MemoryStore(), { list: () => Promise.reject(new Error('disk gone')) });
    const survivor = createDashboardHandler(new EventBus(), broken, { onError: (what, error) => failures.push(`${what}: ${(error as Error).message}`) });
    await survivor.ready;
    expect(failures).toEqual(['the Looper history: disk gone', 'the usage ledger: disk gone']);
    survivor.close();
  });

  it('leaves text deltas out of the stream', async () => {
    const bus = new EventBus();
    const dashboard = await serve({ bus });
    const stream = openStream(dashboard.url.replace('/?', '/events?'));
    await stream.snapshot;
    bus.emit('agent:part', { roleId: 'coder', part: { type: 'text-delta', text: 'hello' } });
    bus.emit('agent:part', { roleId: 'coder', part: { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 } } });
    bus.emit('agent:turn-completed', { roleId: 'coder', status: 'completed', durationMs: 5 });
    await stream.next((input) => input.type === 'agent:turn-completed');
    expect(stream.inputs.map((input) => input.type)).toEqual(['agent:part', 'agent:turn-completed']);
    expect(dashboard.handler.state().usage).toMatchObject({ source: 'turns', agents: [{ agentId: 'coder', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.01 }] });
    stream.close();
  });

  it('refuses a foreign Host and a POST from another page with 403, and still takes the token from curl', async () => {
    const commands: string[] = [];
    const looper = { command: (input: string) => (commands.push(input), { ok: true, text: 'queued' }) };
    const dashboard = await serve({ bus: new EventBus(), looper, allowedHosts: ['dash.example.com'] });
    const root = `http://127.0.0.1:${dashboard.port}`;
    const auth = { authorization: `Bearer ${dashboard.token}` };
    for (const host of ['evil.example', `evil.example:${dashboard.port}`, `localhost:${dashboard.port + 1}`]) {
      const refused = await call(`${root}/`, { headers: { ...auth, host } });
      expect(refused.status, host).toBe(403);
      expect(JSON.parse(refused.body).error).toMatch(/^forbidden Host .*allowedHosts/);
    }
    for (const host of [`localhost:${dashboard.port}`, `[::1]:${dashboard.port}`, 'dash.example.com']) expect((await call(`${root}/`, { headers: { ...auth, host } })).status, host).toBe(200);

    const post = (headers: Record<string, string>) => call(`${root}/api/looper`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify({ type: 'add_pending', task: 'from a page' }) });
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: `http://localhost:${dashboard.port + 1}` }, { origin: `http://127.0.0.1:${dashboard.port + 1}` }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const refused = await post(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(refused.body).error).toMatch(/^forbidden/);
    }
    expect(commands).toEqual([]);
    expect((await post({})).status).toBe(200);
    expect((await post({ origin: root, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(commands).toHaveLength(2);
    expect(() => createDashboardHandler(new EventBus(), undefined, { allowedHosts: ['http://dash.example.com'] })).toThrow(/allowedHosts\[0\]/);

    // Served on another address, the page is accepted under the address it prints.
    const elsewhere = await serve({ bus: new EventBus(), host: '127.0.0.2' });
    expect(elsewhere.url).toMatch(/^http:\/\/127\.0\.0\.2:/);
    expect((await call(elsewhere.url)).status).toBe(200);
  });

  it('disconnects a page that stops reading once its buffer passes the cap, while a reading page gets every input', { timeout: 60_000 }, async () => {
    const dashboard = await serve({ bus: new EventBus(), maxPageBufferBytes: 1024 * 1024 });
    const events = dashboard.url.replace('/?', '/events?');
    const reader = openStream(events);
    await reader.snapshot;
    // A client that sends its request, reads the first bytes (so the server holds its stream) and never reads again.
    const slow = connect(dashboard.port, '127.0.0.1');
    slow.write(`GET /events?token=${dashboard.token} HTTP/1.1\r\nHost: 127.0.0.1:${dashboard.port}\r\n\r\n`);
    let received = 0;
    await new Promise<void>((resolve) =>
      slow.once('data', (chunk: Buffer) => {
        received += chunk.length;
        slow.pause();
        resolve();
      }),
    );

    const blob = 'x'.repeat(256 * 1024);
    const frames = 160; // 40 MiB in all
    for (let index = 0; index < frames; index++) {
      dashboard.handler.push({ type: 'dashboard:noise', timestamp: Date.now(), payload: { index, blob } });
      // The reading page keeps up: each frame reaches it before the next is sent.
      await reader.next((input) => (input.payload as { index: number }).index === index);
    }

    // Now read what the server had for the slow client: a bounded amount, then the end of the stream.
    const burst = frames * blob.length;
    const outcome = await new Promise<string>((resolve) => {
      slow.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= burst) resolve('the slow client got the whole burst: the server buffered it all');
      });
      slow.on('close', () => resolve('disconnected'));
      slow.resume();
    });
    expect(outcome).toBe('disconnected');
    expect(received).toBeLessThan(burst / 2);
    reader.close();
  });

  it('checks maxPageBufferBytes', () => {
    for (const value of [0, -1, 1.5, Number.NaN]) expect(() => createDashboardHandler(new EventBus(), undefined, { maxPageBufferBytes: value }), String(value)).toThrow(/maxPageBufferBytes/);
  });
});
