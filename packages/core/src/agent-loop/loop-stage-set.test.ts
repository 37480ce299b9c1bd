import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { InvalidArgumentError, InvalidStateError, type LoopStage } from '@troupe/core';
import { deferred, flush, iterations } from '../testing/loop-test-kit';

const planner = (name = 'p'): LoopStage => ({ kind: 'planner', name, plan: () => null });

describe('AgentLoop.use(): stages registered at runtime', () => {
  it('returns an unregister function; calling it twice is harmless', async () => {
    const loop = new AgentLoop({ id: 'use' });
    const off = loop.use({ kind: 'sensor', name: 'looper:fs', sense: () => [{ source: 'fs', content: 'x' }] }, planner());
    expect(loop.stages()).toEqual([
      { kind: 'sensor', name: 'looper:fs' },
      { kind: 'planner', name: 'p' },
    ]);
    expect(await loop.stepSense()).toHaveLength(1);
    off();
    off();
    expect(loop.stages()).toEqual([]);
    expect(await loop.stepSense()).toEqual([]);
    loop.use(planner()); // the name is free again
  });

  it('rejects bad stages loudly, naming the field, and registers none of a bad batch', () => {
    const loop = new AgentLoop({ id: 'strict' });
    const cases: [unknown, string][] = [
      [null, 'Invalid argument "stage": expected a stage object ({ kind, name, … }), got null'],
      [{ kind: 'widget', name: 'x' }, 'Invalid argument "stage.kind": expected one of sensor, perception-processor, planner, tool, reflector, memory, got "widget"'],
      [{ kind: 'sensor', name: 'bad name', sense: () => [] }, 'Invalid argument "stage.name"'],
      [{ kind: 'sensor', name: 'looper:', sense: () => [] }, 'Invalid argument "stage.name"'],
      [{ kind: 'sensor', name: 'fs' }, 'Invalid argument "stage.sense": a sensor stage ("fs") needs a sense() function'],
      [{ kind: 'memory', name: 'm', query: async () => [] }, 'Invalid argument "stage.record"'],
      [{ kind: 'perception-processor', name: 'x', order: 'first', process: (p: unknown) => p }, 'Invalid argument "stage.order"'],
      [{ kind: 'tool', name: 't', execute: () => 1, parameters: { type: 'object' } }, 'Invalid argument "stage.parameters": expected a zod schema on tool "t"'],
      [{ kind: 'tool', name: 't', execute: () => 1, setup: 'yes' }, 'Invalid argument "stage.setup"'],
    ];
    for (const [stage, message] of cases) {
      const error = (() => {
        try {
          loop.use(stage as LoopStage);
        } catch (e) {
          return e;
        }
      })();
      expect(error, message).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message.startsWith(message), `${(error as Error).message}`).toBe(true);
    }
    expect(() => loop.use()).toThrow('Invalid argument "stages": expected at least one stage');
    expect(() => loop.use(planner('a'), { kind: 'tool', name: 'b' } as LoopStage)).toThrow('Invalid argument "stages[1].execute"');
    expect(loop.stages()).toEqual([]);
  });

  it('rejects a duplicate name, a second planner and a second memory', () => {
    const loop = new AgentLoop({ id: 'dupes' });
    loop.use(planner('looper:plan'));
    expect(() => loop.use({ kind: 'tool', name: 'looper:plan', execute: () => 1 })).toThrow(InvalidStateError);
    expect(() => loop.use({ kind: 'tool', name: 'looper:plan', execute: () => 1 })).toThrow('A loop stage named "looper:plan" is already registered');
    expect(() => loop.use(planner('other'))).toThrow('A loop has one planner; "looper:plan" is registered, unregister it first');
    const memory = { kind: 'memory' as const, name: 'm1', record: async () => {}, query: async () => [] };
    expect(() => loop.use(memory, { ...memory, name: 'm2' })).toThrow('A loop has one memory stage, got several');
    expect(() => new AgentLoop({ stages: [planner('x'), planner('y')] })).toThrow(/one planner/);
  });

  it('stages added and removed while the loop runs take effect on the next iteration, with setup and teardown', async () => {
    const loop = new AgentLoop({ id: 'live', interval: 0 });
    const sensed: string[] = [];
    const lifecycle: string[] = [];
    loop.use({ kind: 'planner', name: 'p', plan: (ps) => (ps.forEach((p) => sensed.push(p.content)), null) });
    await loop.start();
    await iterations(loop, 2);
    const gate = deferred();
    const off = loop.use({
      kind: 'sensor',
      name: 'late',
      setup: async () => {
        lifecycle.push('setup');
        gate.resolve();
      },
      teardown: () => void lifecycle.push('teardown'),
      sense: () => [{ source: 'late', content: 'hi' }],
    });
    await gate.promise;
    const before = loop.stats().iterations;
    await iterations(loop, before + 2);
    expect(sensed).toContain('hi');
    off();
    await flush();
    expect(lifecycle).toEqual(['setup', 'teardown']);
    const count = sensed.length;
    await iterations(loop, loop.stats().iterations + 2);
    expect(sensed).toHaveLength(count);
    await loop.stop();
    expect(lifecycle).toEqual(['setup', 'teardown']); // not torn down twice
  });

  it('a memory stage replaces the default memory for storage and queries', async () => {
    const stored: string[] = [];
    const loop = new AgentLoop({ id: 'mem' });
    loop.use({
      kind: 'memory',
      name: 'custom',
      record: async (experiences) => void stored.push(...experiences.map((e) => e.id)),
      query: async () => [],
    });
    await loop.stepReflect({ action: { task: 't' }, ok: true, results: [], durationMs: 1 });
    expect(stored).toEqual(['mem#step-1:e1']);
    expect(await loop.memory.query()).toEqual([]);
  });

  it('tools are listed for the planner with their descriptions', async () => {
    const loop = new AgentLoop({ id: 'tools' });
    let listed: unknown;
    loop.use(
      { kind: 'tool', name: 'read', description: 'Reads a file', execute: () => 1 },
      { kind: 'tool', name: 'write', execute: () => 1 },
      { kind: 'planner', name: 'p', plan: (_ps, context) => ((listed = context.tools), null) },
    );
    await loop.stepPlan([]);
    expect(listed).toEqual([{ name: 'read', description: 'Reads a file' }, { name: 'write' }]);
  });
});
