import { seededRandom } from '@troupe/core/testing';
// The ACP permission socket under hostile input (issue 26). Its path is in the driver's argv, so the ACP agent
// can read it from /proc and connect: nothing sent there may crash or stall the host. The socket is the real
// one a turn opens (through getProcessConfig), answering with the real canUseTool plumbing; it runs in this
// process, so an exception it threw fails the file (vitest reports uncaught errors).
import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@troupe/core';
import { FAKE_ACP_AGENT_PATH, fuzzRounds, fuzzSeed, sendHugeLine } from '@troupe/test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { acpDriverPath, createAcpAdapter, type AcpPermissionRequest } from './index';
import { MAX_PERMISSION_LINE_LENGTH } from './acp-permission-socket';

const OPTIONS = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const request = (toolCallId: string) => ({ sessionId: 's', toolCall: { toolCallId, title: 'Write a.txt', kind: 'edit' }, options: OPTIONS });

/** Opens the permission socket a turn would: canUseTool allows edits whose toolCallId starts with "ok". */
async function openSocket(): Promise<{ path: string; seen: AcpPermissionRequest[]; cleanup: () => Promise<void> }> {
  const seen: AcpPermissionRequest[] = [];
  const adapter = createAcpAdapter({
    command: 'never-run',
    eventBus: new EventBus(),
    canUseTool: (asked) => {
      seen.push(asked);
      return asked.toolCallId.startsWith('ok');
    },
  });
  const config = await adapter.getProcessConfig({}, undefined);
  const args = config.args ?? [];
  return { path: args[args.indexOf('--permission-socket') + 1] as string, seen, cleanup: async () => config.cleanup?.() };
}

/** A line-oriented client of the socket: `ask` sends raw text and waits for `count` answer lines. */
function lineClient(path: string) {
  const socket = connect(path);
  const lines: string[] = [];
  let buffer = '';
  let wake: (() => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    wake?.();
  });
  socket.on('close', () => wake?.());
  return {
    socket,
    async ask(text: string | Buffer, count: number, timeoutMs = 20_000): Promise<unknown[]> {
      const from = lines.length;
      socket.write(text);
      const deadline = Date.now() + timeoutMs;
      while (lines.length - from < count && !socket.destroyed && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      return lines.slice(from).map((line) => JSON.parse(line) as unknown);
    },
  };
}

describe('ACP permission socket: hostile frames', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('answers a null line (and every other malformed frame) with an error, and keeps answering on that connection', async () => {
    const socket = await openSocket();
    cleanups.push(socket.cleanup);
    const client = lineClient(socket.path);
    const bad = ['null', '[]', '7', '"x"', 'not json', '{"id":1}', '{"id":"2","request":{}}', '{"id":1e300,"request":{}}', '{"id":3,"request":null}', '{"__proto__":{"request":{}},"id":4}'];
    const answers = await client.ask(`${bad.join('\n')}\n`, bad.length);
    expect(answers).toEqual([
      ...bad.slice(0, 5).map(() => ({ id: null, error: expect.any(String) })),
      { id: 1, error: expect.stringContaining('"request" must be an object') },
      { id: null, error: expect.stringContaining('"id" must be a safe integer') },
      { id: null, error: expect.stringContaining('"id" must be a safe integer') },
      { id: 3, error: expect.stringContaining('"request" must be an object') },
      { id: 4, error: expect.stringContaining('"request" must be an object') },
    ]);
    expect(await client.ask(`${JSON.stringify({ id: 5, request: request('ok-1') })}\n`, 1)).toEqual([{ id: 5, outcome: { outcome: 'selected', optionId: 'yes' } }]);
    // A request of the right frame but odd content is still decided (no matching option → cancelled), never thrown.
    expect(await client.ask(`${JSON.stringify({ id: 6, request: { toolCall: 5, options: [null, 1, { optionId: 2 }] } })}\n`, 1)).toEqual([{ id: 6, outcome: { outcome: 'cancelled' } }]);
    expect(socket.seen.map((seen) => seen.toolCallId)).toEqual(['ok-1', '']);
    client.socket.destroy();
  });

  it('a 32 MiB line without a newline is refused and its connection closed, without stalling the host', async () => {
    const socket = await openSocket();
    cleanups.push(socket.cleanup);
    // In 8 KiB writes, so the host reads it in thousands of chunks (the old reader rescanned its whole buffer on each).
    const attack = sendHugeLine(socket.path, { length: 32 * 1024 * 1024, chunkBytes: 8 * 1024, timeoutMs: 60_000 });
    const honest = lineClient(socket.path);
    const answers: unknown[] = [];
    for (let i = 0; i < 10; i++) answers.push(...(await honest.ask(`${JSON.stringify({ id: i, request: request(`ok-${i}`) })}\n`, 1, 60_000)));
    const { answers: refusal, written } = await attack;
    console.log(`[32 MiB line] refused after ${written} bytes`);
    expect(refusal.map((line) => JSON.parse(line) as unknown)).toEqual([{ id: null, error: `line too long (over ${MAX_PERMISSION_LINE_LENGTH} characters)` }]);
    // Refused while it was still arriving (the old reader kept all of it), and the other client was answered meanwhile.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(answers).toEqual(Array.from({ length: 10 }, (_, id) => ({ id, outcome: { outcome: 'selected', optionId: 'yes' } })));
    honest.socket.destroy();
  }, 120_000);

  it('keeps answering valid requests while junk connections come and go (seeded)', async () => {
    const socket = await openSocket();
    cleanups.push(socket.cleanup);
    const seed = fuzzSeed('ACP permission socket');
    const random = seededRandom(seed).next;
    const client = lineClient(socket.path);
    const { rounds, junkAnswers } = await fuzzRounds({
      random,
      target: socket.path,
      fields: ['id', 'request', 'sessionId', 'toolCall', 'options'],
      values: [request('junk'), OPTIONS],
      hugeLineLength: 256 * 1024,
      valid: async (round) => {
        const allowed = random() < 0.5;
        const answer = await client.ask(`${JSON.stringify({ id: round, request: request(allowed ? `ok-${round}` : `no-${round}`) })}\n`, 1);
        expect(answer, `seed ${seed}, round ${round}`).toEqual([{ id: round, outcome: { outcome: 'selected', optionId: allowed ? 'yes' : 'no' } }]);
      },
      // Every answer is a frame with an id (a cut-off last line aside, when the client hung up).
      checkJunkAnswer: (line) => void (line.endsWith('}') && expect(JSON.parse(line), `seed ${seed}`).toHaveProperty('id')),
    });
    expect(rounds).toBeGreaterThan(5);
    expect(junkAnswers).toBeGreaterThan(0);
    client.socket.destroy();
  }, 60_000);
});

describe('ACP driver: a host that answers garbage', () => {
  let dir: string;
  let host: Server | undefined;
  const connections = new Set<Socket>();
  afterEach(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise((resolve) => (host ? host.close(resolve) : resolve(undefined)));
    host = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one driver turn against the fake agent, its permission socket served by `answer`; returns its exit code and stdout lines. */
  async function turnWithHost(answer: (line: string) => string): Promise<{ code: number | null; lines: Array<Record<string, unknown>>; stderr: string }> {
    dir = mkdtempSync(join(tmpdir(), 'troupe-acp-host-'));
    const path = join(dir, 'host.sock');
    host = createServer((socket) => {
      connections.add(socket);
      socket.setEncoding('utf8');
      socket.on('error', () => {});
      socket.on('data', (chunk: string) => {
        for (const line of chunk.split('\n').filter(Boolean)) socket.write(answer(line));
      });
    });
    await new Promise<void>((resolve) => host?.listen(path, resolve));
    const child = spawn(process.execPath, [acpDriverPath, '--permission-socket', path, '--', process.execPath, FAKE_ACP_AGENT_PATH], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end('Create hello.txt');
    // A driver left waiting for an answer that never comes fails the test instead of hanging it.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { code, lines, stderr };
  }

  const permissionText = (lines: Array<Record<string, unknown>>) =>
    lines
      .filter((line) => line.method === 'session/update')
      .map((line) => (line.params as { update?: { content?: { text?: string } } }).update?.content?.text)
      .filter(Boolean);

  for (const [name, reply] of [
    ['null', 'null\n'],
    ['not JSON', '{{{\n'],
    ['an error frame', '{"id":1,"error":"bad frame"}\n'],
    ['a wrong-shaped outcome', '{"id":1,"outcome":{"outcome":"selected","optionId":7}}\n'],
    ['an over-long line', `${'x'.repeat(200 * 1024)}\n`],
  ] as const) {
    it(`${name}: the request is cancelled, the turn ends normally`, async () => {
      const result = await turnWithHost(() => reply);
      expect(result.code, result.stderr).toBe(0);
      expect(result.lines.find((line) => line.type === 'acp.permission')).toMatchObject({ outcome: { outcome: 'cancelled' } });
      expect(permissionText(result.lines)).toEqual(['permission: cancelled']);
    }, 30_000);
  }

  it('a valid answer still goes through', async () => {
    const result = await turnWithHost((line) => `${JSON.stringify({ id: (JSON.parse(line) as { id: number }).id, outcome: { outcome: 'selected', optionId: 'proceed_once' } })}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(permissionText(result.lines)).toEqual(['permission: proceed_once']);
  }, 30_000);
});
