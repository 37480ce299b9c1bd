import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, AgentRegistry, defineAgent, Executor } from '@troupe/core/agent-runtime';
import { EventBus, MessageStore, type AnyTroupeEvent, type RunnableAgent } from '@troupe/core';

function setup(...agents: RunnableAgent[]) {
  const bus = new EventBus();
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => {
    if (event.type.startsWith('executor:')) events.push(event);
  });
  const messages = new MessageStore(bus);
  const registry = new AgentRegistry();
  for (const agent of agents) registry.register(agent);
  let clock = 1000;
  const executor = new Executor({ agents: registry, messages, eventBus: bus, now: () => (clock += 5) });
  return { bus, events, messages, registry, executor };
}

describe('Executor', () => {
  it('records the input, appends the output to the channel and emits executor events', async () => {
    const agent = defineAgent({
      id: 'writer',
      description: 'w',
      run: (input, { sinks, context }) => {
        sinks.status?.('thinking');
        sinks.message?.({ role: 'system', content: `[AUTO] working on ${input} in ${context.channelId}` });
        return `done: ${input}`;
      },
    });
    const { executor, messages, events } = setup(agent);
    const result = await executor.execute('main', 'writer', 'task A', { sourceChannelId: 'devhub' });
    expect(result).toMatchObject({ status: 'completed', channelId: 'main', agentId: 'writer', text: 'done: task A', output: { text: 'done: task A' } });
    expect(messages.list('main').map(({ role, speaker, content }) => ({ role, speaker, content }))).toEqual([
      { role: 'user', speaker: 'devhub', content: 'task A' },
      { role: 'system', speaker: 'writer', content: '[AUTO] working on task A in main' },
      { role: 'assistant', speaker: 'writer', content: 'done: task A' },
    ]);
    expect(messages.last('main')?.metadata).toEqual({ executionId: result.executionId });
    expect(events.map((e) => e.type)).toEqual(['executor:started', 'executor:status', 'executor:completed']);
    expect(events[2]?.payload).toEqual({ executionId: result.executionId, channelId: 'main', agentId: 'writer', durationMs: 5, textLength: 12 });
  });

  it('uses the streamed text when the output has none, and can skip recording the input', async () => {
    const streamer = defineAgent({
      id: 'streamer',
      description: 's',
      run: (_input, { sinks }) => {
        sinks.text?.('Hel');
        sinks.text?.('lo');
        return '';
      },
    });
    const bus = new EventBus();
    const messages = new MessageStore(bus);
    const agents = new AgentRegistry();
    agents.register(streamer);
    const deltas: string[] = [];
    bus.on('executor:text-delta', (e) => void deltas.push(e.payload.text), { channelId: 'c' });
    const executor = new Executor({ agents, messages, eventBus: bus, recordInput: false });
    const result = await executor.execute('c', 'streamer', 'go');
    expect(result.text).toBe('Hello');
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(messages.list('c').map((m) => m.content)).toEqual(['Hello']);
  });

  it('never rejects for a failing agent: resolves failed and leaves an error note in the channel', async () => {
    const crash = defineAgent({
      id: 'crash',
      description: 'c',
      run: () => {
        throw new Error('disk full');
      },
    });
    const throwsOnStart: RunnableAgent = {
      id: 'broken',
      description: 'b',
      start: () => {
        throw new Error('cannot start');
      },
    };
    const { executor, messages, events } = setup(crash, throwsOnStart);
    const result = await executor.execute('c', 'crash', 'x');
    expect(result.status).toBe('failed');
    expect(result.status === 'failed' && result.serializedError).toEqual({ name: 'Error', message: 'disk full' });
    expect(messages.last('c')).toMatchObject({ role: 'system', speaker: 'crash', content: 'Agent "crash" failed: disk full' });
    expect((await executor.execute('c', 'broken', 'x')).text).toBe('Agent "broken" failed: cannot start');
    expect(events.filter((e) => e.type === 'executor:failed').map((e) => (e.payload as { status: string }).status)).toEqual(['failed', 'failed']);
  });

  it('reports a canceled run as canceled', async () => {
    const hang = defineAgent({ id: 'hang', description: 'h', run: () => new Promise<string>(() => {}) });
    const { executor } = setup(hang);
    const controller = new AbortController();
    const pending = executor.execute('c', 'hang', 'x', { signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result.status).toBe('canceled');
    expect(result.text).toBe('Agent "hang" was canceled');
  });

  it('throws synchronously for an unknown agent or bad arguments, so fire-and-forget callers see it', () => {
    const { executor, messages } = setup(defineAgent({ id: 'looper', description: 'l', run: () => '' }));
    expect(() => executor.execute('looper', 'lopper', 'x')).toThrow(AgentNotFoundError);
    expect(() => executor.execute('looper', 'lopper', 'x')).toThrow(/Registered agents: looper/);
    expect(() => executor.execute('', 'looper', 'x')).toThrow(/channelId/);
    expect(() => executor.execute('looper', 'looper', 42 as unknown as string)).toThrow(/input/);
    expect(messages.count('looper')).toBe(0);
    expect(() => new Executor({} as never)).toThrow(/needs \{ agents/);
  });

  it('resolves as soon as an agent whose completion resolves at once answers, while its work goes on', async () => {
    let background: Promise<void> | undefined;
    let finishWork!: () => void;
    const graph: RunnableAgent = {
      id: 'graph',
      description: 'answers at once, works in the background',
      start: (_input, _context, sinks) => {
        background = new Promise<void>((resolve) => {
          finishWork = resolve;
        }).then(() => sinks.message?.({ role: 'system', content: '[AUTO] finished' }));
        return { completion: Promise.resolve({ text: 'started' }), cancel: () => {} };
      },
    };
    const { executor, messages } = setup(graph);
    const result = await executor.execute('g', 'graph', 'go');
    expect(result.text).toBe('started');
    expect(messages.list('g').map((m) => m.content)).toEqual(['go', 'started']);
    finishWork();
    await background;
    expect(messages.last('g')?.content).toBe('[AUTO] finished');
  });
});
