import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  AgentError,
  CompletionTimeoutError,
  InvalidArgumentError,
  type AgentAdapterV1,
  type AgentStreamPart,
  type AgentTurnStart,
} from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { fakeAgentProcessConfig, MockAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';

// Turn context and turn-start hook, turn-end rules, agent error messages, sendAndReceive's options, role ids.

/** What the "echo" adapter remembers during one turn. */
interface EchoTurn {
  start: AgentTurnStart;
  text: string;
}

/**
 * An adapter written the way the contract asks: no state of its own. Text lines accumulate in the turn's
 * state; `{"type":"end"}` ends the turn with that text; `{"type":"fail"}` with an error.
 */
function echoAdapter(cli: (member: { workDir?: string }) => FakeAgentCliOptions): AgentAdapterV1<EchoTurn> & { starts: AgentTurnStart[] } {
  const starts: AgentTurnStart[] = [];
  return {
    specificationVersion: 'v1',
    adapterId: 'echo',
    capabilities: { systemPrompt: 'none', resume: false, streamingText: true },
    starts,
    getProcessConfig: (member) => fakeAgentProcessConfig(cli(member)),
    prepareMessage: (message) => message,
    parseResponse: (raw) => raw,
    getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ['end', 'fail'] }),
    startTurn(start) {
      starts.push(start);
      return { start, text: '' };
    },
    parseLine(_line, json, context) {
      const event = json as { type?: string; text?: string; message?: string; status?: number } | undefined;
      const turn = context?.state;
      if (!turn) throw new Error('a runner must give the turn context');
      switch (event?.type) {
        case 'text':
          turn.text += event.text ?? '';
          return [{ type: 'text-delta', text: event.text ?? '' }];
        case 'error':
          return [{ type: 'error', message: event.message ?? '', ...(event.status !== undefined ? { status: event.status } : {}) }];
        case 'end':
          return [{ type: 'turn-end', text: `${turn.start.roleId}#${turn.start.turnNumber}: ${turn.text}`, isError: false }];
        case 'fail':
          return [{ type: 'turn-end', text: event.text ?? '', isError: true }];
        default:
          return [];
      }
    },
  };
}

const line = (value: object) => JSON.stringify(value);

function managerWith(adapter: AgentAdapterV1<EchoTurn> | AgentAdapterV1 | MockAgentAdapter) {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'echo', create: () => adapter as AgentAdapterV1 }); // one adapter instance for every member
  return new AgentManager({ adapters });
}

const managers: AgentManager[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});
function track(manager: AgentManager): AgentManager {
  managers.push(manager);
  return manager;
}

describe('AgentManager: turn context and turn-start hook', () => {
  it('calls startTurn once per turn and gives every parseLine its turn: state, role, turn and line numbers', async () => {
    const mock = new MockAgentAdapter({ adapterId: 'echo', cli: { lines: ['noise', line({ type: 'text', text: 'hi' }), line({ type: 'result', result: 'hi' })] } });
    const manager = track(managerWith(mock));
    await manager.ensureAgentStarted('max', 'echo', { workDir: process.cwd() });
    await manager.sendAndReceive('max', 'first');
    await manager.sendAndReceive('max', 'second');
    const starts = mock.calls.filter((call) => call.method === 'startTurn');
    expect(starts).toEqual([
      { method: 'startTurn', turn: { roleId: 'max', turnNumber: 1, member: { workDir: process.cwd() }, message: 'first' } },
      { method: 'startTurn', turn: { roleId: 'max', turnNumber: 2, member: { workDir: process.cwd() }, message: 'second' } },
    ]);
    const lines = mock.calls.filter((call) => call.method === 'parseLine');
    expect(lines.map((call) => call.method === 'parseLine' && [call.context?.turnNumber, call.context?.lineIndex])).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
      [2, 0],
      [2, 1],
      [2, 2],
    ]);
  });

  it('one adapter serves concurrent turns of several members, each with its own state', async () => {
    const words = { ann: ['a1 ', 'a2 ', 'a3'], bob: ['b1 ', 'b2 ', 'b3'] };
    const adapter = echoAdapter((member) => {
      const who = member.workDir?.endsWith('ann') ? 'ann' : 'bob';
      return { lines: [...words[who].map((text) => line({ type: 'text', text })), line({ type: 'end' })], delayMs: 20 };
    });
    const manager = track(managerWith(adapter));
    await manager.ensureAgentStarted('ann', 'echo', { workDir: '/tmp/ann' });
    await manager.ensureAgentStarted('bob', 'echo', { workDir: '/tmp/bob' });
    const [ann, bob] = await Promise.all([manager.send('ann', 'go').result, manager.send('bob', 'go').result]);
    const endOf = (parts: AgentStreamPart[]) => parts.find((part) => part.type === 'turn-end');
    expect(endOf(ann?.parts ?? [])).toMatchObject({ text: 'ann#1: a1 a2 a3' });
    expect(endOf(bob?.parts ?? [])).toMatchObject({ text: 'bob#1: b1 b2 b3' });
    expect(adapter.starts.map((start) => start.roleId).sort()).toEqual(['ann', 'bob']);
  });

  it('a throwing startTurn fails the turn before anything runs', async () => {
    const adapter = { ...echoAdapter(() => ({ lines: [line({ type: 'end' })] })), startTurn: () => {
      throw new Error('no turn for you');
    } };
    const manager = track(managerWith(adapter));
    await manager.ensureAgentStarted('r', 'echo');
    await expect(manager.send('r', 'go').result).rejects.toThrow('no turn for you');
  });
});

describe('AgentManager: turn-end and agent errors', () => {
  it("an agent error's message includes the preceding error part's text, and its status", async () => {
    const adapter = echoAdapter(() => ({
      lines: [line({ type: 'error', message: 'API Error: 529 overloaded, retrying', status: 529 }), line({ type: 'error', message: 'API Error: 401 invalid x-api-key', status: 401 }), line({ type: 'fail', text: 'turn failed' })],
    }));
    const manager = track(managerWith(adapter));
    await manager.ensureAgentStarted('r', 'echo');
    const error = await manager.sendAndReceive('r', 'hi').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ message: 'echo reported an error: API Error: 401 invalid x-api-key — turn failed', status: 401 });
  });

  it('the same text in the error part and the turn-end is said once; no text at all says "turn failed"', async () => {
    const same = echoAdapter(() => ({ lines: [line({ type: 'error', message: 'quota exceeded' }), line({ type: 'fail', text: 'quota exceeded' })] }));
    const manager = track(managerWith(same));
    await manager.ensureAgentStarted('r', 'echo');
    expect((await manager.send('r', 'hi').result).agentError?.message).toBe('echo reported an error: quota exceeded');
    const bare = track(managerWith(echoAdapter(() => ({ lines: [line({ type: 'fail', text: '' })] }))));
    await bare.ensureAgentStarted('r', 'echo');
    expect((await bare.send('r', 'hi').result).agentError?.message).toBe('echo reported an error: turn failed');
  });

  it('a second turn-end in one turn never overrides an error, and is reported with a warning', async () => {
    const warnings: Array<{ message: string; code: string | undefined }> = [];
    vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options?: { code?: string }) => {
      warnings.push({ message: String(message), code: options?.code });
    }) as typeof process.emitWarning);
    // The completion strategy ends the turn at "done"; the adapter itself ends it twice before.
    const twice: AgentAdapterV1 = {
      ...echoAdapter(() => ({ lines: [line({ type: 'fail', text: 'boom' }), line({ type: 'end' }), line({ type: 'done' })] })),
      getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ['done'] }),
    };
    const manager = track(managerWith(twice));
    await manager.ensureAgentStarted('r', 'echo');
    const result = await manager.send('r', 'hi').result;
    expect(result.parts.filter((part) => part.type === 'turn-end').map((part) => part.type === 'turn-end' && part.isError)).toEqual([true, false]);
    expect(result.agentError?.message).toBe('echo reported an error: boom');
    expect(warnings).toEqual([{ code: 'TROUPE_TURN_END_REPEATED', message: expect.stringContaining('adapter echo ended turn 1 of role "r" more than once') }]);
  });
});

describe('AgentManager.sendAndReceive options', () => {
  it('takes { member, signal, timeoutMs }: a signal needs no placeholder for the member', async () => {
    const mock = new MockAgentAdapter({ adapterId: 'echo', capabilities: { systemPrompt: 'message' }, cli: (turn) => (turn === 0 ? { lines: [line({ type: 'result', result: 'ok' })] } : { hang: true }) });
    const manager = track(managerWith(mock));
    await manager.ensureAgentStarted('r', 'echo', { systemInstruction: 'default persona' });
    expect(await manager.sendAndReceive('r', 'hi', { member: { systemInstruction: 'other persona' }, timeoutMs: 10_000 })).toBe('ok');
    expect(mock.calls.find((call) => call.method === 'prepareMessage')).toMatchObject({ member: { systemInstruction: 'other persona' } });
    const controller = new AbortController();
    const pending = manager.sendAndReceive('r', 'hang', { signal: controller.signal });
    setTimeout(() => controller.abort('stop'), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('timeoutMs limits the turn; the deprecated timeout still does, with a warning naming timeoutMs', async () => {
    const mock = new MockAgentAdapter({ adapterId: 'echo', cli: { hang: true } });
    const manager = track(managerWith(mock));
    await manager.ensureAgentStarted('r', 'echo');
    await expect(manager.sendAndReceive('r', 'hi', { timeoutMs: 100 })).rejects.toBeInstanceOf(CompletionTimeoutError);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await expect(manager.sendAndReceive('r', 'hi', { timeout: 100 })).rejects.toBeInstanceOf(CompletionTimeoutError);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => warning.message)).toContain(
      'AgentManager.send options.timeout is deprecated and will be removed in the next minor version: rename it to timeoutMs (milliseconds).',
    );
    await expect(manager.sendAndReceive('r', 'hi', { timeout: 100, timeoutMs: 100 })).rejects.toThrow('give only timeoutMs');
  });

  it('a wrong option name is refused naming the right one, never taken for a member config (the deprecated overload is gone)', async () => {
    const mock = new MockAgentAdapter({ adapterId: 'echo', capabilities: { systemPrompt: 'message' }, cli: { lines: [line({ type: 'result', result: 'ok' })] } });
    const manager = track(managerWith(mock));
    await manager.ensureAgentStarted('r', 'echo');
    for (const wrong of ['timeOut', 'timeout_ms', 'turnTimeoutMs', 'defaultTimeoutMs']) {
      await expect(manager.sendAndReceive('r', 'hi', { [wrong]: 5000 } as never)).rejects.toThrow(
        `Invalid argument "options.${wrong}": not an option; the time limit of a turn is "timeoutMs" (milliseconds)`,
      );
    }
    // A member config where the options go: named, with where it belongs.
    await expect(manager.sendAndReceive('r', 'hi', { systemInstruction: 'legacy persona' } as never)).rejects.toThrow(
      'Invalid argument "options.systemInstruction": not an option (options: timeoutMs, signal, member, schema); the member config goes in options.member',
    );
    expect(() => manager.send('r', 'hi', { timout: 5 } as never)).toThrow('Invalid argument "options.timout": not an option; the time limit of a turn is "timeoutMs"');
    expect(mock.calls.filter((call) => call.method === 'prepareMessage')).toHaveLength(0);
  });

  it('rejects options that are not an object', async () => {
    const manager = track(managerWith(new MockAgentAdapter({ adapterId: 'echo' })));
    await manager.ensureAgentStarted('r', 'echo');
    await expect(manager.sendAndReceive('r', 'hi', 'fast' as never)).rejects.toThrow(InvalidArgumentError);
  });
});

describe('AgentManager.ensureAgentStarted role ids', () => {
  it('rejects ids that AGENT_ID_PATTERN forbids, before creating anything', async () => {
    const mock = new MockAgentAdapter({ adapterId: 'echo' });
    const manager = track(managerWith(mock));
    for (const bad of ['', ' max', 'max chen', '-flag', '../etc', 'a'.repeat(129), 'tab\tid']) {
      await expect(manager.ensureAgentStarted(bad, 'echo'), JSON.stringify(bad)).rejects.toThrow(/Invalid argument "roleId": .* is not a valid agent id/);
    }
    await expect(manager.ensureAgentStarted(42 as never, 'echo')).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(mock.calls).toEqual([]);
    expect(manager.getRunningRoles()).toEqual([]);
    await manager.ensureAgentStarted('max.chen:coder-1', 'echo');
    expect(manager.getRunningRoles()).toEqual(['max.chen:coder-1']);
  });
});
