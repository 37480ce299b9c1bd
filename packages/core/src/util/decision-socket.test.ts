import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenDecisionSocket } from './decision-socket';
import { createJsonLineRpcClient } from './json-line-rpc';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Sends raw lines and collects the answer lines. */
function exchange(path: string, lines: string[], expected: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const answers: unknown[] = [];
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) if (part) answers.push(JSON.parse(part));
      if (answers.length >= expected) {
        socket.end();
        resolve(answers);
      }
    });
    socket.on('error', reject);
    socket.write(lines.map((line) => `${line}\n`).join(''));
  });
}

describe('listenDecisionSocket', () => {
  it('answers {"id","request"} frames with the handler, and bad frames or a throwing handler with an error', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-decision-socket-'));
    const server = await listenDecisionSocket(join(dir, 'd.sock'), {
      name: 'test decision socket',
      handler: async (request) => {
        if (request.boom) throw new Error('handler broke');
        return { decision: 'allow', echo: request.tool };
      },
    });
    try {
      const answers = await exchange(server.path, ['{"id":1,"request":{"tool":"read_file"}}', 'not json', '{"id":2,"request":[]}', '{"id":3,"request":{"boom":true}}'], 4);
      expect(answers).toEqual(
        expect.arrayContaining([
          { id: 1, answer: { decision: 'allow', echo: 'read_file' } },
          { id: null, error: expect.stringContaining('not JSON') },
          { id: 2, error: 'the frame has no object "request"' },
          { id: 3, error: 'handler broke' },
        ]),
      );
      // The client side the helper scripts use reads the same frames.
      const client = createJsonLineRpcClient<Record<string, unknown>>(createConnection(server.path), {
        name: 'test',
        maxLineLength: 1024,
        encodeRequest: (id, request) => ({ id, request }),
        readAnswer: (frame) => {
          const value = frame as { id: number; answer?: unknown; error?: string };
          return value.answer !== undefined ? { id: value.id, ok: true, result: value.answer } : { id: value.id, ok: false, error: value.error ?? '' };
        },
      });
      await expect(client.request({ tool: 'glob' })).resolves.toEqual({ decision: 'allow', echo: 'glob' });
      client.close();
    } finally {
      await server.close();
    }
  });
});
