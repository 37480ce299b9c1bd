import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type AnyTroupeEvent } from '@troupe/core';
import { iterations, recordEvents } from '../testing/loop-test-kit';

function tracedLoop(id: string) {
  const calls: string[] = [];
  const loop = new AgentLoop({ id, interval: 0 });
  loop.use(
    { kind: 'sensor', name: 's', sense: () => (calls.push('sense'), [{ source: 'fs', subject: 'a.txt', content: 'changed' }]) },
    { kind: 'planner', name: 'p', plan: (ps) => (calls.push('plan'), { task: 'inspect', toolCalls: ps.map((p) => ({ tool: 'stat', input: p.subject })) }) },
    { kind: 'tool', name: 'stat', execute: (input) => (calls.push('act'), { path: input, size: 3 }) },
    { kind: 'reflector', name: 'r', reflect: (result) => (calls.push('reflect'), { outcome: result.ok ? 'success' : 'failure', analysis: 'checked', tags: ['inspect'] }) },
  );
  return { loop, calls };
}

describe('AgentLoop: single steps (seed 002 §7)', () => {
  it('stepSense() runs only Sense and returns the perceptions', async () => {
    const { loop, calls } = tracedLoop('steps');
    const perceptions = await loop.stepSense();
    expect(calls).toEqual(['sense']);
    expect(perceptions).toMatchObject([{ id: 'steps:p1', source: 'fs', subject: 'a.txt', content: 'changed' }]);
  });

  it('stepPlan(perceptions) runs only Plan and returns the action', async () => {
    const { loop, calls } = tracedLoop('steps');
    const action = await loop.stepPlan([{ source: 'fs', subject: 'b.txt', content: 'new' }]);
    expect(calls).toEqual(['plan']);
    expect(action).toEqual({ task: 'inspect', toolCalls: [{ id: 'steps#step-1:c1', tool: 'stat', input: 'b.txt' }] });
  });

  it('stepAct(action) runs only Act and returns the result', async () => {
    const { loop, calls } = tracedLoop('steps');
    const result = await loop.stepAct({ task: 'inspect', toolCalls: [{ tool: 'stat', input: 'c.txt' }] });
    expect(calls).toEqual(['act']);
    expect(result).toMatchObject({ ok: true, results: [{ tool: 'stat', status: 'succeeded', output: { path: 'c.txt', size: 3 } }] });
  });

  it('stepReflect(result) runs only Reflect and returns what it learned, already stored', async () => {
    const { loop, calls } = tracedLoop('steps');
    const result = await loop.stepAct({ task: 'inspect', toolCalls: [{ tool: 'stat', input: 'd.txt' }] });
    const reflection = await loop.stepReflect(result);
    expect(calls).toEqual(['act', 'reflect']);
    expect(reflection.experiences).toMatchObject([{ id: 'steps#step-2:e1', task: 'inspect', outcome: 'success', analysis: 'checked', tags: ['inspect'], tools: ['stat'] }]);
    expect(reflection.capabilities).toMatchObject([{ tool: 'stat', calls: 1, failures: 0, successRate: 1 }]);
    expect(await loop.memory.query({ tags: ['inspect'] })).toHaveLength(1);
  });

  it('the four steps chain into a full iteration by hand, with phase events marked as steps', async () => {
    const { loop, calls } = tracedLoop('manual');
    const events = recordEvents(loop.bus);
    const reflection = await loop.stepReflect(await loop.stepAct((await loop.stepPlan(await loop.stepSense()))!));
    expect(calls).toEqual(['sense', 'plan', 'act', 'reflect']);
    expect(reflection.experiences[0]?.outcome).toBe('success');
    const phases = events.filter((event): event is Extract<AnyTroupeEvent, { type: 'loop:phase-completed' }> => event.type === 'loop:phase-completed');
    expect(phases.map((event) => [event.payload.phase, event.payload.step, event.payload.iterationId])).toEqual([
      ['sense', true, 'manual#step-1'],
      ['plan', true, 'manual#step-2'],
      ['act', true, 'manual#step-3'],
      ['reflect', true, 'manual#step-4'],
    ]);
    expect(events.some((event) => event.type === 'loop:started' || event.type === 'loop:completed')).toBe(false);
    expect(loop.stats().iterations).toBe(0);
  });

  it('steps work on a stopped or paused loop, not on a running one; errors reject and are published', async () => {
    const { loop } = tracedLoop('lifecycle');
    await loop.start();
    await expect(loop.stepPlan([])).rejects.toThrow('Cannot stepPlan() on loop "lifecycle" while it is running; pause or stop it first');
    await iterations(loop, 1);
    await loop.pause();
    expect(await loop.stepSense()).toHaveLength(1);
    await loop.stop();
    expect(await loop.stepSense()).toHaveLength(1);
    const broken = new AgentLoop({ id: 'broken' });
    broken.use({
      kind: 'sensor',
      name: 'x',
      sense: () => {
        throw new Error('no input');
      },
    });
    const errors: string[] = [];
    broken.bus.on('loop:error', (event) => void errors.push(`${event.payload.phase}/${event.payload.handling}`));
    await expect(broken.stepSense()).rejects.toThrow('no input');
    expect(errors).toEqual(['sense/rethrow']);
    await expect(broken.stepSense({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(broken.stepPlan('x' as never)).rejects.toThrow('Invalid argument "perceptions"');
    await expect(broken.stepReflect({} as never)).rejects.toThrow('Invalid argument "result"');
  });

  it('a step aborted through its signal rejects with AbortError', async () => {
    const loop = new AgentLoop({ id: 'abort-step' });
    loop.use({ kind: 'sensor', name: 'slow', sense: () => new Promise(() => {}) });
    const controller = new AbortController();
    const sensing = loop.stepSense({ signal: controller.signal });
    controller.abort();
    await expect(sensing).rejects.toMatchObject({ code: 'ABORTED', message: 'stepSense() was aborted' });
  });

  it('perceptions and tool calls get ids on copies: the stages\' objects stay as they were, every string-keyed field is kept in order', async () => {
    const tag = Symbol('tag');
    const plain = { source: 'fs', content: 'changed' };
    const rich = { source: 'fs', subject: 'a.txt', content: 'changed', data: { size: 3 } };
    const reordered = { content: 'first', source: 'log' };
    const tagged = { source: 'fs', content: 'tagged', [tag]: 'kept out' };
    const stamped = { source: 'fs', content: 'stamped', id: 'mine', timestamp: 42 };
    const loop = new AgentLoop({ id: 'copies' });
    loop.use(
      { kind: 'sensor', name: 's', sense: () => [plain, rich, reordered, tagged, stamped] },
      { kind: 'tool', name: 'stat', execute: () => 1 },
    );
    const perceptions = await loop.stepSense();
    expect(plain).toEqual({ source: 'fs', content: 'changed' });
    expect(rich).toEqual({ source: 'fs', subject: 'a.txt', content: 'changed', data: { size: 3 } });
    expect(perceptions.map((p) => Object.keys(p))).toEqual([
      ['source', 'content', 'id', 'timestamp'],
      ['source', 'subject', 'content', 'data', 'id', 'timestamp'],
      ['content', 'source', 'id', 'timestamp'],
      ['source', 'content', 'id', 'timestamp'],
      ['source', 'content', 'id', 'timestamp'],
    ]);
    expect(perceptions.slice(0, 4).map((p) => p.id)).toEqual(['copies:p1', 'copies:p2', 'copies:p3', 'copies:p4']);
    expect(perceptions[0]).not.toBe(plain);
    expect(perceptions[1]?.data).toBe(rich.data);
    expect(Object.getOwnPropertySymbols(perceptions[3])).toEqual([]);
    expect(perceptions[4]).toBe(stamped);

    const calls = [{ tool: 'stat', input: 'a' }, { tool: 'stat' }, { input: 'b', tool: 'stat' }, { tool: 'stat', input: 'c', id: 'own' }];
    const inherited = Object.assign(Object.create({ note: 'from the prototype' }) as object, { tool: 'stat', input: 'd' }) as { tool: string; input: string };
    // Own fields only, whatever the shape: an inherited `input` is not copied either.
    const inheritedInput = Object.assign(Object.create({ input: 'from the prototype' }) as object, { tool: 'stat' }) as { tool: string };
    const action = await loop.stepPlan([]).catch(() => null); // no planner yet: rejected (it counts as step 2)
    expect(action).toBeNull();
    loop.use({ kind: 'planner', name: 'p', plan: () => ({ task: 'stat', toolCalls: [...calls, inherited, inheritedInput] }) });
    const planned = await loop.stepPlan([]);
    expect(calls[0]).toEqual({ tool: 'stat', input: 'a' });
    expect(planned?.toolCalls).toEqual([
      { tool: 'stat', input: 'a', id: 'copies#step-3:c1' },
      { tool: 'stat', id: 'copies#step-3:c2' },
      { input: 'b', tool: 'stat', id: 'copies#step-3:c3' },
      { tool: 'stat', input: 'c', id: 'own' },
      { tool: 'stat', input: 'd', id: 'copies#step-3:c5' },
      { tool: 'stat', id: 'copies#step-3:c6' },
    ]);
    expect(planned?.toolCalls?.map((call) => Object.keys(call))).toEqual([['tool', 'input', 'id'], ['tool', 'id'], ['input', 'tool', 'id'], ['tool', 'input', 'id'], ['tool', 'input', 'id'], ['tool', 'id']]);
    expect(planned?.toolCalls?.[3]).toBe(calls[3]);
  });
});
