import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AgentLoop, summarizeForEvent } from '@troupe/core/agent-loop';
import { loopEventSchemas, parseEvent, serializeEvent, type AnyTroupeEvent } from '@troupe/core';
import { iterations, recordEvents } from '../testing/loop-test-kit';

describe('AgentLoop: lifecycle events (seed 002 §8)', () => {
  it('publishes loop:started, loop:phase-started, loop:phase-completed and loop:completed with the seed fields', async () => {
    const loop = new AgentLoop({ id: 'events', interval: 0 });
    const events = recordEvents(loop.bus);
    loop.use(
      { kind: 'sensor', name: 's', sense: ({ iteration }) => (iteration === 1 ? [{ id: 'p1', source: 'fs', content: 'hello', timestamp: 7 }] : []) },
      { kind: 'planner', name: 'p', plan: (ps) => (ps.length > 0 ? { task: 'greet', toolCalls: [{ tool: 'say', input: { text: 'hi' } }] } : null) },
      { kind: 'tool', name: 'say', execute: (input) => input },
    );
    await loop.start();
    await iterations(loop, 1);
    await loop.stop();
    const of = <T extends AnyTroupeEvent['type']>(type: T) => events.filter((event) => event.type === type) as Extract<AnyTroupeEvent, { type: T }>[];
    expect(of('loop:started')[0]?.payload).toEqual({ loopId: 'events', iterationId: 'events#1', iteration: 1, timestamp: expect.any(Number) });
    expect(of('loop:phase-started').slice(0, 2).map((event) => event.payload)).toEqual([
      { loopId: 'events', iterationId: 'events#1', phase: 'sense', input: null, step: false, timestamp: expect.any(Number) },
      {
        loopId: 'events',
        iterationId: 'events#1',
        phase: 'plan',
        input: [{ id: 'p1', source: 'fs', content: 'hello', timestamp: 7 }],
        step: false,
        timestamp: expect.any(Number),
      },
    ]);
    const actDone = of('loop:phase-completed').find((event) => event.payload.phase === 'act');
    expect(actDone?.payload.output).toMatchObject({
      ok: true,
      results: [{ callId: 'events#1:c1', tool: 'say', status: 'succeeded', output: { text: 'hi' } }],
    });
    expect(actDone?.payload.durationMs).toBeGreaterThanOrEqual(0);
    expect(of('loop:completed')[0]?.payload).toMatchObject({
      loopId: 'events',
      iterationId: 'events#1',
      iteration: 1,
      outcome: 'completed',
      perceptionCount: 1,
      durationMs: expect.any(Number),
      timestamp: expect.any(Number),
    });
    expect(of('loop:state-changed').map((event) => event.payload.to)).toEqual(['starting', 'running', 'stopping', 'stopped']);
    expect(events.every((event) => event.source === 'loop:events')).toBe(true);
  });

  it('every loop event round-trips through serializeEvent/parseEvent against its schema', async () => {
    const cyclic: Record<string, unknown> = { name: 'node' };
    cyclic.self = cyclic;
    const loop = new AgentLoop({ id: 'schemas', interval: 0, stuckThresholdMs: 1, health: { maxConsecutiveFailures: 1 } });
    const events = recordEvents(loop.bus);
    let round = 0;
    loop.use(
      {
        kind: 'sensor',
        name: 's',
        sense: async () => {
          round++;
          await new Promise((resolve) => setTimeout(resolve, 5)); // trips the 1 ms stuck threshold
          return [{ source: 'odd', content: 'x'.repeat(1000), data: { cyclic, big: 10n, fn: () => 1, when: new Date(0), nan: Number.NaN, map: new Map([['k', 1]]) } }];
        },
      },
      {
        kind: 'planner',
        name: 'p',
        plan: () => {
          if (round === 1) throw new Error('first plan fails');
          return { task: 'odd', toolCalls: [{ tool: 'fail' }] };
        },
      },
      {
        kind: 'tool',
        name: 'fail',
        execute: () => {
          throw new TypeError('bad tool');
        },
      },
    );
    await loop.start();
    await iterations(loop, 3);
    await loop.stop();
    const types = new Set(events.map((event) => event.type));
    for (const type of Object.keys(loopEventSchemas)) expect(types, type).toContain(type);
    for (const event of events) expect(parseEvent(serializeEvent(event))).toEqual(JSON.parse(JSON.stringify(event)));
    const sensed = events.find((event) => event.type === 'loop:phase-completed' && event.payload.phase === 'sense');
    expect(sensed?.type === 'loop:phase-completed' && sensed.payload.output).toMatchObject([
      {
        content: expect.stringMatching(/^x{300}…\(\+700 chars\)$/),
        data: { cyclic: { name: 'node', self: '[Circular]' }, big: '10n', when: '1970-01-01T00:00:00.000Z', nan: null, map: { k: 1 } },
      },
    ]);
  });

  it('skips building event payloads when nobody listens', async () => {
    const loop = new AgentLoop({ id: 'quiet', interval: 0 });
    let summarized = 0;
    loop.use(
      { kind: 'sensor', name: 's', sense: () => [{ source: 's', content: 'x', data: { toJSON: () => (summarized++, 'x') } }] },
      { kind: 'planner', name: 'p', plan: () => null },
    );
    await loop.start();
    await iterations(loop, 3);
    await loop.stop();
    expect(summarized).toBe(0);
    const outputs: unknown[] = [];
    loop.bus.on('loop:phase-completed', (event) => void outputs.push(event.payload.output));
    await loop.stepSense();
    expect(summarized).toBe(1);
    expect(outputs).toEqual([[{ source: 's', content: 'x', data: 'x', id: 'quiet:p4', timestamp: expect.any(Number) }]]);
  });
});

describe('AgentLoop: phase payloads summarize on first read', () => {
  it('a listener that never reads the payload costs no summary; every way of reading it sees the same summary, built once', async () => {
    const loop = new AgentLoop({ id: 'lazy', interval: 0 });
    let summarized = 0;
    const before = Date.now();
    loop.use(
      { kind: 'sensor', name: 's', sense: () => [{ source: 's', content: 'x', data: { toJSON: () => (summarized++, 'x') } }] },
      { kind: 'planner', name: 'p', plan: () => null },
    );
    const events = recordEvents(loop.bus);
    await loop.start();
    await iterations(loop, 2);
    await loop.stop();
    expect(summarized).toBe(0);

    const sensed = events.find((event) => event.type === 'loop:phase-completed' && event.payload.phase === 'sense');
    if (sensed?.type !== 'loop:phase-completed') throw new Error('no sense phase-completed event');
    const payload = sensed.payload;
    const output = [{ source: 's', content: 'x', data: 'x', id: 'lazy:p1', timestamp: expect.any(Number) }];
    expect(Object.keys(payload)).toEqual(['loopId', 'iterationId', 'phase', 'output', 'durationMs', 'step', 'timestamp']);
    expect(payload).toEqual({ loopId: 'lazy', iterationId: 'lazy#1', phase: 'sense', output, durationMs: expect.any(Number), step: false, timestamp: expect.any(Number) });
    expect({ ...payload }.output).toEqual(output);
    expect(JSON.parse(JSON.stringify(payload)).output).toEqual(output);
    expect(Object.entries(payload).find(([key]) => key === 'output')?.[1]).toEqual(output);
    expect(inspect(payload)).toContain("content: 'x'");
    expect(summarized).toBe(1);
    // The perception's timestamp is the wall-clock time of its Sense phase.
    const timestamp = (payload.output as Array<{ timestamp: number }>)[0]?.timestamp ?? 0;
    expect(timestamp).toBeGreaterThanOrEqual(before - 1);
    expect(timestamp).toBeLessThanOrEqual(Date.now() + 1);

    const planned = events.find((event) => event.type === 'loop:phase-started' && event.payload.phase === 'plan');
    if (planned?.type !== 'loop:phase-started') throw new Error('no plan phase-started event');
    planned.payload.input = 'replaced';
    expect(planned.payload.input).toBe('replaced');
    expect(JSON.parse(serializeEvent(planned)).payload.input).toBe('replaced');
    expect(summarized).toBe(1);
  });
});

describe('summarizeForEvent', () => {
  it('bounds arrays, keys, depth and strings, and keeps errors readable', () => {
    expect(summarizeForEvent({ items: [1, 2, 3, 4], deep: { a: { b: { c: 1 } } }, error: Object.assign(new RangeError('too far'), { code: 'E_FAR' }) }, {
      maxArrayItems: 2,
      maxDepth: 3,
    })).toEqual({ items: [1, 2, '… 2 more'], deep: { a: { b: '[Object]' } }, error: { name: 'RangeError', message: 'too far', code: 'E_FAR' } });
    expect(summarizeForEvent({ a: 1, b: 2, c: 3, skip: undefined }, { maxKeys: 2 })).toEqual({ a: 1, b: 2, '…': '1 more keys' });
    expect(summarizeForEvent(new Uint8Array(4))).toBe('[Uint8Array(4 bytes)]');
    expect(summarizeForEvent([undefined, Symbol('s'), Infinity])).toEqual([null, 'Symbol(s)', null]);
    expect(summarizeForEvent('key sk-ant-api03-abcdefghijklmnop here')).toBe('key [REDACTED] here');
    expect(summarizeForEvent({ password: 'swordfish-42' }, { secrets: ['swordfish-42'] })).toEqual({ password: '[REDACTED]' });
  });
});

describe('AgentLoop: Act and Reflect output summaries', () => {
  it.each([{}, { maxArrayItems: 1 }, { maxKeys: 6, secrets: ['hunter2'] }, { maxDepth: 3, maxStringLength: 4 }, { maxDepth: 2 }])(
    'match summarizeForEvent of the results, key order included (%o)',
    async (eventSummary) => {
      const loop = new AgentLoop({ id: 'shapes', eventSummary, secrets: eventSummary.secrets ?? [] });
      loop.use(
        { kind: 'planner', name: 'p', plan: () => null },
        { kind: 'tool', name: 'ok', execute: (input) => ({ echoed: input, deep: { a: { b: { c: 1 } } } }) },
        { kind: 'tool', name: 'nothing', execute: () => undefined },
        { kind: 'tool', name: 'boom', execute: () => Promise.reject(Object.assign(new Error('bad hunter2'), { code: 'E_BOOM' })) },
      );
      const outputs: unknown[] = [];
      loop.bus.on('loop:phase-completed', (event) => void outputs.push(event.payload.output));
      const options = { ...eventSummary, secrets: eventSummary.secrets ?? [] };
      for (const toolCalls of [
        [{ tool: 'ok', input: 'hunter2 says hi' }],
        [{ tool: 'nothing' }, { tool: 'ok', input: [1, 2, 3], id: 'mine' }, { tool: 'boom' }],
        [{ tool: 'boom' }, { tool: 'ok' }],
      ]) {
        outputs.length = 0;
        const result = await loop.stepAct({ task: 'shape', toolCalls, execution: { mode: 'sequential' } });
        const reflected = await loop.stepReflect(result);
        expect(outputs).toHaveLength(2);
        expect(JSON.stringify(outputs[0])).toBe(JSON.stringify(summarizeForEvent(result, options)));
        expect(JSON.stringify(outputs[1])).toBe(JSON.stringify(summarizeForEvent(reflected, options)));
      }
    },
  );
});
