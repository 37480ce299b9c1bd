import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { CapabilityUnsupportedError, ConfigError, EventBus, type AnyTroupeEvent } from '@troupe/core';
import { assertAdapterConformance, replayThroughAdapter, wrapAgentAdapter } from '@troupe/core/testing';
import { FAKE_ACP_AGENT_PATH } from '@troupe/test-server';
import { describe, expect, it } from 'vitest';
import { askInTerminal, createAcpAdapter, permissionOutcome, type AcpPermissionRequest } from './index';
import type { ToolUseRequest } from '@troupe/core';

/** A manager with one `coder` member on `adapter` (type `acp`), started. */
async function startCoder(adapter: ReturnType<typeof createAcpAdapter>): Promise<AgentManager> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => adapter });
  const manager = new AgentManager({ adapters });
  await manager.ensureAgentStarted('coder', 'acp', {});
  return manager;
}

/**
 * The adapter with its stdout read as the turn reads it: the recordings are what the ACP client passed on to the
 * turn (the old driver's output), so a replay skips the client (core's fake CLI waits for end of input, which the
 * client only gives after the prompt's result). The client itself is tested against agents below and in
 * acp-client-hostile-agent.test.ts.
 */
const parsingOnly = (adapter: ReturnType<typeof createAcpAdapter>) =>
  wrapAgentAdapter(adapter, {
    getProcessConfig: async (member, workDir, context) => {
      const { control: _control, ...config } = await adapter.getProcessConfig(member, workDir, context);
      return config;
    },
  });

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const fakeAgent = FAKE_ACP_AGENT_PATH;

describe('createAcpAdapter: command line and settings', () => {
  it('session options an ACP agent cannot honour are refused by name: continue and forkSession always, resume unless `resume: true`', async () => {
    const refusal = async (settings: Parameters<typeof createAcpAdapter>[0], session: { resume?: string; continue?: boolean; forkSession?: boolean }) => {
      const adapters = new AdapterRegistry();
      adapters.register({ type: 'acp', create: () => createAcpAdapter(settings) });
      const manager = new AgentManager({ adapters });
      const error = await manager.ensureAgentStarted('coder', 'acp', {}, session).catch((caught: unknown) => caught);
      expect(manager.isRunning('coder')).toBe(false);
      return error;
    };
    const sessionId = '6066eb2e-575a-4b71-95d8-8928473c19cb';
    expect(await refusal({ command: 'claude-code-acp', adapterId: 'claude-acp' }, { resume: sessionId })).toMatchObject({
      adapterId: 'claude-acp',
      capability: 'resume',
    });
    expect(await refusal({ command: 'claude-code-acp', resume: true }, { continue: true })).toBeInstanceOf(CapabilityUnsupportedError);
    expect(await refusal({ command: 'claude-code-acp', resume: true }, { resume: sessionId, forkSession: true })).toMatchObject({
      capability: 'forkSession',
      message: expect.stringContaining('"acp" adapter cannot fork a session'),
    });
  });

  it('the agent command itself, with this process as its ACP client; MCP servers go to session/new in ACP form', async () => {
    const adapter = createAcpAdapter({ command: 'claude-code-acp', env: { IS_SANDBOX: '1' } });
    expect(adapter.adapterId).toBe('acp');
    expect(adapter.capabilities).toEqual({ systemPrompt: 'message', resume: false, streamingText: true, mcpServers: true });
    const mcpServers = {
      troupe: { type: 'http' as const, url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789' } },
      files: { command: 'npx', args: ['fs'], env: { API_KEY: 'key-123456' } },
    };
    const config = await adapter.getProcessConfig({ workDir: '/repo', additionalArgs: ['--verbose'], mcpServers }, undefined);
    expect(config).toMatchObject({ command: 'claude-code-acp', args: ['--verbose'], cwd: '/repo', messageDelivery: 'stdin', env: { IS_SANDBOX: '1' } });
    expect(config.control).toEqual(expect.any(Function));
    expect(config.secrets).toEqual(expect.arrayContaining(['tok-0123456789', 'key-123456']));
    await config.cleanup?.();

    // What the agent receives: session/new in the turn's folder, with the servers in ACP form.
    const dir = mkdtempSync(join(tmpdir(), 'troupe-acp-mcp-'));
    const record = join(dir, 'received.jsonl');
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'acp', create: () => createAcpAdapter({ command: fakeAgent, args: ['--record', record] }) });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'acp', { workDir: dir, mcpServers });
      await manager.send('coder', 'Create hello.txt', { timeout: 20_000 }).result;
      const received = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method?: string; params?: unknown });
      expect(received.find((message) => message.method === 'session/new')?.params).toEqual({
        cwd: dir,
        mcpServers: [
          { type: 'http', name: 'troupe', url: 'http://127.0.0.1:4000/mcp', headers: [{ name: 'Authorization', value: 'Bearer tok-0123456789' }] },
          { name: 'files', command: 'npx', args: ['fs'], env: [{ name: 'API_KEY', value: 'key-123456' }] },
        ],
      });
    } finally {
      await manager.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with permissions the agent reads and writes files through the client (clientCapabilities.fs), unless clientFs is false; never for the ACP-only canUseTool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-acp-fs-'));
    const fsOffered = async (settings: Omit<Parameters<typeof createAcpAdapter>[0], 'command'>, name: string) => {
      const record = join(dir, `${name}.jsonl`);
      const adapters = new AdapterRegistry();
      adapters.register({ type: 'acp', create: () => createAcpAdapter({ command: fakeAgent, args: ['--record', record], ...settings }) });
      const manager = new AgentManager({ adapters });
      try {
        await manager.ensureAgentStarted('coder', 'acp', { workDir: dir });
        await manager.send('coder', 'Create hello.txt', { timeout: 20_000 }).result;
      } finally {
        await manager.cleanup();
      }
      const initialize = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method?: string; params?: { clientCapabilities?: unknown } }).find((message) => message.method === 'initialize');
      return initialize?.params?.clientCapabilities;
    };
    try {
      expect(await fsOffered({ permissions: { canUseTool: () => true } }, 'permissions')).toEqual({ fs: { readTextFile: true, writeTextFile: true }, terminal: false });
      expect(await fsOffered({ permissions: { canUseTool: () => true }, clientFs: false }, 'no-fs')).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
      expect(await fsOffered({ canUseTool: () => true }, 'acp-only')).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => createAcpAdapter({ command: 'a', clientFs: 'yes' as never })).toThrow(/clientFs/);
  });

  it('the system prompt goes with the message; bad settings and MCP cwd are refused by name', async () => {
    const adapter = createAcpAdapter({ command: 'agent' });
    expect(adapter.prepareMessage('Do it', { systemInstruction: 'You are careful.' })).toBe('You are careful.\n\nDo it');
    expect(() => createAcpAdapter({ command: '' })).toThrow(/command/);
    expect(() => createAcpAdapter({ command: 'a', canUseTool: 'maybe' as never })).toThrow(ConfigError);
    expect(() => createAcpAdapter({ command: 'a', bogus: 1 } as never)).toThrow(/bogus/);
    await expect(adapter.getProcessConfig({ mcpServers: { a: { command: 'a', cwd: '/x' } } })).rejects.toThrow(/mcpServers\.a\.cwd/);
  });
});

describe('parsing recorded ACP turns', () => {
  it('claude-code-acp, tool allowed: tool call named by Claude, its result, the final text', async () => {
    const result = await replayThroughAdapter(parsingOnly(createAcpAdapter({ command: 'claude-code-acp' })), { name: 'claude', stdoutFile: fixture('claude-code-acp-tool.stdout.jsonl') });
    expect(result.status).toBe('completed');
    expect(result.parts.map((part) => part.type)).toEqual(['session', 'tool-call', 'tool-result', 'text-delta', 'turn-end']);
    expect(result.parts[1]).toEqual({
      type: 'tool-call',
      toolCallId: 'toolu_fake_1',
      toolName: 'Write',
      input: { file_path: '/workspace/hello.txt', content: 'hello from fake-llm\n' },
    });
    expect(result.parts[2]).toMatchObject({ type: 'tool-result', toolName: 'Write', isError: false, output: 'File created successfully at: /workspace/hello.txt' });
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('claude-code-acp, tool denied: a failed tool result; Gemini usage from _meta.quota; a 401 becomes an error with its status', async () => {
    const denied = await replayThroughAdapter(parsingOnly(createAcpAdapter({ command: 'a' })), { name: 'denied', stdoutFile: fixture('claude-code-acp-tool-denied.stdout.jsonl') });
    expect(denied.parts.find((part) => part.type === 'tool-result')).toMatchObject({ isError: true, output: 'User refused permission to run tool' });
    const gemini = await replayThroughAdapter(parsingOnly(createAcpAdapter({ command: 'gemini' })), { name: 'gemini', stdoutFile: fixture('gemini-acp-tool.stdout.jsonl') });
    expect(gemini.parts.filter((part) => part.type === 'usage')).toEqual([{ type: 'usage', usage: { inputTokens: 24, outputTokens: 16 } }]);
    expect(gemini.parts.find((part) => part.type === 'tool-call')).toMatchObject({ toolName: 'write_file' });
    const failed = await replayThroughAdapter(parsingOnly(createAcpAdapter({ command: 'gemini' })), { name: '401', stdoutFile: fixture('gemini-acp-error401.stdout.jsonl') });
    expect(failed.parts.slice(-2)).toEqual([
      { type: 'error', message: 'Request had invalid authentication credentials. (fake-llm)', status: 401 },
      { type: 'turn-end', text: 'Request had invalid authentication credentials. (fake-llm)', isError: true, stopReason: 'error' },
    ]);
  });

  it('passes the core adapter conformance suite', async () => {
    const report = await assertAdapterConformance({
      createAdapter: () => parsingOnly(createAcpAdapter({ command: 'agent' })),
      replays: [
        { name: 'claude-code-acp-tool', stdoutFile: fixture('claude-code-acp-tool.stdout.jsonl'), expectedText: 'Done: the file has been written.' },
        { name: 'gemini-acp-tool', stdoutFile: fixture('gemini-acp-tool.stdout.jsonl'), expectedText: 'Done: the file has been written.' },
      ],
    });
    expect(report.failures).toEqual([]);
  });
});

describe('permission requests', () => {
  const options = [
    { optionId: 'always', name: 'Always', kind: 'allow_always' },
    { optionId: 'once', name: 'Allow', kind: 'allow_once' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  ];

  it('answers map to the agent’s options (once by default, always when asked); no matching option cancels', () => {
    expect(permissionOutcome(true, options).outcome).toEqual({ outcome: 'selected', optionId: 'once' });
    expect(permissionOutcome({ behavior: 'allow', always: true }, options).outcome).toEqual({ outcome: 'selected', optionId: 'always' });
    expect(permissionOutcome({ behavior: 'deny', message: 'no writes' }, options)).toEqual({
      outcome: { outcome: 'selected', optionId: 'no', _meta: { 'troupe/reason': 'no writes' } },
      decision: 'deny',
      message: 'no writes',
    });
    expect(permissionOutcome('deny', [options[0] as (typeof options)[number]]).outcome).toEqual({ outcome: 'cancelled' });
  });

  it('askInTerminal asks the human, one question at a time', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let asked = '';
    output.on('data', (chunk: Buffer) => (asked += chunk.toString()));
    const ask = askInTerminal({ input, output });
    const request: AcpPermissionRequest = { sessionId: 's', toolCallId: 't', toolName: 'Write', title: 'Write hello.txt', kind: 'edit', input: {}, locations: [{ path: '/w/hello.txt' }], options };
    const signal = new AbortController().signal;
    const first = ask(request, { signal });
    const second = ask({ ...request, toolCallId: 'u' }, { signal });
    input.write('a\n');
    expect(await first).toEqual({ behavior: 'allow', always: true });
    input.write('nope\n');
    expect(await second).toEqual({ behavior: 'deny', message: 'denied by the user' });
    expect(asked).toContain('Allow Write: Write hello.txt (/w/hello.txt)? [y]es, [a]lways, [N]o: ');
  });

  it('through the agent\'s stdio: canUseTool decides, the agent gets the answer, events tell both sides', async () => {
    const bus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void (event.type.startsWith('acp:') && events.push(event)));
    const seen: AcpPermissionRequest[] = [];
    const adapter = createAcpAdapter({
      command: fakeAgent,
      eventBus: bus,
      canUseTool: (request) => {
        seen.push(request);
        return request.kind === 'edit' ? { behavior: 'allow' } : false;
      },
    });
    const manager = await startCoder(adapter);
    try {
      const result = await manager.send('coder', 'Create hello.txt', { timeout: 20_000 }).result;
      expect(result.text).toBe('permission: proceed_once');
      expect(seen.map((request) => [request.toolName, request.kind, request.title])).toEqual([['write_file', 'edit', 'Writing to hello.txt']]);
      expect(events.map((event) => [event.type, (event.payload as { decision?: string }).decision])).toEqual([
        ['acp:permission-requested', undefined],
        ['acp:permission-decided', 'allow'],
      ]);
      expect(events[1]?.payload).toMatchObject({ adapterId: 'acp', toolCallId: 'write_file__write_file_1795318144717_0', optionId: 'proceed_once' });
    } finally {
      await manager.cleanup();
    }
  });

  it('with the shared permissions contract: the policy and canUseTool see a ToolUseRequest, the decision is audited', async () => {
    const bus = new EventBus();
    const audits: unknown[] = [];
    bus.on('permission:decided', (event) => void audits.push(event.payload));
    const seen: ToolUseRequest[] = [];
    const adapter = createAcpAdapter({
      command: fakeAgent,
      eventBus: bus,
      permissions: {
        policy: { deny: ['kind:execute'], allow: ['kind:read'] },
        canUseTool: (request) => {
          seen.push(request);
          return { behavior: 'deny', message: 'no writes in review' };
        },
      },
    });
    const manager = await startCoder(adapter);
    try {
      const result = await manager.send('coder', 'Create hello.txt', { timeout: 20_000 }).result;
      expect(result.text).toBe('permission: cancel');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ agent: 'coder', adapter: 'acp', tool: 'write_file', kind: 'edit', id: 'write_file__write_file_1795318144717_0' });
      expect(audits).toEqual([expect.objectContaining({ agent: 'coder', tool: 'write_file', behavior: 'deny', decidedBy: 'callback', reason: 'no writes in review' })]);
    } finally {
      await manager.cleanup();
    }
  });

  it('refuses canUseTool together with permissions, and a malformed policy, naming the field', () => {
    expect(() => createAcpAdapter({ command: fakeAgent, canUseTool: 'allow', permissions: {} })).toThrow(/permissions: set either permissions/);
    expect(() => createAcpAdapter({ command: fakeAgent, permissions: { policy: { deny: ['kind:network'] } } })).toThrow(/deny\[0\].*unknown kind "network"/s);
  });

  it('a canUseTool deny message reaches the agent and the parts: a failed tool result, a warning, the turn result (issue 27)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-acp-deny-'));
    const record = join(dir, 'received.jsonl');
    const adapter = createAcpAdapter({ command: fakeAgent, args: ['--record', record], canUseTool: () => ({ behavior: 'deny', message: 'read-only review' }) });
    const manager = await startCoder(adapter);
    try {
      const result = await manager.send('coder', 'Create hello.txt', { timeout: 20_000 }).result;
      expect(result.text).toBe('permission: cancel');
      const toolCallId = 'write_file__write_file_1795318144717_0';
      expect(result.parts.filter((part) => part.type === 'tool-result')).toEqual([
        { type: 'tool-result', toolCallId, toolName: 'write_file', output: 'Permission denied: read-only review', isError: true },
      ]);
      expect(result.permissionDenials).toEqual([
        { toolName: 'write_file', toolCallId, input: expect.objectContaining({ title: 'Writing to hello.txt' }), message: 'permission for write_file was denied: read-only review' },
      ]);
      // The answer carries the reason in the protocol's only place for it, the selected outcome's _meta ...
      const received = () => readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method?: string; result?: unknown; params?: { prompt?: Array<{ text: string }> } });
      expect(received().find((message) => message.result !== undefined)?.result).toEqual({
        outcome: { outcome: 'selected', optionId: 'cancel', _meta: { 'troupe/reason': 'read-only review' } },
      });
      // ... and, as agents ignore it (Gemini tells its model "canceled by the user"), with the next message: each denial once
      // (the fake agent asks again each turn and is denied again, so each next message tells of the last turn's denial only).
      await manager.send('coder', 'Go on', { timeout: 20_000 }).result;
      await manager.send('coder', 'And again', { timeout: 20_000 }).result;
      const prompts = received().filter((message) => message.method === 'session/prompt').map((message) => message.params?.prompt?.[0]?.text);
      const note = '[Troupe] In the previous turn, your write_file call (Writing to hello.txt) was denied: read-only review. That call did not run.\n\n';
      expect(prompts).toEqual(['Create hello.txt', `${note}Go on`, `${note}And again`]);
    } finally {
      await manager.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a throwing callback cancels the request instead of crashing the turn', async () => {
    const adapter = createAcpAdapter({
      command: fakeAgent,
      canUseTool: () => {
        throw new Error('policy service down');
      },
    });
    const manager = await startCoder(adapter);
    try {
      expect(await manager.sendAndReceive('coder', 'Create hello.txt', { timeoutMs: 20_000 })).toBe('permission: cancelled');
    } finally {
      await manager.cleanup();
    }
  });
});
