import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TroupeError } from '@troupe/core/errors';
import { createJsonLineRpcClient, JsonLineRpcError, listenJsonLineRpc, REDACTED, type JsonLineRpcAnswer, type JsonLineRpcCheck, type JsonLineRpcClient, type JsonLineRpcConnection } from '@troupe/core/util';

// A small protocol for the tests: `{"id","say"}` → `{"id","ok":true,"result"}` or `{"id","ok":false,"error"}`.
interface Say {
  say: string;
}
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
function checkSay(value: unknown): JsonLineRpcCheck<Say> {
  if (!isObject(value)) return { ok: false, reason: 'expected an object' };
  const id = Number.isSafeInteger(value.id) ? (value.id as number) : undefined;
  if (id === undefined) return { ok: false, reason: '"id" must be a safe integer' };
  if (typeof value.say !== 'string') return { ok: false, id, reason: `"say" must be a string, got ${typeof value.say}` };
  return { ok: true, id, request: { say: value.say } };
}
function readSayAnswer(frame: unknown): JsonLineRpcAnswer | undefined {
  if (!isObject(frame) || typeof frame.id !== 'number') return undefined;
  return frame.ok === true ? { id: frame.id, ok: true, result: frame.result } : { id: frame.id, ok: false, error: String(frame.error) };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-rpc-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'rpc.sock');
}

/** A server of the test protocol; `handle` answers each request (default: echoes it). */
async function serve(handle: (request: Say, connection: JsonLineRpcConnection) => unknown = (request) => request.say, extra: { maxLineLength?: number } = {}) {
  const path = socketPath();
  const logged: string[] = [];
  const server = await listenJsonLineRpc<Say>(path, {
    name: 'Test socket',
    maxLineLength: extra.maxLineLength ?? 1024,
    checkRequest: checkSay,
    handle,
    encodeResult: (id, result) => ({ id, ok: true, result }),
    encodeError: (id, reason, refusal) => ({ id: id ?? -1, ok: false, error: reason, refusal }),
    log: (message) => logged.push(message),
  });
  cleanups.push(() => server.close());
  return { path, server, logged };
}

function client(path: string, extra: { onFrame?: (frame: unknown) => void; onInvalid?: (reason: string) => void; log?: (message: string) => void; maxLineLength?: number } = {}): JsonLineRpcClient<Say> {
  const rpc = createJsonLineRpcClient<Say>(connect(path), {
    name: 'the test socket',
    maxLineLength: extra.maxLineLength ?? 1024,
    encodeRequest: (id, body) => ({ id, ...body }),
    readAnswer: readSayAnswer,
    ...extra,
  });
  cleanups.push(() => rpc.close());
  return rpc;
}

/** Writes raw text on a fresh connection; resolves with the lines received once `count` came or the connection closed. */
function exchange(path: string, text: string, count: number): Promise<{ lines: unknown[]; closed: boolean }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(path);
    let received = '';
    const lines = () => received.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown);
    const timer = setTimeout(() => finish(false), 10_000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ lines: lines(), closed });
    };
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.endsWith('\n') && lines().length >= count) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.write(text);
  });
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('listenJsonLineRpc', () => {
  it('answers frames that are not JSON or fail the check with an error frame (the id when valid), logs them, and keeps the connection up', async () => {
    const { path, logged } = await serve();
    const { lines, closed } = await exchange(path, 'not json\nnull\n[1]\n{"id":"7","say":"x"}\n{"id":3,"say":4}\n\n{"id":4,"say":"still here"}\n', 6);
    expect(closed).toBe(false);
    expect(lines).toEqual([
      { id: -1, ok: false, error: expect.stringMatching(/^not JSON/), refusal: 'invalid' },
      { id: -1, ok: false, error: 'expected an object', refusal: 'invalid' },
      { id: -1, ok: false, error: 'expected an object', refusal: 'invalid' },
      { id: -1, ok: false, error: '"id" must be a safe integer', refusal: 'invalid' },
      { id: 3, ok: false, error: '"say" must be a string, got number', refusal: 'invalid' },
      { id: 4, ok: true, result: 'still here' },
    ]);
    expect(logged).toHaveLength(5);
    expect(logged[4]).toBe('bad frame answered with an error: "say" must be a string, got number');
  });

  it('redacts secrets from what it logs and answers', async () => {
    const secret = 'sk-test-json-line-rpc-0123456789';
    process.env.TROUPE_RPC_TEST_API_KEY = secret;
    cleanups.push(() => delete process.env.TROUPE_RPC_TEST_API_KEY);
    const path = socketPath();
    const logged: string[] = [];
    const server = await listenJsonLineRpc<Say>(path, {
      name: 'Test socket',
      maxLineLength: 1024,
      checkRequest: () => ({ ok: false, id: 1, reason: `a reason that quotes ${secret}` }),
      handle: () => undefined,
      encodeResult: (id, result) => ({ id, result }),
      encodeError: (id, reason) => ({ id, error: reason }),
      log: (message) => logged.push(message),
    });
    cleanups.push(() => server.close());
    const { lines } = await exchange(path, '{"id":1}\n', 1);
    expect(lines).toEqual([{ id: 1, error: `a reason that quotes ${REDACTED}` }]);
    expect(logged.join('\n')).not.toContain(secret);
    expect(logged.join('\n')).toContain(REDACTED);
  });

  it('refuses a line over the limit with an error frame and closes only that connection', async () => {
    const { path, logged } = await serve(undefined, { maxLineLength: 100 });
    // Waits for the server to end the connection (no count of lines is enough).
    const { lines, closed } = await exchange(path, `{"id":1,"say":"${'x'.repeat(500)}"}\n`, Number.POSITIVE_INFINITY);
    expect(lines).toEqual([{ id: -1, ok: false, error: 'line too long (over 100 characters)', refusal: 'too-long' }]);
    expect(closed).toBe(true);
    expect(logged).toEqual([expect.stringMatching(/^a line of over \d+ characters \(the limit is 100\); connection closed$/)]);
    expect(await client(path).request({ say: 'next' })).toBe('next');
  });

  it('answers a handler that throws, or a result JSON cannot encode, with a failed error frame, and goes on serving', async () => {
    const { path } = await serve((request) => {
      if (request.say === 'boom') throw new Error('the handler broke');
      if (request.say === 'bigint') return 1n;
      return request.say;
    });
    const { lines } = await exchange(path, '{"id":1,"say":"boom"}\n{"id":2,"say":"bigint"}\n{"id":3,"say":"fine"}\n', 3);
    expect(lines).toEqual([
      { id: 1, ok: false, error: 'the handler broke', refusal: 'failed' },
      { id: 2, ok: false, error: expect.stringContaining('BigInt'), refusal: 'failed' },
      { id: 3, ok: true, result: 'fine' },
    ]);
  });

  it('aborts a handler\'s signal when its connection goes away, and close() waits for requests being answered up to waitMs', async () => {
    let seen: JsonLineRpcConnection | undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { path, server } = await serve(async (request, connection) => {
      seen = connection;
      if (request.say === 'hold') await held;
      return request.say;
    });
    const first = client(path);
    expect(await first.request({ say: 'hi' })).toBe('hi');
    const closedSeen = new Promise<void>((resolve) => seen?.onClose(resolve));
    expect(seen?.signal.aborted).toBe(false);
    first.close();
    await closedSeen;
    expect(seen?.signal.aborted).toBe(true);

    const second = client(path);
    const answer = second.request({ say: 'hold' });
    while (seen?.signal.aborted !== false) await new Promise((resolve) => setTimeout(resolve, 10));
    const closing = server.close({ waitMs: 30_000 });
    release();
    await closing;
    expect(await answer).toBe('hold');
  });
});

describe('listenJsonLineRpc under a burst', () => {
  it('answers 50 parallel requests that each listen on the connection signal without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    cleanups.push(() => process.off('warning', onWarning));
    const { path } = await serve(
      (request, connection) =>
        new Promise((resolve) => {
          // What a permission callback's abort race does for each call it is deciding.
          connection.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
          setTimeout(() => resolve(`answer to ${request.say}`), 20);
        }),
    );
    const rpc = client(path);
    const says = Array.from({ length: 50 }, (_, index) => `s${index}`);
    expect(await Promise.all(says.map((say) => rpc.request({ say })))).toEqual(says.map((say) => `answer to ${say}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});

describe('createJsonLineRpcClient', () => {
  it('matches answers that come back out of order to their requests', async () => {
    const gates = new Map<string, () => void>();
    const { path } = await serve(async (request) => {
      await new Promise<void>((resolve) => gates.set(request.say, resolve));
      return `answer to ${request.say}`;
    });
    const rpc = client(path);
    const asked = ['a', 'b', 'c'].map((say) => rpc.request({ say }));
    while (gates.size < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const say of ['c', 'a', 'b']) gates.get(say)?.();
    expect(await Promise.all(asked)).toEqual(['answer to a', 'answer to b', 'answer to c']);
  });

  it('rejects with the peer\'s error as refused', async () => {
    const { path } = await serve(() => {
      throw new Error('no, thanks');
    });
    const error = await failureOf(client(path).request({ say: 'x' }));
    expect(error).toBeInstanceOf(JsonLineRpcError);
    expect(error).toMatchObject({ failure: 'refused', message: 'no, thanks', socket: 'the test socket', requestId: 1 });
  });

  it('times out a request nobody answers, and the connection still serves the next one', async () => {
    const { path } = await serve((request) => (request.say === 'never' ? new Promise(() => {}) : request.say));
    const rpc = client(path);
    const error = await failureOf(rpc.request({ say: 'never' }, { timeoutMs: 50, label: 'never' }));
    expect(error).toMatchObject({ failure: 'timed-out', code: 'COMPLETION_TIMEOUT', message: 'the test socket did not answer "never" within 50 ms' });
    expect(await rpc.request({ say: 'then' })).toBe('then');
  });

  it('rejects an aborted request with the reason as cause; its late answer goes to onFrame', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { path } = await serve(async (request) => {
      await held;
      return request.say;
    });
    const frames: unknown[] = [];
    const rpc = client(path, { onFrame: (frame) => frames.push(frame) });
    const controller = new AbortController();
    const asked = rpc.request({ say: 'late' }, { abortSignal: controller.signal });
    controller.abort('changed my mind');
    const error = await failureOf(asked);
    expect(error).toMatchObject({ failure: 'aborted', code: 'ABORTED', cause: 'changed my mind' });
    release();
    while (frames.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(frames).toEqual([{ id: 1, ok: true, result: 'late' }]);
    await expect(failureOf(rpc.request({ say: 'x' }, { abortSignal: AbortSignal.abort() }))).resolves.toMatchObject({ failure: 'aborted' });
  });

  it('rejects every pending request with a TroupeError naming the socket when the connection closes, and refuses new ones', async () => {
    const { path, server } = await serve(() => new Promise(() => {}));
    const rpc = client(path);
    let closeCalls = 0;
    rpc.onClose(() => closeCalls++);
    const pending = [rpc.request({ say: 'a' }, { label: 'first' }), rpc.request({ say: 'b' })].map(failureOf);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    const errors = await Promise.all(pending);
    expect(errors.every((error) => TroupeError.isInstance(error))).toBe(true);
    expect(errors).toMatchObject([
      { failure: 'closed', socket: 'the test socket', message: 'the test socket closed before answering "first"' },
      { failure: 'closed', message: 'the test socket closed before answering request 2' },
    ]);
    expect(closeCalls).toBe(1);
    expect(await failureOf(rpc.request({ say: 'c' }))).toMatchObject({ failure: 'closed', message: 'the test socket is closed: request 3 was not sent' });
  });

  it('survives a peer that sends junk and answers, routing each to its hook, and closes on an over-long line', async () => {
    const path = socketPath();
    const fake = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        const { id, say } = JSON.parse(chunk.split('\n')[0] as string) as { id: number; say: string };
        if (say === 'flood') return socket.write(`${'x'.repeat(5000)}\n`);
        socket.write(`null\n{{{\n{"event":"pushed"}\n{"id":${id + 1000},"ok":true}\n${JSON.stringify({ id, ok: true, result: 'answered' })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(path, resolve));
    cleanups.push(() => new Promise((resolve) => fake.close(resolve)));
    const frames: unknown[] = [];
    const invalid: string[] = [];
    const logged: string[] = [];
    const rpc = client(path, { onFrame: (frame) => frames.push(frame), onInvalid: (reason) => invalid.push(reason), log: (message) => logged.push(message) });
    expect(await rpc.request({ say: 'hi' })).toBe('answered');
    expect(frames).toEqual([null, { event: 'pushed' }, { id: 1001, ok: true }]);
    expect(invalid).toEqual([expect.stringMatching(/^not JSON/)]);
    expect(await failureOf(rpc.request({ say: 'flood' }))).toMatchObject({ failure: 'closed' });
    expect(logged).toEqual([expect.stringMatching(/^the test socket sent a line of over \d+ characters \(the limit is 1024\); connection closed$/)]);
  });
});
