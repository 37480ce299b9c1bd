import { describe, expect, it } from 'vitest';
import {
  AbortError,
  AdapterNotFoundError,
  AgentError,
  CompletionTimeoutError,
  EventBus,
  ProcessError,
  type AgentStreamPart,
  type AnyTroupeEvent,
} from '@troupe/core';
import { AdapterRegistry, AgentManager, isGroupAlive } from '@troupe/core/cli-turn';
import { REDACTED } from '@troupe/core/util';
import { MockAgentAdapter, type MockAgentAdapterOptions } from '@troupe/core/testing';

function setup(options: MockAgentAdapterOptions = {}) {
  const adapter = new MockAgentAdapter(options);
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  const eventBus = new EventBus();
  const events: AnyTroupeEvent[] = [];
  eventBus.on('*', (event) => void events.push(event));
  const manager = new AgentManager({ adapters, eventBus });
  return { adapter, adapters, manager, events };
}

const reply = (text: string, session = 's-1') => [
  JSON.stringify({ type: 'session', id: session }),
  JSON.stringify({ type: 'text', text }),
  JSON.stringify({ type: 'result', result: text }),
];

describe('AdapterRegistry', () => {
  it('registers, creates and unregisters adapter types', () => {
    const adapters = new AdapterRegistry();
    const off = adapters.register({ type: 'mock', create: () => new MockAgentAdapter() });
    expect(adapters.types()).toEqual(['mock']);
    expect(adapters.create('mock').adapterId).toBe('mock');
    expect(() => adapters.register({ type: 'mock', create: () => new MockAgentAdapter() })).toThrow(/already registered/);
    off();
    expect(adapters.has('mock')).toBe(false);
  });

  it('an unknown type throws AdapterNotFoundError listing the registered ones', () => {
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => new MockAgentAdapter() });
    adapters.register({ type: 'codex', create: () => new MockAgentAdapter() });
    expect(() => adapters.create('gemini')).toThrow(AdapterNotFoundError);
    expect(() => adapters.create('gemini')).toThrow(/Registered adapters: claude, codex/);
  });

  it('rejects malformed plugins loudly', () => {
    const adapters = new AdapterRegistry();
    expect(() => adapters.register({ type: 'Bad Name', create: () => new MockAgentAdapter() })).toThrow(/plugin\.type/);
    expect(() => adapters.register({ type: 'ok', create: 'x' as never })).toThrow(/plugin\.create/);
  });
});

describe('AgentManager', () => {
  it('runs a member turn through its adapter and streams normalized parts', async () => {
    const { manager, adapter, events } = setup({ cli: { lines: reply('Hello from the mock.') } });
    const processId = await manager.ensureAgentStarted('max', 'mock', { systemInstruction: 'You are Max.', workDir: process.cwd() });
    expect(processId).toMatch(/^proc-/);
    expect(manager.getRunningRoles()).toEqual(['max']);
    const turn = manager.send('max', 'Review the code');
    const parts: AgentStreamPart[] = [];
    for await (const part of turn) parts.push(part);
    const result = await turn.result;
    expect(parts.map((p) => p.type)).toEqual(['session', 'text-delta', 'turn-end']);
    expect(result.text).toBe('Hello from the mock.');
    expect(result.sessionId).toBe('s-1');
    expect(result.outcome.status).toBe('completed');
    // The system prompt went once, through prepareMessage (capabilities.systemPrompt = 'message').
    const prepared = adapter.calls.find((c) => c.method === 'prepareMessage');
    expect(prepared).toMatchObject({ message: 'Review the code', member: { systemInstruction: 'You are Max.' } });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['agent:started', 'process:started', 'agent:part', 'agent:turn-completed']),
    );
    await manager.cleanup();
    expect(manager.getRunningRoles()).toEqual([]);
  });

  it('sendAndReceive resolves the answer; the next turn resumes the session', async () => {
    const { manager, adapter } = setup({ cli: (turn) => ({ lines: reply(`answer ${turn}`, `session-${turn}`), echoStdin: true }) });
    await manager.ensureAgentStarted('sarah', 'mock');
    expect(await manager.sendAndReceive('sarah', 'first')).toBe('answer 0');
    expect(await manager.sendAndReceive('sarah', 'second')).toBe('answer 1');
    const configs = adapter.calls.filter((c) => c.method === 'getProcessConfig');
    expect(configs.map((c) => c.method === 'getProcessConfig' && c.context?.resumeSessionId)).toEqual([undefined, 'session-0']);
    await manager.cleanup();
  });

  it('a session that began in a failed turn is not resumed: the next turn starts fresh, with a warning (issue 27)', async () => {
    // Turn 0 fails (a 500, as Gemini reports it) in a new session; turns 1 and 2 succeed.
    const failed = ['{"type":"session","id":"session-0"}', '{"type":"result","result":"[API Error: 500]","is_error":true}'];
    const { manager, adapter, events } = setup({ cli: (turn) => (turn === 0 ? { lines: failed, exitCode: 244 } : { lines: reply(`answer ${turn}`, `session-${turn}`) }) });
    await manager.ensureAgentStarted('gem', 'mock');
    const first = await manager.send('gem', 'first').result;
    expect(first.agentError?.message).toContain('[API Error: 500]');
    expect(first.sessionId).toBe('session-0');
    expect(first.parts.some((part) => part.type === 'warning')).toBe(false);
    const second = await manager.send('gem', 'second').result;
    expect(second.text).toBe('answer 1');
    // The turn that does not resume says so first.
    expect(second.parts[0]).toEqual({
      type: 'warning',
      code: 'session-not-resumed',
      message: 'mock: not resuming session session-0: it began in a turn that failed, so the CLI may not have saved it; this turn starts a fresh session',
    });
    expect(events.some((event) => event.type === 'agent:part' && event.payload.part.type === 'warning')).toBe(true);
    expect(await manager.sendAndReceive('gem', 'third')).toBe('answer 2');
    const configs = adapter.calls.filter((c) => c.method === 'getProcessConfig');
    expect(configs.map((c) => c.method === 'getProcessConfig' && c.context?.resumeSessionId)).toEqual([undefined, undefined, 'session-1']);
    await manager.cleanup();
  });

  it('a failed turn that resumed a saved session keeps resuming it', async () => {
    const failed = ['{"type":"session","id":"session-0"}', '{"type":"result","result":"[API Error: 500]","is_error":true}'];
    const { manager, adapter } = setup({ cli: (turn) => (turn === 1 ? { lines: failed, exitCode: 244 } : { lines: reply(`answer ${turn}`, 'session-0') }) });
    await manager.ensureAgentStarted('gem', 'mock');
    expect(await manager.sendAndReceive('gem', 'first')).toBe('answer 0');
    const second = await manager.send('gem', 'second').result;
    expect(second.agentError).toBeInstanceOf(AgentError);
    expect(second.parts.some((part) => part.type === 'warning')).toBe(false);
    expect(await manager.sendAndReceive('gem', 'third')).toBe('answer 2');
    const configs = adapter.calls.filter((c) => c.method === 'getProcessConfig');
    expect(configs.map((c) => c.method === 'getProcessConfig' && c.context?.resumeSessionId)).toEqual([undefined, 'session-0', 'session-0']);
    await manager.cleanup();
  });

  it('turns a CLI-reported failure into an AgentError', async () => {
    const { manager } = setup({ cli: { lines: ['{"type":"result","result":"Invalid API key","is_error":true}'], exitCode: 1 } });
    await manager.ensureAgentStarted('r', 'mock');
    const error = await manager.sendAndReceive('r', 'hi').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).message).toContain('Invalid API key');
    await manager.cleanup();
  });

  it('throws typed errors for process failures and timeouts', async () => {
    const crash = setup({ cli: { lines: ['{"type":"text","text":"partial"}'], exitCode: 2, stderr: 'segfault-ish' } });
    await crash.manager.ensureAgentStarted('c', 'mock');
    await expect(crash.manager.sendAndReceive('c', 'hi')).rejects.toBeInstanceOf(ProcessError);
    await crash.manager.cleanup();
    const hang = setup({ cli: { hang: true } });
    await hang.manager.ensureAgentStarted('h', 'mock');
    await expect(hang.manager.sendAndReceive('h', 'hi', { timeoutMs: 200 })).rejects.toBeInstanceOf(CompletionTimeoutError);
    await hang.manager.cleanup();
  });

  it('reports unknown adapters and roles clearly', async () => {
    const { manager } = setup();
    await expect(manager.ensureAgentStarted('x', 'cursor')).rejects.toThrow(/Registered adapters: mock/);
    expect(() => manager.send('ghost', 'hi')).toThrow(/no running agent/);
    await manager.stopAgent('ghost'); // silent, as in the seed
    expect(manager.isRunning('ghost')).toBe(false);
  });

  it('uses registry definitions when given (seed AgentConfigManager)', async () => {
    const adapter = new MockAgentAdapter({ cli: { lines: reply('from definition') } });
    const adapters = new AdapterRegistry();
    const created: unknown[] = [];
    adapters.register({
      type: 'mock',
      create: (definition) => {
        created.push(definition?.command);
        return adapter;
      },
    });
    const manager = new AgentManager({
      adapters,
      definitions: async (configId) =>
        configId === 'my-mock'
          ? { name: 'my-mock', adapter: 'mock', command: '/opt/mock', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } }
          : undefined,
    });
    await manager.ensureAgentStarted('a', 'my-mock');
    expect(created).toEqual(['/opt/mock']);
    expect(await manager.sendAndReceive('a', 'go')).toBe('from definition');
    await manager.cleanup();
  });

  it('stopAgent during a turn cancels it: the result settles canceled and the CLI is gone', async () => {
    const { manager, events } = setup({ cli: { lines: ['{"type":"text","text":"working"}'], hang: true } });
    await manager.ensureAgentStarted('coder', 'mock');
    const turn = manager.send('coder', 'do something long');
    for await (const part of turn) if (part.type === 'text-delta') break; // the CLI is mid-turn
    const pid = (await turn.run).pid as number;
    expect(isGroupAlive(pid)).toBe(true);
    await manager.stopAgent('coder');
    const result = await turn.result;
    expect(result.outcome.status).toBe('canceled');
    expect(result.outcome.status === 'canceled' && result.outcome.error).toBeInstanceOf(AbortError);
    expect(isGroupAlive(pid)).toBe(false);
    expect(manager.isRunning('coder')).toBe(false);
    expect(events.filter((e) => e.type === 'agent:stopped')).toHaveLength(1);
    expect(events.find((e) => e.type === 'agent:turn-completed')?.payload).toMatchObject({ status: 'canceled' });
  });

  it('cleanup during turns settles every turn as canceled, not failed by SIGTERM', async () => {
    const { manager } = setup({ cli: { lines: ['{"type":"text","text":"working"}'], hang: true, ignoreSigterm: true } });
    await manager.ensureAgentStarted('a', 'mock');
    await manager.ensureAgentStarted('b', 'mock');
    const turns = [manager.send('a', 'one'), manager.send('b', 'two')];
    const pids = await Promise.all(turns.map(async (turn) => (await turn.run).pid as number));
    await manager.cleanup();
    for (const turn of turns) {
      const { outcome } = await turn.result;
      expect(outcome.status).toBe('canceled');
      expect(outcome.status === 'canceled' && outcome.error.message).toMatch(/was canceled/);
    }
    for (const pid of pids) expect(isGroupAlive(pid)).toBe(false);
    expect(manager.getRunningRoles()).toEqual([]);
  });

  it('stopAgent while the process is still being configured cancels the turn before it runs', async () => {
    const { manager } = setup({ cli: { lines: reply('never') } });
    await manager.ensureAgentStarted('r', 'mock');
    await manager.sendAndReceive('r', 'first'); // the next turn needs a fresh process
    const turn = manager.send('r', 'second');
    await manager.stopAgent('r');
    expect((await turn.result).outcome.status).toBe('canceled');
  });

  it('the `secrets` option hides more values from parts, results and events', async () => {
    const { adapter, adapters } = setup({ cli: { lines: reply('deploy token zz-deploy-4417 is set'), echoStdin: true } });
    const eventBus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    eventBus.on('*', (event) => void events.push(event));
    const manager = new AgentManager({ adapters, eventBus, secrets: ['zz-deploy-4417'] });
    await manager.ensureAgentStarted('r', 'mock');
    const result = await manager.send('r', 'hi').result;
    expect(result.text).toBe(`deploy token ${REDACTED} is set`);
    expect(JSON.stringify({ result, events })).not.toContain('zz-deploy-4417');
    expect(adapter.calls.filter((c) => c.method === 'parseLine').map((c) => c.method === 'parseLine' && c.line).join('\n')).not.toContain('zz-deploy-4417');
    await manager.cleanup();
  });
});
