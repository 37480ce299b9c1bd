import { afterEach, describe, expect, it, vi } from 'vitest';
import { adaptiveIntervalSeconds, AgentLoop, resolveLoopInterval } from '@troupe/core/agent-loop';
import { type PerceptionInput } from '@troupe/core';
import { flush, iterations } from '../testing/loop-test-kit';

afterEach(() => {
  vi.useRealTimers();
});

/** A loop whose sensor returns `counts[i]` perceptions in iteration i+1 (0 afterwards). */
function countingLoop(options: ConstructorParameters<typeof AgentLoop>[0], counts: number[] = []) {
  const loop = new AgentLoop({ id: 'interval', ...options });
  loop.use(
    {
      kind: 'sensor',
      name: 'n',
      sense: ({ iteration }) => Array.from({ length: counts[iteration - 1] ?? 0 }, (_, i): PerceptionInput => ({ source: 'n', content: String(i) })),
    },
    { kind: 'planner', name: 'p', plan: () => null },
  );
  return loop;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await flush();
}

describe('AgentLoop: interval control (seed 002 §5)', () => {
  it('fixed interval from the config file (agent.loop_interval = 1.0): waits 1 s after each iteration', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const loop = countingLoop({ config: { agent: { loop_interval: 1.0 } } });
    expect(loop.intervalDescription).toBe('1s');
    await loop.start();
    await settle();
    expect(loop.stats().iterations).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(loop.stats().iterations).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(loop.stats().iterations).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(loop.stats().iterations).toBe(3);
    await loop.stop();
  });

  it('adaptive interval: 0.5 s after many perceptions, 5 s after few, linear in between', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const loop = countingLoop({ config: { agent: { loop_interval: 'adaptive' } } }, [12, 0, 5]);
    expect(loop.intervalDescription).toBe('adaptive 0.5–5s');
    await loop.start();
    await settle();
    expect(loop.stats().lastIteration?.perceptionCount).toBe(12);
    await vi.advanceTimersByTimeAsync(499);
    await settle();
    expect(loop.stats().iterations).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(loop.stats().iterations).toBe(2); // 12 perceptions → 0.5 s
    await vi.advanceTimersByTimeAsync(4999);
    await settle();
    expect(loop.stats().iterations).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(loop.stats().iterations).toBe(3); // 0 perceptions → 5 s
    await vi.advanceTimersByTimeAsync(2749);
    await settle();
    expect(loop.stats().iterations).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(loop.stats().iterations).toBe(4); // 5 perceptions → 2.75 s
    await loop.stop();
  });

  it('no interval (agent.loop_interval = 0): iterations follow each other without any timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const loop = countingLoop({ config: { agent: { loop_interval: 0 } } });
    await loop.start();
    await iterations(loop, 30); // fake timers never advance: only a zero delay gets here
    await loop.stop();
    expect(loop.stats().iterations).toBeGreaterThanOrEqual(30);
  });

  it('programmatic options override the config file; adaptive tuning comes from [agent.loop_adaptive]', async () => {
    expect(countingLoop({ config: { agent: { loop_interval: 3 } }, interval: 0 }).intervalDescription).toBe('0s');
    expect(
      countingLoop({ config: { agent: { loop_interval: 'adaptive', loop_adaptive: { min_interval: 1, max_interval: 2 } } } }).intervalDescription,
    ).toBe('adaptive 1–2s');
    expect(countingLoop({ interval: 'adaptive', config: { agent: { loop_interval: 'adaptive', loop_adaptive: { max_interval: 9 } } } }).intervalDescription).toBe(
      'adaptive 0.5–9s',
    );
    expect(countingLoop({}).intervalDescription).toBe('1s');
  });

  it('the adaptive rule', () => {
    expect([0, 1, 5, 10, 42].map((n) => adaptiveIntervalSeconds(n))).toEqual([5, 4.55, 2.75, 0.5, 0.5]);
    expect(adaptiveIntervalSeconds(3, { fewPerceptions: 2, manyPerceptions: 4, minSeconds: 1, maxSeconds: 3 })).toBe(2);
    const policy = resolveLoopInterval({ mode: 'adaptive', manyPerceptions: 4 });
    expect(policy.mode).toBe('adaptive');
    expect(policy.delayMs(2)).toBe(2750);
    expect(resolveLoopInterval(0.25).delayMs(100)).toBe(250);
  });

  it('rejects bad interval settings with the field named', () => {
    expect(() => resolveLoopInterval(-1)).toThrow('Invalid argument "interval": expected a number of seconds >= 0, got -1');
    expect(() => resolveLoopInterval(Number.NaN)).toThrow(/interval/);
    expect(() => resolveLoopInterval('fast' as 'adaptive')).toThrow(/expected seconds \(a number >= 0\), "adaptive"/);
    expect(() => resolveLoopInterval({ mode: 'adaptive', minSeconds: 6 })).toThrow('Invalid argument "interval.minSeconds": must not exceed maxSeconds (6 > 5)');
    expect(() => resolveLoopInterval({ mode: 'adaptive', fewPerceptions: 10 })).toThrow(/interval.fewPerceptions/);
    expect(() => new AgentLoop({ interval: -2 })).toThrow(/interval/);
  });
});
