// Fuzz test of the dashboard's endpoints: for a few seconds, workers send random and malformed requests over raw
// sockets (garbage bytes, random methods and paths, foreign Host and Origin, bad tokens, huge headers, malformed
// and oversized bodies, abrupt closes, slow page streams, bursts of inputs), while valid requests interleaved with
// them must get their correct answers. Nothing may escape to the process (uncaughtException, unhandledRejection),
// no request that lacks the token, comes from a foreign Host or (for a POST) a foreign page may succeed, and none
// may make the handler fail (500).
// Rerun a failure with TROUPE_FUZZ_SEED=<the printed seed>.
import { connect, type Socket } from 'node:net';
import { EventBus } from '@troupe/core';
import { seededRandom, type SeededRandom } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { call, openStream } from '../testing/dashboard-test-kit';
import { serveDashboard, type ServedDashboard } from '../index';

const SEED = Number(process.env.TROUPE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const DURATION_MS = 4000;
const MAX_ROUNDS = 3000;
const WORKERS = 4;

/** A request the fuzzer built, and whether the dashboard may let it through. */
interface FuzzRequest {
  bytes: Buffer[];
  /** The token, Host and (for a state-changing method) Origin are right: the dashboard may answer 2xx. */
  admissible: boolean;
  /** Close the socket after sending (no reading). */
  abrupt: boolean;
}

const served: ServedDashboard[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const dashboard of served.splice(0)) await dashboard.close();
});

describe('dashboard endpoints under fuzzing', () => {
  it('answers valid requests correctly while random and malformed ones hit it, and never throws out of the process', { timeout: 120_000 }, async () => {
    console.log(`dashboard fuzz seed ${SEED} (rerun: TROUPE_FUZZ_SEED=${SEED})`);
    const escaped: unknown[] = [];
    const onEscape = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
    try {
      const commands: string[] = [];
      const looper = {
        command: (input: string) => {
          commands.push(input);
          if (input.includes('explode')) throw new Error('the Looper is gone');
          return { ok: true, text: 'queued' };
        },
      };
      const dashboard = await serveDashboard({ bus: new EventBus(), looper, maxPageBufferBytes: 256 * 1024 });
      served.push(dashboard);
      const root = `http://127.0.0.1:${dashboard.port}`;
      const reader = openStream(`${root}/events?token=${dashboard.token}`);
      await within(reader.snapshot, 'the first page snapshot');

      const refusedButAnswered2xx: string[] = [];
      const stats = { rounds: 0, valid: 0, statuses: new Map<string, number>() };
      const deadline = Date.now() + DURATION_MS;
      const worker = async (index: number) => {
        const random = seededRandom(SEED + index);
        while (Date.now() < deadline && stats.rounds < MAX_ROUNDS) {
          const round = stats.rounds++;
          if (round % 10 === 0) {
            await validRound(round);
            stats.valid++;
            continue;
          }
          const kind = random.int(10);
          if (kind === 0) {
            burst(random);
            continue;
          }
          if (kind === 1) {
            slowPage();
            continue;
          }
          const request = fuzzRequest(random, dashboard);
          const status = await exchange(dashboard.port, request);
          stats.statuses.set(status ?? 'none', (stats.statuses.get(status ?? 'none') ?? 0) + 1);
          if (!request.admissible && status?.startsWith('2')) refusedButAnswered2xx.push(Buffer.concat(request.bytes).subarray(0, 400).toString('latin1'));
        }
      };

      let markers = 0;
      // Valid requests, interleaved: the page, a command, a fresh stream's snapshot, an input reaching the reading page.
      const validRound = async (round: number) => {
        const page = await within(call(`${root}/?token=${dashboard.token}`), 'the page');
        expect(page.status).toBe(200);
        expect(page.body).toContain('<div id="app">');
        const task = `valid task ${round}`;
        const queued = await within(call(`${root}/api/looper`, { method: 'POST', headers: { authorization: `Bearer ${dashboard.token}`, origin: root }, body: JSON.stringify({ type: 'add_pending', task }) }), 'a command');
        expect(queued.status, queued.body).toBe(200);
        expect(JSON.parse(queued.body)).toEqual({ ok: true, text: 'queued' });
        expect(commands).toContain(JSON.stringify({ type: 'add_pending', task }));
        const queue = `marker-${markers++}`;
        dashboard.handler.push({ type: 'dashboard:queue-counts', timestamp: Date.now(), source: 'fuzz', payload: { queue, counts: { waiting: round } } });
        const seen = await within(reader.next((input) => (input.payload as { queue?: string }).queue === queue), `input ${queue} on the reading page`);
        expect(seen.payload).toMatchObject({ counts: { waiting: round } });
        const fresh = openStream(`${root}/events?token=${dashboard.token}`);
        const snapshot = await within(fresh.snapshot, 'a fresh snapshot');
        fresh.close();
        expect(snapshot.queues[queue]).toMatchObject({ waiting: round });
      };
      // Inputs in a burst (up to 128 KiB at once): slow pages fall behind and are disconnected; the reading page is not.
      const burst = (random: SeededRandom) => {
        for (let count = 1 + random.int(4); count > 0; count--) dashboard.handler.push({ type: 'dashboard:noise', timestamp: Date.now(), payload: { blob: 'n'.repeat(random.int(32 * 1024)) } });
      };
      // A page that asks for the stream and never reads.
      const slowPage = () => {
        if (sockets.size > 40) return;
        const socket = connect(dashboard.port, '127.0.0.1');
        sockets.add(socket);
        socket.on('error', () => {});
        socket.write(`GET /events?token=${dashboard.token} HTTP/1.1\r\nHost: 127.0.0.1:${dashboard.port}\r\n\r\n`);
        socket.pause();
      };

      await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
      await validRound(-1);
      console.log(`dashboard fuzz: ${stats.rounds} rounds (${stats.valid} valid), answers ${JSON.stringify(Object.fromEntries([...stats.statuses].sort()))}`);
      expect(refusedButAnswered2xx).toEqual([]);
      // A 500 is the handler failing on its input; every bad request has an answer of its own (400, 401, 403…).
      expect(stats.statuses.get('500') ?? 0).toBe(0);
      expect(stats.valid).toBeGreaterThan(0);
      reader.close();
    } finally {
      process.off('uncaughtException', onEscape);
      process.off('unhandledRejection', onEscape);
    }
    expect(escaped).toEqual([]);
  });
});

/** Sends the request's bytes and resolves with the status code of the answer (or undefined: none came). */
function exchange(port: number, request: FuzzRequest): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let idle: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(idle);
      clearTimeout(limit);
      socket.destroy();
      resolve(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
    };
    const limit = setTimeout(done, 1500);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', (chunk: Buffer) => {
      if (answer.length < 64) answer += chunk.toString('latin1');
      clearTimeout(idle);
      idle = setTimeout(done, 100);
    });
    socket.on('connect', () => {
      for (const part of request.bytes) socket.write(part);
      if (request.abrupt) done();
    });
  });
}

/** A random request: a few fields right or wrong at random, some of them malformed. */
function fuzzRequest(random: SeededRandom, dashboard: ServedDashboard): FuzzRequest {
  if (random.int(12) === 0) return { bytes: [random.bytes(1 + random.int(4096))], admissible: false, abrupt: random.int(2) === 0 };
  const own = `127.0.0.1:${dashboard.port}`;
  // Each field is right more often than not, so that many requests reach the body parser and the Looper.
  const rightOrWrong = <T,>(right: readonly T[], wrong: readonly T[]): T => (random.next() < 0.7 ? random.pick(right) : random.pick(wrong));
  const method = random.pick(['GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'BREW', 'G\u00e9T']);
  const path = rightOrWrong(['/', '/index.html', '/events', '/api/looper'], ['//', '/%', '/..%2f..%2fetc', `/${'a'.repeat(random.int(20_000))}`, '/events/../api/looper', '*', 'http://evil.example/api/looper', '/api/looper/']);
  const token = rightOrWrong<{ query: string; header?: string; right: boolean }>([
    { query: `token=${dashboard.token}`, right: true },
    { query: '', header: `Bearer ${dashboard.token}`, right: true },
  ], [
    { query: '', right: false },
    { query: 'token=', right: false },
    { query: `token=${dashboard.token.slice(1)}`, right: false },
    { query: `token=${dashboard.token}x`, right: false },
    { query: 'token=%ZZ', right: false },
    { query: '', header: `Basic ${dashboard.token}`, right: false },
    { query: `token=${'0'.repeat(64)}`, right: false },
  ]);
  const host = rightOrWrong<{ value?: string; right: boolean }>([
    { value: own, right: true },
    { value: `localhost:${dashboard.port}`, right: true },
  ], [
    { value: 'evil.example', right: false },
    { value: `evil.example:${dashboard.port}`, right: false },
    { value: `localhost:${dashboard.port + 1}`, right: false },
    { value: '', right: false },
    { value: 'x'.repeat(random.int(10_000)), right: false },
    { right: false },
  ]);
  const origin = rightOrWrong<{ value?: string; right: boolean }>([{ right: true }, { value: `http://${own}`, right: true }], [{ value: 'https://evil.example', right: false }, { value: 'null', right: false }]);
  const headers: string[] = [];
  if (host.value !== undefined) headers.push(`Host: ${host.value}`);
  if (token.header) headers.push(`Authorization: ${token.header}`);
  if (origin.value) headers.push(`Origin: ${origin.value}`);
  const crossSite = random.int(8) === 0;
  if (crossSite) headers.push('Sec-Fetch-Site: cross-site');
  if (random.int(10) === 0) headers.push(`X-Huge: ${'h'.repeat(20_000 + random.int(60_000))}`);
  if (random.int(10) === 0) headers.push(`X-Junk: ${random.bytes(40).toString('latin1').replace(/[\r\n]/g, ' ')}`);
  const body = random.pick([
    '',
    JSON.stringify({ type: 'add_pending', task: `fuzz task ${random.int(1000)}` }),
    JSON.stringify({ type: 'stop' }),
    JSON.stringify({ type: 'add_pending', task: 'explode' }),
    JSON.stringify({ type: 'start', task: 'x' }),
    JSON.stringify({ type: 'add_pending', task: 42 }),
    'null',
    '[]',
    '{"type":',
    '{"type":"add_pending","task":"\\ud800"}',
    random.bytes(random.int(2000)).toString('latin1'),
    'x'.repeat(64 * 1024 + random.int(200_000)),
  ]);
  const declared = random.int(8) === 0 ? body.length + 1 + random.int(5000) : body.length;
  if (method !== 'GET' || body) headers.push(random.int(10) === 0 ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`);
  if (random.int(2) === 0) headers.push('Connection: close');
  const target = path.startsWith('/') && token.query ? `${path}?${token.query}` : path;
  const head = Buffer.from(`${method} ${target} HTTP/1.${random.int(6) === 0 ? 0 : 1}\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1');
  const bytes = [head, Buffer.from(body, 'latin1')];
  // Cut it short: a request that stops in its head or its body.
  const abrupt = random.int(8) === 0;
  if (abrupt) {
    const all = Buffer.concat(bytes);
    bytes.splice(0, 2, all.subarray(0, random.int(all.length)));
  }
  const stateChanging = !['GET', 'HEAD', 'OPTIONS'].includes(method);
  return { bytes, admissible: token.right && host.right && (!stateChanging || (origin.right && !crossSite)), abrupt };
}

/** The promise, or a failure naming what did not come within a generous 20 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within 20 s: ${what}`)), 20_000);
    }),
  ]);
}
