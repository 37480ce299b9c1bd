import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type TroupeEvent } from '@troupe/core';
import { deferred, flush, iterations, memoryLogger } from '../../testing/loop-test-kit';

afterEach(() => {
  vi.useRealTimers();
});

describe('AgentLoop: monitoring (seed 002 §6)', () => {
  it('stats: total iterations, per-phase mean and p95 durations, error rate, per-iteration timing', async () => {
    let clock = 0;
    const loop = new AgentLoop({ id: 'stats', interval: 0, now: () => clock, health: { maxConsecutiveFailures: 1000 } });
    loop.use(
      {
        kind: 'sensor',
        name: 's',
        sense: ({ iteration }) => {
          clock += iteration; // 1, 2, … 20 ms
          return [{ source: 's', content: 'x' }];
        },
      },
      {
        kind: 'planner',
        name: 'p',
        plan: (_ps, { iteration }) => {
          clock += 20;
          if (iteration % 4 === 0) throw new Error('every fourth plan fails');
          return { task: 't', toolCalls: [{ tool: 'tool' }] };
        },
      },
      { kind: 'tool', name: 'tool', execute: () => void (clock += 30) },
      { kind: 'reflector', name: 'r', reflect: () => void (clock += 40) },
    );
    const timings: TroupeEvent<'loop:completed'>[] = [];
    loop.bus.on('loop:completed', (event) => void timings.push(event));
    await loop.start();
    await iterations(loop, 20);
    await loop.pause();
    const stats = loop.stats();
    expect(stats).toMatchObject({ loopId: 'stats', state: 'paused', iterations: 20, completed: 15, failed: 5, errorRate: 0.25, consecutiveFailures: 1 });
    expect(stats.phases.sense).toEqual({ count: 20, errors: 0, meanMs: 10.5, p95Ms: 19, maxMs: 20, lastMs: 20 });
    expect(stats.phases.plan).toMatchObject({ count: 20, errors: 5, meanMs: 20, p95Ms: 20 });
    expect(stats.phases.act).toMatchObject({ count: 15, meanMs: 30 });
    expect(stats.phases.reflect).toMatchObject({ count: 15, meanMs: 40 });
    expect(stats.iteration).toMatchObject({ count: 20, errors: 5 });
    expect(stats.lastIteration).toMatchObject({
      iterationId: 'stats#20',
      outcome: 'failed',
      failedPhase: 'plan',
      durationMs: 40,
      phaseDurations: { sense: 20, plan: 20 },
    });
    expect(timings[0]?.payload).toMatchObject({ iterationId: 'stats#1', durationMs: 91, phaseDurations: { sense: 1, plan: 20, act: 30, reflect: 40 } });
    await loop.stop();
  });

  it('detects a phase running past the stuck threshold and publishes loop:stuck once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const gate = deferred<[]>();
    const { logger, lines } = memoryLogger();
    const loop = new AgentLoop({ id: 'stuck', interval: 0, stuckThresholdMs: 1000, now: () => Date.now(), logger });
    loop.use({ kind: 'sensor', name: 's', sense: ({ iteration }) => (iteration === 1 ? gate.promise : []) }, { kind: 'planner', name: 'p', plan: () => null });
    const stuck: TroupeEvent<'loop:stuck'>[] = [];
    loop.bus.on('loop:stuck', (event) => void stuck.push(event));
    await loop.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(stuck).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(stuck.map((event) => event.payload)).toEqual([
      { loopId: 'stuck', iterationId: 'stuck#1', phase: 'sense', runningMs: 1000, thresholdMs: 1000, timestamp: expect.any(Number) },
    ]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(stuck).toHaveLength(1);
    expect(lines.find((line) => line.level === 'warn')?.message).toBe('Loop "stuck" sense phase has been running for 1000 ms');
    gate.resolve([]);
    await flush();
    await flush();
    expect(loop.stats()).toMatchObject({ stuckPhases: 1 });
    expect(loop.stats().iterations).toBeGreaterThanOrEqual(1);
    await loop.stop();
  });

  it('health: after N consecutive failures publishes an alert, calls the recover hook, and reports healthy again', async () => {
    let broken = true;
    const recovered: number[] = [];
    const loop = new AgentLoop({
      id: 'health',
      interval: 0,
      health: {
        maxConsecutiveFailures: 3,
        action: 'recover',
        recover: ({ consecutiveFailures, lastError }) => {
          recovered.push(consecutiveFailures);
          expect(lastError?.message).toBe('planner down');
          broken = false;
        },
      },
    });
    loop.use({
      kind: 'planner',
      name: 'p',
      plan: () => {
        if (broken) throw new Error('planner down');
        return null;
      },
    });
    const health: TroupeEvent<'loop:health'>['payload'][] = [];
    loop.bus.on('loop:health', (event) => void health.push(event.payload));
    await loop.start();
    await iterations(loop, 5);
    await loop.stop();
    expect(recovered).toEqual([3]);
    expect(health.map(({ status, action, consecutiveFailures }) => ({ status, action, consecutiveFailures }))).toEqual([
      { status: 'unhealthy', action: 'recover', consecutiveFailures: 3 },
      { status: 'recovered', action: 'recover', consecutiveFailures: 0 },
      { status: 'healthy', action: 'none', consecutiveFailures: 0 },
    ]);
    expect(health[0]?.lastError).toEqual({ name: 'Error', message: 'planner down' });
    expect(loop.stats().healthAlerts).toBe(1);
  });

  it('health: the default recovery re-initialises the stages; a failing recovery is reported', async () => {
    const calls: string[] = [];
    const loop = new AgentLoop({ id: 'reinit', interval: 0, health: { maxConsecutiveFailures: 2 } });
    loop.use({
      kind: 'sensor',
      name: 'flaky',
      setup: () => void calls.push('setup'),
      teardown: () => void calls.push('teardown'),
      sense: () => {
        throw new Error('connection lost');
      },
    });
    const health: string[] = [];
    loop.bus.on('loop:health', (event) => void health.push(event.payload.status));
    await loop.start();
    await iterations(loop, 4);
    await loop.stop();
    expect(calls.slice(0, 5)).toEqual(['setup', 'teardown', 'setup', 'teardown', 'setup']);
    expect(health.slice(0, 4)).toEqual(['unhealthy', 'recovered', 'unhealthy', 'recovered']);

    const failing = new AgentLoop({
      id: 'no-cure',
      interval: 0,
      health: {
        maxConsecutiveFailures: 1,
        recover: () => {
          throw new Error('cannot reconnect');
        },
      },
    });
    const events: TroupeEvent<'loop:health'>['payload'][] = [];
    failing.bus.on('loop:health', (event) => void events.push(event.payload));
    const errors: string[] = [];
    failing.bus.on('loop:error', (event) => void errors.push(event.payload.phase));
    await failing.start();
    await iterations(failing, 1);
    await failing.stop();
    expect(events[1]).toMatchObject({ status: 'recovery-failed', lastError: { message: 'cannot reconnect' } });
    expect(errors).toContain('recover');
  });

  it('health: the backoff action waits longer after each further failure, until a success', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let failures = 4;
    const loop = new AgentLoop({ id: 'backoff', interval: 0, health: { maxConsecutiveFailures: 2, action: 'backoff', backoff: { initialMs: 1000, factor: 2 } } });
    loop.use({
      kind: 'planner',
      name: 'p',
      plan: () => {
        if (failures-- > 0) throw new Error('rate limited');
        return null;
      },
    });
    const health: TroupeEvent<'loop:health'>['payload'][] = [];
    loop.bus.on('loop:health', (event) => void health.push(event.payload));
    await loop.start();
    for (let i = 0; i < 5; i++) await flush();
    expect(loop.stats().iterations).toBe(2); // two quick failures, then the alert and a 1 s back-off
    expect(health[0]).toMatchObject({ status: 'unhealthy', action: 'backoff', backoffMs: 1000, consecutiveFailures: 2 });
    await vi.advanceTimersByTimeAsync(1000);
    await flush();
    expect(loop.stats().iterations).toBe(3); // third failure: 2 s
    await vi.advanceTimersByTimeAsync(1999);
    await flush();
    expect(loop.stats().iterations).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(loop.stats().iterations).toBe(4); // fourth failure: 4 s
    await vi.advanceTimersByTimeAsync(4000);
    await flush();
    expect(loop.stats().iterations).toBeGreaterThanOrEqual(5); // success: healthy, no more back-off
    expect(health.map((event) => event.status)).toEqual(['unhealthy', 'healthy']);
    await loop.stop();
  });

  it('health: the stop action stops the loop and saves its state', async () => {
    const loop = new AgentLoop({ id: 'give-up', interval: 0, health: { maxConsecutiveFailures: 3, action: 'stop' } });
    loop.use({
      kind: 'sensor',
      name: 's',
      sense: () => {
        throw new Error('gone');
      },
    });
    const stopped = loop.bus.waitFor('loop:state-changed', { filter: (event) => event.payload.to === 'stopped' });
    await loop.start();
    await stopped;
    expect(loop.stats()).toMatchObject({ iterations: 3, failed: 3, healthAlerts: 1, state: 'stopped' });
    expect((await loop.store.get(['loop', 'give-up'], 'state'))?.value).toMatchObject({ totals: { iterations: 3, failed: 3 } });
  });
});
