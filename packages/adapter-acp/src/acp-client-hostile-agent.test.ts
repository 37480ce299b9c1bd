// The ACP client under hostile input from the agent (issue 26). The client runs in the host, on the agent's own
// stdio: nothing the agent writes may crash or stall the host. A malformed request gets a JSON-RPC error (as the
// SDK's client gave it), garbage gets ACP's parse / invalid-request error, the turn goes on, and a control that threw
// would show as a TroupeWarning (none is allowed here).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, type AgentTurnResult } from '@troupe/core/cli-turn';
import { EventBus } from '@troupe/core';
import { seededRandom } from '@troupe/core/testing';
import { fuzzSeed } from '@troupe/test-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAcpAdapter, type AcpCanUseTool } from './index';

const agentScript = fileURLToPath(new URL('./__fixtures__/scripted-acp-agent.mjs', import.meta.url));
const OPTIONS = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const permissionRequest = (id: number | string, toolCallId: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: 'scripted-1', toolCall: { toolCallId, title: 'Write a.txt', kind: 'edit' }, options: OPTIONS } });

type Received = { id?: unknown; method?: string; result?: unknown; error?: { code: number; message: string } };

let dir: string;
let warnings: string[];
const onWarning = (warning: Error) => void warnings.push(warning.message);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-acp-hostile-'));
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
  rmSync(dir, { recursive: true, force: true });
});

/** One turn against the scripted agent; returns the turn's result and the client's answers the agent received, in order. */
async function scriptedTurn(
  script: { lines: string[]; answers?: number; until?: string | number; then: 'result' | { exit: number } },
  canUseTool: AcpCanUseTool = (request) => request.toolCallId.startsWith('ok'),
  eventBus?: EventBus,
): Promise<{ result: AgentTurnResult; answers: Received[]; received: Received[] }> {
  const record = join(dir, 'received.jsonl');
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify({ record, ...script }));
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => createAcpAdapter({ command: process.execPath, args: [agentScript, scriptFile], canUseTool, ...(eventBus ? { eventBus } : {}) }) });
  const manager = new AgentManager({ adapters });
  try {
    await manager.ensureAgentStarted('coder', 'acp', { workDir: dir });
    const result = await manager.send('coder', 'go', { timeoutMs: 60_000 }).result;
    const received = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Received);
    return { result, answers: received.filter((message) => message.method === undefined), received };
  } finally {
    await manager.cleanup();
  }
}

const processWarnings = () => warnings.filter((message) => message.includes('process control'));

describe('ACP client: hostile messages from the agent', () => {
  it('answers each malformed message with a JSON-RPC error, and still decides the valid request after them', async () => {
    const lines = [
      'null',
      '[]',
      '7',
      '"x"',
      'not json',
      '{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"toolCall":5,"options":[null,1,{"optionId":2}]}}',
      '{"jsonrpc":"2.0","id":2,"method":"terminal/create","params":{"command":"rm"}}',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"session/request_permission","params":{}}',
      '{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"scripted-1","path":7}}',
      '{"jsonrpc":"2.0","id":4,"method":"__proto__","params":{}}',
      '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":99}}',
      '{"jsonrpc":"2.0","id":77,"result":{}}',
      // A second answer to initialize: ignored (no second session/new).
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}',
      permissionRequest(5, 'ok-1'),
    ];
    const { result, answers, received } = await scriptedTurn({ lines, answers: 11, then: 'result' });
    expect(received.filter((message) => message.method !== undefined).map((message) => message.method)).toEqual(['initialize', 'session/new', 'session/prompt']);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32602, message: expect.stringMatching(/^Invalid params: sessionId: .*; toolCall: .*; options\.0: /) }) },
      { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: -32601 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600, message: 'Invalid request: "id" must be a number or a string' }) },
      { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32602, message: expect.stringContaining('path: ') }) },
      { jsonrpc: '2.0', id: 4, error: expect.objectContaining({ code: -32601 }) },
      { jsonrpc: '2.0', id: 5, result: { outcome: { outcome: 'selected', optionId: 'yes' } } },
    ]);
    expect(result.outcome.status).toBe('completed');
    expect(result.parts.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId)).toEqual(['ok-1']);
    expect(processWarnings()).toEqual([]);
  }, 60_000);

  it('a line over 32 MiB (the SDK client\'s limit) is refused with an error, and the requests after it are answered', async () => {
    const { result, answers } = await scriptedTurn({ lines: [`{"x":"${'y'.repeat(33 * 1024 * 1024)}"}`, permissionRequest(1, 'ok-1'), permissionRequest(2, 'no-2')], answers: 3, then: 'result' });
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600, message: 'Invalid request: message too large' }) },
      { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'selected', optionId: 'yes' } } },
      { jsonrpc: '2.0', id: 2, result: { outcome: { outcome: 'selected', optionId: 'no' } } },
    ]);
    expect(result.outcome.status).toBe('completed');
    expect(processWarnings()).toEqual([]);
  }, 120_000);

  it('keeps deciding valid requests among seeded junk', async () => {
    const seed = fuzzSeed('ACP client hostile agent');
    const random = seededRandom(seed).next;
    const values: unknown[] = [null, -1, 1.5, 2 ** 64, '', 'x', [], {}, [null], { toolCallId: 7 }, { outcome: 'selected' }, OPTIONS, 'y'.repeat(10_000), true];
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const lines: string[] = [];
    const expected = new Map<number, string>();
    for (let round = 0; round < 60; round++) {
      const base: Record<string, unknown> = JSON.parse(permissionRequest(1000 + round, `junk-${round}`)) as Record<string, unknown>;
      const params = base.params as Record<string, unknown>;
      const mutation = Math.floor(random() * 6);
      if (mutation === 0) base[pick(['id', 'method', 'params', 'jsonrpc'])] = pick(values);
      else if (mutation === 1) params[pick(['sessionId', 'toolCall', 'options'])] = pick(values);
      else if (mutation === 2) base.method = pick(['fs/read_text_file', 'fs/write_text_file', 'session/update', 'session/prompt', '$/cancel_request']);
      else if (mutation === 3) lines.push(JSON.stringify(base).slice(0, Math.floor(random() * 80)));
      else if (mutation === 4) lines.push(pick(['', ' ', '\u0000', '{"', '}{', '\uFFFD'.repeat(50)]));
      if (mutation < 3) lines.push(JSON.stringify(base));
      // A valid request after each junk line: its answer must be the callback's.
      const allowed = random() < 0.5;
      lines.push(permissionRequest(round, `${allowed ? 'ok' : 'no'}-${round}`));
      expected.set(round, allowed ? 'yes' : 'no');
    }
    const { result, answers } = await scriptedTurn({ lines, until: 59, then: 'result' });
    for (const [round, optionId] of expected) {
      expect(answers.find((answer) => answer.id === round), `seed ${seed}, round ${round}`).toEqual({ jsonrpc: '2.0', id: round, result: { outcome: { outcome: 'selected', optionId } } });
    }
    for (const answer of answers) expect(answer.result !== undefined || answer.error !== undefined, `seed ${seed}`).toBe(true);
    expect(result.outcome.status, `seed ${seed}`).toBe('completed');
    expect(processWarnings()).toEqual([]);
  }, 60_000);

  it('a callback answering garbage is a refusal, never an allow', async () => {
    const garbage = [7, null, { behavior: 'maybe' }, 'yes', undefined];
    const lines = garbage.map((_, index) => permissionRequest(index, `ok-${index}`));
    const { answers } = await scriptedTurn({ lines, answers: garbage.length, then: 'result' }, (request) => garbage[Number(request.toolCallId.slice(3))] as never);
    expect(answers.map((answer) => (answer.result as { outcome: { optionId?: string } }).outcome.optionId)).toEqual(['no', 'no', 'no', 'no', 'no']);
  }, 60_000);
});

describe('ACP client: the agent goes away', () => {
  it('dying while a question is open: canUseTool\'s signal aborts at once, the turn fails with the agent\'s exit code', async () => {
    const bus = new EventBus();
    const decisions: unknown[] = [];
    bus.on('acp:permission-decided', (event) => void decisions.push(event.payload));
    let aborted = false;
    // A human who never answers: only the signal ends the question.
    const hanging: AcpCanUseTool = (_request, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => ((aborted = true), resolve(true)), { once: true });
      });
    const { result } = await scriptedTurn({ lines: [permissionRequest(1, 'gone-1')], answers: 0, then: { exit: 3 } }, hanging, bus);
    expect(aborted).toBe(true);
    expect(decisions).toEqual([expect.objectContaining({ toolCallId: 'gone-1', decision: 'cancelled', message: 'the turn ended' })]);
    expect(result.outcome).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(result.parts).toContainEqual({ type: 'error', message: 'the agent exited before the turn ended' });
  }, 60_000);

  it('the agent cancels a request ($/cancel_request): its question\'s signal aborts and it is answered cancelled', async () => {
    const hanging: AcpCanUseTool = (_request, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(true), { once: true }));
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'q-1' } });
    const { answers } = await scriptedTurn({ lines: [permissionRequest('q-1', 'ok-1'), cancel], answers: 1, then: 'result' }, hanging);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 'q-1', result: { outcome: { outcome: 'cancelled' } } }]);
  }, 60_000);
});
