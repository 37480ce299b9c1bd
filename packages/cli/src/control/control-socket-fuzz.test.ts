import { seededRandom } from '@troupe/core/testing';
// Fuzzes the `troupe` control socket (issue 26): random and malformed frames, partial frames, huge lines,
// many connections, abrupt closes, for a bounded number of rounds. The server runs in this process: an
// exception it threw would fail the file (vitest reports uncaught errors), and valid requests interleaved
// with the junk must each get their own answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzRounds, fuzzSeed, sendHugeLine } from '@troupe/test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { connectControl } from './control-client';
import { MAX_CONTROL_LINE_LENGTH } from './control-protocol';
import { startControlServer, type ControlServer } from './control-server';
import { controlSocketPath } from './control-socket-path';

const FIELDS = ['id', 'op', 'input', 'after', 'events', 'trace'];
const VALUES = ['ping', 'looper', 'devhub', 'subscribe', 'nope', { traceparent: 'x' }, { looper: -1 }, { __proto__: 1 }];

/** Sends raw text on a fresh connection; resolves with the lines answered before the server closed it (or `waitMs`). */
function exchange(socketPath: string, text: string | Buffer, waitMs = 2000): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let received = '';
    const done = () => {
      socket.destroy();
      resolve(received.split('\n').filter((line) => line !== ''));
    };
    const timer = setTimeout(done, waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.write(text);
  });
}

describe('control socket under fuzz', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A socket path in a fresh temp folder (removed after the test). */
  function socketInTempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-ctl-fuzz-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return controlSocketPath(dir);
  }

  /** A control server that echoes each request's input (or its op). */
  async function start(): Promise<string> {
    const socketPath = socketInTempDir();
    const server: ControlServer = await startControlServer(socketPath, async (request) => ({ echoed: request.op === 'looper' || request.op === 'devhub' ? request.input : request.op }));
    cleanups.push(() => server.close());
    return socketPath;
  }

  it('answers null, arrays, numbers, wrong-typed fields, unknown ops, huge ids and __proto__ with an error frame, on a connection that stays up', async () => {
    const socketPath = await start();
    const bad = ['null', '[]', '42', '"ping"', '{"id":1}', '{"id":"1","op":"ping"}', '{"id":2,"op":"launch"}', '{"id":1e300,"op":"ping"}', '{"id":3,"op":"looper","input":7}', '{"__proto__":{"op":"ping"},"id":4}', 'not json'];
    const answers = await exchange(socketPath, `${bad.join('\n')}\n{"id":99,"op":"looper","input":"still here"}\n`);
    const error = (id: number, detail: string) => ({ id, ok: false, error: expect.stringMatching(new RegExp(`^invalid control request: ${detail}`)) });
    expect(answers.map((line) => JSON.parse(line) as unknown)).toEqual([
      error(-1, '.*expected object, received null'),
      error(-1, '.*expected object, received array'),
      error(-1, '.*expected object, received number'),
      error(-1, '.*expected object, received string'),
      error(1, 'op: '),
      error(-1, 'id: '),
      error(2, 'op: '),
      error(-1, 'id: '),
      error(3, 'input: '),
      error(4, 'op: '),
      error(-1, 'not JSON'),
      { id: 99, ok: true, result: { echoed: 'still here' } },
    ]);
  });

  it('a line longer than the limit is refused and its connection closed, without stalling the server', async () => {
    const socketPath = await start();
    // 32 MiB with no newline, in 8 KiB writes, while another client keeps asking.
    const attack = sendHugeLine(socketPath, { length: 32 * 1024 * 1024, chunkBytes: 8 * 1024, timeoutMs: 60_000 });
    const client = await connectControl(socketPath);
    const answered: string[] = [];
    for (let i = 0; i < 20; i++) answered.push((await client.request<{ echoed: string }>({ op: 'looper', input: `req ${i}` }, { timeoutMs: 30_000 })).echoed);
    const { answers: refused, written } = await attack;
    console.log(`[32 MiB line] refused after ${written} bytes`);
    client.close();
    expect(answered).toEqual(Array.from({ length: 20 }, (_, i) => `req ${i}`));
    expect(refused.map((line) => JSON.parse(line))).toEqual([{ id: -1, ok: false, error: 'request too long' }]);
    // Refused while it was still arriving, and the other client was answered meanwhile.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(MAX_CONTROL_LINE_LENGTH).toBeLessThan(32 * 1024 * 1024);
  }, 120_000);

  it('keeps answering valid requests while junk connections come and go (seeded)', async () => {
    const socketPath = await start();
    const seed = fuzzSeed('control socket');
    const random = seededRandom(seed).next;
    const client = await connectControl(socketPath);
    const { rounds, junkAnswers } = await fuzzRounds({
      random,
      target: socketPath,
      fields: FIELDS,
      values: VALUES,
      hugeLineLength: MAX_CONTROL_LINE_LENGTH + 10,
      valid: async (round) => {
        const input = `round ${round} ${'é'.repeat(round % 7)}`;
        expect(await client.request({ op: 'looper', input }, { timeoutMs: 30_000 }), `seed ${seed}, round ${round}`).toEqual({ echoed: input });
      },
      // Every answer is a well-formed response (a cut-off last line aside, when the client hung up).
      checkJunkAnswer: (line) => void (line.endsWith('}') && expect(JSON.parse(line), `seed ${seed}`).toHaveProperty('ok')),
    });
    client.close();
    expect(rounds).toBeGreaterThan(5);
    expect(junkAnswers).toBeGreaterThan(0);
    // Still serving a brand-new client.
    const fresh = await connectControl(socketPath);
    expect(await fresh.request({ op: 'ping' })).toEqual({ echoed: 'ping' });
    fresh.close();
  }, 60_000);

  it('the client survives a server that sends null, arrays, numbers and malformed frames, and still matches its answer', async () => {
    const socketPath = socketInTempDir();
    const fake = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        const { id } = JSON.parse(chunk.split('\n')[0] as string) as { id: number };
        socket.write(`null\n[]\n42\n"x"\n{{{\n{"event":null}\n{"event":"bus"}\n{"id":null}\n{"id":${id + 1000},"ok":true}\n`);
        socket.write(`${JSON.stringify({ id, ok: true, result: 'answered' })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(socketPath, resolve));
    try {
      const client = await connectControl(socketPath);
      expect(await client.request({ op: 'ping' })).toBe('answered');
      client.close();
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});
