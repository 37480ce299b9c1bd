import { describe, expect, it } from 'vitest';
import { AbortError, InvalidArgumentError, InvalidStateError, TroupeError, type RunnableAgent } from '@troupe/core';
import { AgentNotFoundError, AgentRegistry, defineAgent } from '@troupe/core/agent-runtime';

const echo = defineAgent({ id: 'echo', description: 'Repeats its input', run: (input) => input });

describe('AgentRegistry', () => {
  it('registers, finds and unregisters agents; unregister only removes its own registration', () => {
    const agents = new AgentRegistry();
    const unregister = agents.register(echo);
    expect(agents.get('echo')).toBe(echo);
    expect(agents.has('echo')).toBe(true);
    unregister();
    expect(agents.has('echo')).toBe(false);
    const again = defineAgent({ id: 'echo', description: 'second', run: () => 'x' });
    agents.register(again);
    unregister(); // the first registration's undo must not remove the second agent
    expect(agents.get('echo')).toBe(again);
  });

  it('names the registered ids when an id is unknown', () => {
    const agents = new AgentRegistry();
    expect(() => agents.get('looper')).toThrow('No agent registered as "looper". Registered agents: (none registered).');
    agents.register(echo);
    agents.register(defineAgent({ id: 'devhub', description: 'd', run: () => '' }));
    let caught: unknown;
    try {
      agents.get('lopper');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AgentNotFoundError);
    expect(TroupeError.hasCode(caught, 'AGENT_NOT_FOUND')).toBe(true);
    expect((caught as AgentNotFoundError).message).toBe('No agent registered as "lopper". Registered agents: devhub, echo.');
    expect((caught as AgentNotFoundError).registered).toEqual(['devhub', 'echo']);
    expect(agents.ids()).toEqual(['devhub', 'echo']);
    expect(agents.list().map((a) => a.id)).toEqual(['devhub', 'echo']);
  });

  it('rejects duplicates and things that are not agents, loudly', () => {
    const agents = new AgentRegistry();
    agents.register(echo);
    expect(() => agents.register(echo)).toThrow(InvalidStateError);
    expect(() => agents.register(echo)).toThrow(/already registered as "echo"/);
    expect(() => agents.register(null as unknown as RunnableAgent)).toThrow(InvalidArgumentError);
    expect(() => agents.register({ id: 'has space', description: '', start: () => ({}) } as unknown as RunnableAgent)).toThrow(/not a valid agent id/);
    expect(() => agents.register({ id: 'x', description: 'x' } as unknown as RunnableAgent)).toThrow(/no start function/);
  });
});

describe('defineAgent', () => {
  it('runs the function and normalizes its output', async () => {
    const structured = defineAgent({ id: 'review', description: 'r', run: async () => ({ text: 'ok', data: { health: 'normal' } }) });
    expect(await echo.start('hi', {}, {}).completion).toEqual({ text: 'hi' });
    expect(await structured.start('', {}, {}).completion).toEqual({ text: 'ok', data: { health: 'normal' } });
    const bad = defineAgent({ id: 'bad', description: 'b', run: () => 42 as unknown as string });
    await expect(bad.start('', {}, {}).completion).rejects.toThrow('agent "bad" returned number; expected a string or { text }');
  });

  it('cancel() rejects with AbortError even when the run ignores its signal', async () => {
    const deaf = defineAgent({ id: 'deaf', description: 'never ends', run: () => new Promise<string>(() => {}) });
    const handle = deaf.start('', {}, {});
    handle.cancel();
    await expect(handle.completion).rejects.toBeInstanceOf(AbortError);
    const controller = new AbortController();
    const second = deaf.start('', { signal: controller.signal }, {});
    controller.abort();
    await expect(second.completion).rejects.toThrow('Agent "deaf" was canceled');
  });

  it('passes the signal to the run, which sees the abort', async () => {
    let seen: AbortSignal | undefined;
    const agent = defineAgent({
      id: 'listener',
      description: 'l',
      run: (_input, { signal }) => {
        seen = signal;
        return new Promise<string>(() => {});
      },
    });
    const handle = agent.start('', {}, {});
    await Promise.resolve();
    handle.cancel('user');
    await expect(handle.completion).rejects.toThrow(AbortError);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe('user');
  });

  it('validates its definition', () => {
    expect(() => defineAgent({ id: '', description: 'x', run: () => '' })).toThrow(/not a valid agent id/);
    expect(() => defineAgent({ id: 'a', description: ' ', run: () => '' })).toThrow(/non-empty description/);
    expect(() => defineAgent({ id: 'a', description: 'a' } as never)).toThrow(/needs a run function/);
  });
});
