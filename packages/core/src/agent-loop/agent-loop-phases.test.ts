import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type Action, type Perception, type PerceptionProcessor } from '@troupe/core';
import { eventTrail, iterations, recordEvents, scriptedSensor } from '../testing/loop-test-kit';

const tag =
  (name: string, order?: number): PerceptionProcessor => ({
    kind: 'perception-processor',
    name,
    ...(order === undefined ? {} : { order }),
    process: (perceptions) => perceptions.map((p) => ({ ...p, tags: [...(p.tags ?? []), name] })),
  });

describe('AgentLoop: the four phases (seed 002 §1)', () => {
  it('Sense: calls the sensors, returns a Perception list that went through the processors in order', async () => {
    const loop = new AgentLoop({ id: 'sense' });
    loop.use(
      scriptedSensor([[{ source: 'fs', subject: 'a.log', content: 'ERROR disk full' }]], 'fs'),
      { kind: 'sensor', name: 'inbox', sense: async () => [{ id: 'm1', source: 'inbox', content: 'hello', timestamp: 5 }] },
      tag('test:fusion', 500),
      tag('test:dedupe', 100),
      tag('test:priority', 400),
      tag('test:classify', 200),
      tag('test:intent', 300),
    );
    const perceptions = await loop.stepSense();
    expect(perceptions).toHaveLength(2);
    expect(perceptions[0]).toMatchObject({ id: 'sense:p1', source: 'fs', subject: 'a.log', content: 'ERROR disk full' });
    expect(typeof perceptions[0]?.timestamp).toBe('number');
    expect(perceptions[1]).toMatchObject({ id: 'm1', timestamp: 5 });
    expect(perceptions[0]?.tags).toEqual(['test:dedupe', 'test:classify', 'test:intent', 'test:priority', 'test:fusion']);
  });

  it('a processor can drop and merge perceptions; the planner sees its output', async () => {
    const seen: Perception[][] = [];
    const loop = new AgentLoop({ id: 'drop' });
    loop.use(
      scriptedSensor([[{ source: 's', content: 'a' }, { source: 's', content: 'a' }, { source: 's', content: 'b' }]]),
      { kind: 'perception-processor', name: 'uniq', process: (ps) => ps.filter((p, i) => ps.findIndex((q) => q.content === p.content) === i) },
      { kind: 'planner', name: 'plan', plan: (ps) => (seen.push([...ps]), null) },
    );
    await loop.start({});
    await iterations(loop, 1);
    await loop.stop();
    expect(seen[0]?.map((p) => p.content)).toEqual(['a', 'b']);
  });

  it('Plan: identifies the task, chooses tools, generates parameters and an execution plan (an Action)', async () => {
    const loop = new AgentLoop({ id: 'plan' });
    loop.use(
      { kind: 'tool', name: 'read-file', description: 'Reads a file', execute: () => 'x' },
      { kind: 'tool', name: 'notify', execute: () => 'y' },
      {
        kind: 'planner',
        name: 'triage',
        plan: (perceptions, context) => ({
          task: `triage ${perceptions.length} perception(s)`,
          toolCalls: context.tools.map((tool) => ({ tool: tool.name, input: { path: perceptions[0]?.subject } })),
          execution: { mode: 'parallel' },
          perceptionIds: perceptions.map((p) => p.id),
        }),
      },
    );
    const action = await loop.stepPlan([{ id: 'p1', source: 'fs', subject: 'a.log', content: 'ERROR', timestamp: 1 }]);
    expect(action).toEqual({
      task: 'triage 1 perception(s)',
      toolCalls: [
        { id: 'plan#step-1:c1', tool: 'read-file', input: { path: 'a.log' } },
        { id: 'plan#step-1:c2', tool: 'notify', input: { path: 'a.log' } },
      ],
      execution: { mode: 'parallel' },
      perceptionIds: ['p1'],
    });
  });

  it('Plan: a planner returning nothing ends the iteration as idle (no Act, no Reflect)', async () => {
    const loop = new AgentLoop({ id: 'idle', interval: 0 });
    const events = recordEvents(loop.bus);
    let acted = 0;
    loop.use({ kind: 'planner', name: 'p', plan: () => null }, { kind: 'tool', name: 't', execute: () => acted++ });
    await loop.start();
    await iterations(loop, 2);
    await loop.stop();
    expect(acted).toBe(0);
    expect(eventTrail(events, ['loop:phase-started']).slice(0, 3)).toEqual(['loop:phase-started sense', 'loop:phase-started plan', 'loop:phase-started sense']);
    expect(loop.stats().idle).toBeGreaterThanOrEqual(2);
  });

  it('Act: calls the tools with their parameters (validated by zod) and returns the results', async () => {
    const loop = new AgentLoop({ id: 'act' });
    loop.use({
      kind: 'tool',
      name: 'add',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }: { a: number; b: number }, context) => ({ sum: a + b, callId: context.callId }),
    });
    const result = await loop.stepAct({
      task: 'sums',
      toolCalls: [
        { tool: 'add', input: { a: 1, b: 2 } },
        { tool: 'add', input: { a: 'one', b: 2 } },
        { tool: 'missing' },
      ],
    });
    expect(result.ok).toBe(false);
    expect(result.results.map((r) => [r.tool, r.status])).toEqual([
      ['add', 'succeeded'],
      ['add', 'failed'],
      ['missing', 'failed'],
    ]);
    expect(result.results[0]?.output).toEqual({ sum: 3, callId: 'act#step-1:c1' });
    expect(result.results[1]?.error?.message).toMatch(/tool "add" rejected its input: a: /);
    expect(result.results[2]?.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(result.results[2]?.error?.message).toContain('no tool named "missing" is registered on loop "act"; registered tools: add');
    expect(result.error).toEqual(result.results[1]?.error);
  });

  it('Act: sequential plans run in order and skip the rest after a failure', async () => {
    const order: string[] = [];
    const loop = new AgentLoop({ id: 'seq' });
    loop.use(
      { kind: 'tool', name: 'ok', execute: async (input) => void order.push(String(input)) },
      {
        kind: 'tool',
        name: 'boom',
        execute: () => {
          throw new Error('nope');
        },
      },
    );
    const result = await loop.stepAct({
      task: 't',
      toolCalls: [{ tool: 'ok', input: 1 }, { tool: 'boom' }, { tool: 'ok', input: 3 }],
      execution: { mode: 'sequential' },
    });
    expect(order).toEqual(['1']);
    expect(result.results.map((r) => r.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(result.results[2]?.error?.message).toBe('skipped: an earlier call failed (nope)');
    const lenient = await loop.stepAct({
      task: 't',
      toolCalls: [{ tool: 'boom' }, { tool: 'ok', input: 2 }],
      execution: { mode: 'sequential', stopOnError: false },
    });
    expect(lenient.results.map((r) => r.status)).toEqual(['failed', 'succeeded']);
  });

  it('rejects a malformed action from the planner as a Plan error naming the field', async () => {
    const loop = new AgentLoop({ id: 'bad-plan' });
    loop.use({ kind: 'planner', name: 'sloppy', plan: () => ({ task: '', toolCalls: [] }) as Action });
    await expect(loop.stepPlan([])).rejects.toThrow('Invalid argument "action from planner "sloppy".task": expected a non-empty string, got ""');
    await expect(loop.stepAct({ task: 'x', toolCalls: [{ tool: '' }] })).rejects.toThrow(/toolCalls\[0\]\.tool/);
    await expect(loop.stepAct({ task: 'x', execution: { mode: 'sideways' as 'parallel' } })).rejects.toThrow(/execution\.mode/);
  });

  it('Reflect: stores a success and an analysed failure as experiences that a later Plan can query', async () => {
    const loop = new AgentLoop({ id: 'reflect', interval: 0 });
    const pastSeen: number[] = [];
    let round = 0;
    loop.use(
      { kind: 'tool', name: 'fetch', execute: (input) => {
        if (input === 'bad') throw Object.assign(new Error('ETIMEDOUT'), { code: 'ETIMEDOUT' });
        return 'ok';
      } },
      {
        kind: 'planner',
        name: 'p',
        plan: async (_perceptions, { memory }) => {
          pastSeen.push((await memory.query({ task: 'fetch things' })).length);
          round++;
          return round <= 2 ? { task: 'fetch things', toolCalls: [{ tool: 'fetch', input: round === 1 ? 'good' : 'bad' }] } : null;
        },
      },
    );
    await loop.start();
    await iterations(loop, 3);
    await loop.stop();
    expect(pastSeen.slice(0, 3)).toEqual([0, 1, 2]);
    const [failure, success] = await loop.memory.query({ task: 'FETCH things ' });
    expect(success).toMatchObject({
      id: 'reflect#1:e1',
      loopId: 'reflect',
      iterationId: 'reflect#1',
      outcome: 'success',
      tags: ['success', 'tool:fetch'],
      tools: ['fetch'],
    });
    expect(success?.analysis).toMatch(/^1 tool call succeeded \(fetch\) in \d+ ms\.$/);
    expect(failure).toMatchObject({
      outcome: 'failure',
      analysis: 'tool "fetch" failed: Error: ETIMEDOUT.',
      tags: ['failure', 'tool:fetch', 'error:ETIMEDOUT'],
    });
    expect(await loop.memory.query({ tags: ['error:ETIMEDOUT'] })).toHaveLength(1);
    expect(await loop.memory.query({ outcome: 'success' })).toHaveLength(1);
    expect(loop.capabilities()).toEqual([
      { tool: 'fetch', calls: 2, failures: 1, successRate: 0.5, meanDurationMs: expect.any(Number), lastError: 'ETIMEDOUT' },
    ]);
  });

  it('runs sense → plan → act → reflect in order, every iteration', async () => {
    const loop = new AgentLoop({ id: 'order', interval: 0 });
    const events = recordEvents(loop.bus);
    loop.use(
      scriptedSensor([[{ source: 's', content: 'x' }], [{ source: 's', content: 'y' }]]),
      { kind: 'planner', name: 'p', plan: (ps) => ({ task: 'echo', toolCalls: ps.map((p) => ({ tool: 'echo', input: p.content })) }) },
      { kind: 'tool', name: 'echo', execute: (input) => input },
    );
    await loop.start();
    await iterations(loop, 2);
    await loop.stop();
    const first = eventTrail(events, ['loop:started', 'loop:phase-started', 'loop:phase-completed', 'loop:completed']).slice(0, 20);
    expect(first).toEqual([
      'loop:started',
      'loop:phase-started sense',
      'loop:phase-completed sense',
      'loop:phase-started plan',
      'loop:phase-completed plan',
      'loop:phase-started act',
      'loop:phase-completed act',
      'loop:phase-started reflect',
      'loop:phase-completed reflect',
      'loop:completed',
      'loop:started',
      'loop:phase-started sense',
      'loop:phase-completed sense',
      'loop:phase-started plan',
      'loop:phase-completed plan',
      'loop:phase-started act',
      'loop:phase-completed act',
      'loop:phase-started reflect',
      'loop:phase-completed reflect',
      'loop:completed',
    ]);
  });
});
