import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startCodexPermissionSocket, type CodexApprovalFrame } from './codex-app-server-permissions';
import { codexAppServerDriverPath } from './codex-app-server-process';

const fakeAppServer = fileURLToPath(new URL('./__fixtures__/bin/fake-codex-app-server.mjs', import.meta.url));

/** Runs the driver (needs `@troupe/core` built) over the fake app-server; resolves with its stdout lines once it exits. */
function runDriver(socketPath: string, threadFile: string, record: string): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  const child = spawn(process.execPath, [codexAppServerDriverPath, '--permission-socket', socketPath, '--thread', threadFile, '--', process.execPath, fakeAppServer, record], { stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stdin.end('Echo two things\n');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, lines: stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) }));
  });
}

describe('codex-app-server-driver: MCP tool-call approvals', () => {
  it('asks the host about each one with the call it belongs to (matched by server, tool and arguments), answers action accept / decline, steers the reason, and refuses other elicitations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-codex-driver-'));
    const asked: CodexApprovalFrame[] = [];
    const socket = await startCodexPermissionSocket(dir, async (frame) => {
      asked.push(frame);
      return frame.item?.id === 'call_2' ? { decision: 'decline', steer: '[Troupe] no twos' } : { decision: 'accept' };
    });
    try {
      const threadFile = join(dir, 'thread.json');
      writeFileSync(threadFile, JSON.stringify({ start: {} }));
      const record = join(dir, 'record.jsonl');
      const { code, lines } = await runDriver(socket.path, threadFile, record);

      expect(code).toBe(0);
      // Asked in Codex's order (two, then one), each with its own item: the matching is by arguments, not by order.
      expect(asked.map((frame) => [frame.method, frame.item?.id, (frame.params._meta as { tool_params?: unknown }).tool_params])).toEqual([
        ['mcpServer/elicitation/request', 'call_2', { text: 'two' }],
        ['mcpServer/elicitation/request', 'call_1', { text: 'one' }],
      ]);
      const sent = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      const byId = new Map(sent.filter((message) => message.method === undefined).map((message) => [message.id, message]));
      expect(byId.get(100)).toEqual({ id: 100, result: { action: 'decline', content: null, _meta: null } });
      expect(byId.get(101)).toEqual({ id: 101, result: { action: 'accept', content: null, _meta: null } });
      expect(byId.get(102)).toMatchObject({ id: 102, error: { code: -32601, message: expect.stringContaining('mcpServer/elicitation/request') } });
      // The reason is steered into the turn before the decline is sent.
      const steer = sent.findIndex((message) => message.method === 'turn/steer');
      expect(sent[steer]).toMatchObject({ params: { threadId: 'thread-1', expectedTurnId: 'turn-1', input: [{ type: 'text', text: '[Troupe] no twos' }] } });
      expect(steer).toBeLessThan(sent.indexOf(byId.get(100)!));
      // A decline waits for its steer: the two answers may be written in either order.
      expect(lines.filter((line) => line.type === 'troupe.approval').map((line) => [line.itemId, line.decision]).sort()).toEqual([
        ['call_1', 'accept'],
        ['call_2', 'decline'],
      ]);
    } finally {
      await socket.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
