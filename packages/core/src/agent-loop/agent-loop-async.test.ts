import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type Experience, type LoopMemoryStage } from '@troupe/core';
import { deferred, flush, iterations } from '../testing/loop-test-kit';

describe('AgentLoop: asynchronous execution (seed 002 §2)', () => {
  it('a slow Sense in one loop does not block another loop: the fast one keeps iterating', async () => {
    const slowGate = deferred();
    const slow = new AgentLoop({ id: 'slow', interval: 0 });
    slow.use(
      { kind: 'sensor', name: 'slow-sensor', sense: async () => (await slowGate.promise, []) },
      { kind: 'planner', name: 'p', plan: () => null },
    );
    const fast = new AgentLoop({ id: 'fast', interval: 0 });
    fast.use({ kind: 'planner', name: 'p', plan: async () => null });
    await Promise.all([slow.start(), fast.start()]);
    await iterations(fast, 50);
    expect(fast.stats().iterations).toBeGreaterThanOrEqual(50);
    expect(slow.stats().iterations).toBe(0); // still inside its first Sense
    slowGate.resolve();
    await Promise.all([slow.stop(), fast.stop()]);
    expect(slow.stats().iterations).toBe(1);
  });

  it('a slow Plan (an LLM call in the background) leaves the event loop free', async () => {
    const llm = deferred<string>();
    const loop = new AgentLoop({ id: 'llm', interval: 0 });
    loop.use({ kind: 'planner', name: 'llm', plan: async () => ({ task: await llm.promise }) });
    await loop.start();
    let timers = 0;
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setTimeout(() => (timers++, resolve()), 0));
    expect(timers).toBe(5);
    expect(loop.stats().iterations).toBe(0);
    llm.resolve('answer');
    await iterations(loop, 1);
    await loop.stop();
    expect(loop.stats().completed).toBeGreaterThanOrEqual(1);
  });

  it('Act runs several tool calls concurrently (and one at a time when the plan says sequential)', async () => {
    let active = 0;
    let peak = 0;
    const loop = new AgentLoop({ id: 'concurrent' });
    loop.use({
      kind: 'tool',
      name: 'work',
      execute: async () => {
        active++;
        peak = Math.max(peak, active);
        await flush();
        await flush();
        active--;
        return 'done';
      },
    });
    const calls = [{ tool: 'work' }, { tool: 'work' }, { tool: 'work' }, { tool: 'work' }];
    const parallel = await loop.stepAct({ task: 'many', toolCalls: calls });
    expect(parallel.ok).toBe(true);
    expect(peak).toBe(4);
    peak = 0;
    await loop.stepAct({ task: 'bounded', toolCalls: calls, execution: { maxConcurrency: 2 } });
    expect(peak).toBe(2);
    peak = 0;
    await loop.stepAct({ task: 'one by one', toolCalls: calls, execution: { mode: 'sequential' } });
    expect(peak).toBe(1);
  });

  it('storing experiences does not block the next iteration', async () => {
    const release = deferred();
    const recorded: Experience[] = [];
    const memory: LoopMemoryStage = {
      kind: 'memory',
      name: 'test:slow-memory',
      record: async (experiences) => {
        await release.promise;
        recorded.push(...experiences);
      },
      query: async () => recorded,
    };
    const loop = new AgentLoop({ id: 'bg-memory', interval: 0 });
    loop.use(memory, { kind: 'planner', name: 'p', plan: () => ({ task: 'noop' }) });
    await loop.start();
    await iterations(loop, 5);
    expect(recorded).toHaveLength(0); // the first write is still pending, yet iterations went on
    const stopped = loop.stop();
    release.resolve();
    await stopped; // stop() waits for pending writes
    expect(recorded.length).toBe(loop.stats().iterations);
    expect(recorded[0]?.iterationId).toBe('bg-memory#1');
  });

  it('sensors of one loop run concurrently', async () => {
    const gates = [deferred(), deferred()];
    const started: string[] = [];
    const loop = new AgentLoop({ id: 'sensors' });
    loop.use(
      { kind: 'sensor', name: 'a', sense: async () => (started.push('a'), await gates[0]?.promise, [{ source: 'a', content: '1' }]) },
      { kind: 'sensor', name: 'b', sense: async () => (started.push('b'), await gates[1]?.promise, [{ source: 'b', content: '2' }]) },
    );
    const sensed = loop.stepSense();
    await flush();
    expect(started).toEqual(['a', 'b']);
    gates[1]?.resolve();
    gates[0]?.resolve();
    expect((await sensed).map((p) => p.source)).toEqual(['a', 'b']);
  });
});
