/*
 * The adapter's app-server client (a process control in the host, no driver process), through the public API: a
 * Codex adapter with permissions, run by the AgentManager over a stand-in for `codex app-server`
 * (`__fixtures__/bin/fake-codex-app-server.mjs`) that records what the client sends it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CanUseTool, ToolUseRequest } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { makeTempDir } from './codex-test-support';

const fakeAppServer = fileURLToPath(new URL('./__fixtures__/bin/fake-codex-app-server.mjs', import.meta.url));

let temp: ReturnType<typeof makeTempDir>;
let manager: AgentManager | undefined;
beforeEach(() => {
  temp = makeTempDir('troupe-codex-control-');
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  temp.remove();
});

/** Runs one turn over the fake app-server; resolves with the result, the lines the turn read and what Codex got. */
async function runTurn(canUseTool: CanUseTool, mode?: 'die' | 'no-thread' | 'no-thread-id', read: Array<Record<string, unknown>> = []) {
  const record = join(temp.path, 'record.jsonl');
  const real = createCodexAdapter({
    command: process.execPath,
    baseArgs: [fakeAppServer, record, ...(mode ? [mode] : []), 'exec', '--json'],
    apiKey: 'sk-test-0000000000000000',
    home: join(temp.path, 'home'),
    codexHome: join(temp.path, 'home', '.codex'),
    tmpDir: join(temp.path, 'tmp'),
    permissions: { canUseTool },
  });
  const adapter = { ...real, parseLine: (line: string, json: unknown, context?: Parameters<typeof real.parseLine>[2]) => (read.push(json as Record<string, unknown>), real.parseLine(line, json, context)) };
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => adapter });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 30_000 });
  await manager.ensureAgentStarted('coder', 'codex', { workDir: temp.path });
  const result = await manager.send('coder', 'Echo two things').result;
  let sent: Array<Record<string, any>> = [];
  try {
    sent = readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
  } catch {
    // nothing was sent after the handshake
  }
  return { result, read, sent };
}

describe('codex app-server client in the host', () => {
  it('spawns codex app-server itself, with a control in place of the driver and its socket', async () => {
    const adapter = createCodexAdapter({ apiKey: 'sk-test-0000000000000000', permissions: { canUseTool: () => true } });
    const config = await adapter.getProcessConfig({}, '/path/to/repo');
    expect(config.command).toBe('codex');
    expect(config.args?.slice(0, 1)).toEqual(['app-server']);
    expect(config.args?.join(' ')).not.toMatch(/driver|permission-socket|--thread/);
    expect(typeof config.control).toBe('function');
    expect(config.cleanup).toBeUndefined();
  });

  it('asks about each MCP tool call with the call it belongs to, answers accept / decline, steers the reason first, refuses other requests, and times each answer', async () => {
    const asked: ToolUseRequest[] = [];
    const { result, read, sent } = await runTurn((request) => {
      asked.push(request);
      return request.id === 'call_2' ? { behavior: 'deny', message: 'no twos' } : true;
    });

    expect(result.outcome.status).toBe('completed');
    expect(result.sessionId).toBe('thread-1');
    // Asked in Codex's order (two, then one), each with its own item: the matching is by arguments, not by order.
    expect(asked.map((request) => [request.tool, request.id, request.input])).toEqual([
      ['mcp__echo__echo', 'call_2', { text: 'two' }],
      ['mcp__echo__echo', 'call_1', { text: 'one' }],
    ]);
    const byId = new Map(sent.filter((message) => message.method === undefined).map((message) => [message.id, message]));
    expect(byId.get(100)).toEqual({ id: 100, result: { action: 'decline', content: null, _meta: null } });
    expect(byId.get(101)).toEqual({ id: 101, result: { action: 'accept', content: null, _meta: null } });
    expect(byId.get(102)).toMatchObject({ id: 102, error: { code: -32601, message: expect.stringContaining('mcpServer/elicitation/request') } });
    expect(byId.get(103)).toEqual({ id: 103, result: { decision: 'denied' } });
    // The reason is steered into the turn before the decline is sent.
    const steer = sent.findIndex((message) => message.method === 'turn/steer');
    expect(sent[steer]).toMatchObject({ params: { threadId: 'thread-1', expectedTurnId: 'turn-1', input: [{ type: 'text', text: expect.stringContaining('no twos') }] } });
    expect(steer).toBeLessThan(sent.indexOf(byId.get(100)!));

    // The turn reads Codex's lines unchanged and in order, plus the client's own.
    expect(read[0]).toMatchObject({ id: 0, result: {} });
    expect(read.find((line) => line.type === 'troupe.thread')).toEqual({ type: 'troupe.thread', threadId: 'thread-1', model: 'gpt-5.5' });
    expect(read.filter((line) => line.type === undefined && line.method === 'mcpServer/elicitation/request').map((line) => line.id)).toEqual([100, 101, 102]);
    const approvals = read.filter((line) => line.type === 'troupe.approval');
    // A decline waits for its steer: the two answers may be written in either order.
    expect(approvals.map((line) => [line.itemId, line.decision]).sort()).toEqual([
      ['call_1', 'accept'],
      ['call_2', 'decline'],
    ]);
    for (const line of approvals) {
      expect(line.elapsedMs).toBeGreaterThanOrEqual(0);
      expect(line.returnedMs).toBeGreaterThanOrEqual(line.elapsedMs as number);
    }
    // Each approval's line comes after the request it answers.
    for (const line of approvals) expect(read.indexOf(line)).toBeGreaterThan(read.findIndex((request) => request.id === line.requestId && request.method !== undefined));
  });

  it('answers the approvals of a chunk before the turn reads that chunk', async () => {
    const seenWhenAsked: number[] = [];
    const read: Array<Record<string, unknown>> = [];
    const outcome = await runTurn(
      () => {
        seenWhenAsked.push(read.filter((line) => line.type === undefined && line.method === 'mcpServer/elicitation/request').length);
        return true;
      },
      undefined,
      read,
    );
    expect(outcome.result.outcome.status).toBe('completed');
    // The burst of requests came in one chunk: none of its lines had reached the turn when the first was decided.
    expect(seenWhenAsked[0]).toBe(0);
  });

  it('fails the turn when Codex dies before its turn ends, and when the handshake fails or names no thread', async () => {
    const died = await runTurn(() => true, 'die');
    expect(died.result.outcome.exitCode).toBe(3);
    expect(died.result.agentError).toMatchObject({ code: 'AGENT_ERROR', adapterId: 'codex' });
    expect(died.read).toContainEqual({ type: 'troupe.codex-exited', message: 'exited' });
    expect(died.result.parts).toContainEqual(expect.objectContaining({ type: 'turn-end', isError: true, text: 'codex app-server exited before the turn ended' }));

    const refused = await runTurn(() => true, 'no-thread');
    expect(refused.result.agentError).toMatchObject({ code: 'AGENT_ERROR' });
    expect(refused.read).toContainEqual({ type: 'troupe.error', message: 'thread/start: no rollout found', code: -32600 });
    expect(refused.result.parts).toContainEqual(expect.objectContaining({ type: 'turn-end', isError: true, text: 'thread/start: no rollout found' }));

    // No thread to start a turn on: the turn fails at once instead of waiting for its time limit.
    const threadless = await runTurn(() => true, 'no-thread-id');
    expect(threadless.read).toContainEqual({ type: 'troupe.error', message: 'thread/start: Codex answered without a thread id' });
    expect(threadless.result.outcome).toMatchObject({ status: 'completed', reason: 'completion-event' });
  });
});
