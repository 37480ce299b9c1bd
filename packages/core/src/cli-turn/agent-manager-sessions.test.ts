import { describe, expect, it } from 'vitest';
import { AgentError, CapabilityUnsupportedError, InvalidArgumentError, InvalidStateError, type AgentAdapterCapabilities } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { MockAgentAdapter, type MockAgentAdapterOptions } from '@troupe/core/testing';

function setup(options: MockAgentAdapterOptions = {}) {
  const adapter = new MockAgentAdapter(options);
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  return { adapter, manager: new AgentManager({ adapters }) };
}

const reply = (text: string, session: string) => [
  JSON.stringify({ type: 'session', id: session }),
  JSON.stringify({ type: 'text', text }),
  JSON.stringify({ type: 'result', result: text }),
];
const failed = (session: string) => [JSON.stringify({ type: 'session', id: session }), '{"type":"result","result":"[API Error: 500]","is_error":true}'];

const ALL: Partial<AgentAdapterCapabilities> = { resume: true, continueSession: true, forkSession: true };

/** The session part of the context of each process the adapter was asked to configure. */
function sessionContexts(adapter: MockAgentAdapter) {
  // The session part of each turn's context (every context also names the role: see the roleId test).
  return adapter.calls.flatMap((call) => {
    if (call.method !== 'getProcessConfig') return [];
    const { roleId: _roleId, ...session } = call.context ?? {};
    return [session];
  });
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('AgentManager sessions across processes (ensureAgentStarted session options)', () => {
  it('names the role in every turn context, so adapters can name the agent in permission requests', async () => {
    const { manager, adapter } = setup({ capabilities: ALL, cli: (turn) => ({ lines: reply(`answer ${turn}`, 's-9') }) });
    await manager.ensureAgentStarted('reviewer', 'mock', {});
    await manager.sendAndReceive('reviewer', 'look');
    expect(adapter.calls.flatMap((call) => (call.method === 'getProcessConfig' ? [call.context?.roleId] : []))).toEqual(['reviewer']);
    await manager.cleanup();
  });

  it('resume: the first turn resumes the given id (as a later process would), later turns the session they ended in', async () => {
    const { manager, adapter } = setup({ capabilities: ALL, cli: (turn) => ({ lines: reply(`answer ${turn}`, 'saved-1') }) });
    await manager.ensureAgentStarted('coder', 'mock', {}, { resume: 'saved-1' });
    const first = await manager.send('coder', 'go on').result;
    expect(first.sessionId).toBe('saved-1');
    await manager.sendAndReceive('coder', 'and then');
    expect(sessionContexts(adapter)).toEqual([{ resumeSessionId: 'saved-1' }, { resumeSessionId: 'saved-1' }]);
    expect(manager.getAgentInfo('coder')?.sessionOptions).toEqual({ resume: 'saved-1' });
    await manager.cleanup();
  });

  it('continue: the first turn continues the folder\'s last session; the next turns resume the id it reported', async () => {
    const { manager, adapter } = setup({ capabilities: ALL, cli: (turn) => ({ lines: reply(`answer ${turn}`, 'last-1') }) });
    await manager.ensureAgentStarted('coder', 'mock', {}, { continue: true });
    expect((await manager.send('coder', 'go on').result).sessionId).toBe('last-1');
    await manager.sendAndReceive('coder', 'and then');
    expect(sessionContexts(adapter)).toEqual([{ continueLastSession: true }, { resumeSessionId: 'last-1' }]);
    await manager.cleanup();
  });

  it('forkSession: the first turn forks; the next turns resume the fork, not the original', async () => {
    const { manager, adapter } = setup({ capabilities: ALL, cli: (turn) => ({ lines: reply(`answer ${turn}`, 'fork-1') }) });
    await manager.ensureAgentStarted('coder', 'mock', {}, { resume: 'original-1', forkSession: true });
    const first = await manager.send('coder', 'try another way').result;
    expect(first.sessionId).toBe('fork-1');
    await manager.sendAndReceive('coder', 'and then');
    expect(sessionContexts(adapter)).toEqual([{ resumeSessionId: 'original-1', forkSession: true }, { resumeSessionId: 'fork-1' }]);
    await manager.cleanup();
  });

  it('a failed first turn does not use up continue / forkSession: the next turn asks again', async () => {
    const cli = (turn: number) => (turn === 0 ? { lines: failed('broken-0'), exitCode: 1 } : { lines: reply(`answer ${turn}`, `fork-${turn}`) });
    const { manager, adapter } = setup({ capabilities: ALL, cli });
    await manager.ensureAgentStarted('coder', 'mock', {}, { continue: true, forkSession: true });
    expect((await manager.send('coder', 'one').result).agentError).toBeInstanceOf(AgentError);
    const second = await manager.send('coder', 'two').result;
    expect(second.text).toBe('answer 1');
    expect(second.parts[0]).toMatchObject({ type: 'warning', code: 'session-not-resumed', message: expect.stringContaining('continues the last session of its folder') });
    await manager.sendAndReceive('coder', 'three');
    expect(sessionContexts(adapter)).toEqual([
      { continueLastSession: true, forkSession: true },
      { continueLastSession: true, forkSession: true },
      { resumeSessionId: 'fork-1' },
    ]);
    await manager.cleanup();
  });

  it.each([
    [{ resume: 's-1' }, { resume: false }, 'resume', /"mock" adapter cannot resume a session.*options\.resume/],
    [{ continue: true }, { continueSession: false }, 'continueSession', /"mock" adapter cannot continue the last session.*options\.continue/],
    [{ resume: 's-1', forkSession: true }, { forkSession: undefined }, 'forkSession', /"mock" adapter cannot fork a session.*options\.forkSession/],
  ] as const)('%o on an adapter without the capability is a CapabilityUnsupportedError naming both; nothing is spawned', async (session, capabilities, capability, message) => {
    const { manager, adapter } = setup({ capabilities: { ...ALL, ...capabilities } });
    const error = await errorOf(manager.ensureAgentStarted('coder', 'mock', {}, session));
    expect(error).toBeInstanceOf(CapabilityUnsupportedError);
    expect(error).toMatchObject({ adapterId: 'mock', capability });
    expect((error as Error).message).toMatch(message);
    expect(sessionContexts(adapter)).toEqual([]);
    expect(manager.isRunning('coder')).toBe(false);
  });

  it.each([
    [{ resume: '' }, 'options.resume'],
    [{ resume: '--dangerously-skip-permissions' }, 'options.resume'],
    [{ resume: 'two words' }, 'options.resume'],
    [{ resume: 42 }, 'options.resume'],
    [{ continue: 'yes' }, 'options.continue'],
    [{ resume: 's-1', continue: true }, 'options.continue'],
    [{ forkSession: true }, 'options.forkSession'],
    [{ resumeSessionId: 's-1' }, 'options.resumeSessionId'],
    ['s-1', 'options'],
  ] as const)('bad session options %o: InvalidArgumentError naming %s', async (session, name) => {
    const { manager, adapter } = setup({ capabilities: ALL });
    const error = await errorOf(manager.ensureAgentStarted('coder', 'mock', {}, session as never));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain(name);
    expect(sessionContexts(adapter)).toEqual([]);
  });

  it('the same options again are fine; other ones on a started role are an InvalidStateError', async () => {
    const { manager } = setup({ capabilities: ALL, cli: { lines: reply('ok', 's-1') } });
    const processId = await manager.ensureAgentStarted('coder', 'mock', {}, { resume: 's-1' });
    expect(await manager.ensureAgentStarted('coder', 'mock', {}, { resume: 's-1' })).toBe(processId);
    expect(await manager.ensureAgentStarted('coder', 'mock')).toBe(processId);
    const error = await errorOf(manager.ensureAgentStarted('coder', 'mock', {}, { resume: 's-2' }));
    expect(error).toBeInstanceOf(InvalidStateError);
    expect((error as Error).message).toMatch(/already started with other session options; stopAgent\("coder"\)/);
    await manager.cleanup();
  });
});
