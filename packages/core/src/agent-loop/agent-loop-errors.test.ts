import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type ActResult, type TroupeEvent } from '@troupe/core';
import { iterations, memoryLogger } from '../testing/loop-test-kit';

/** A loop whose phases fail on the iterations listed for each. */
function faultyLoop(id: string, fail: { sense?: number[]; plan?: number[]; act?: number[]; reflect?: number[] }) {
  const calls: string[] = [];
  const reflected: ActResult[] = [];
  const { logger, lines } = memoryLogger();
  const loop = new AgentLoop({ id, interval: 0, logger, health: { maxConsecutiveFailures: 100 } });
  loop.use(
    {
      kind: 'sensor',
      name: 'test:sensor',
      sense: ({ iteration }) => {
        calls.push(`sense ${iteration}`);
        if (fail.sense?.includes(iteration)) throw new Error(`sensor broke on ${iteration}`);
        return [{ source: 's', content: String(iteration) }];
      },
    },
    {
      kind: 'planner',
      name: 'test:planner',
      plan: async ({ 0: perception }, { iteration }) => {
        calls.push(`plan ${iteration}`);
        if (fail.plan?.includes(iteration)) throw new Error(`planner broke on ${iteration}`);
        return { task: `task ${perception?.content}`, toolCalls: [{ tool: 'test:tool', input: iteration }] };
      },
    },
    {
      kind: 'tool',
      name: 'test:tool',
      execute: async (input) => {
        calls.push(`act ${String(input)}`);
        if (fail.act?.includes(input as number)) throw Object.assign(new Error(`tool broke on ${String(input)}`), { code: 'EBROKEN' });
        return 'ok';
      },
    },
    {
      kind: 'reflector',
      name: 'test:reflector',
      reflect: (result, { iteration }) => {
        calls.push(`reflect ${iteration}`);
        reflected.push(result);
        if (fail.reflect?.includes(iteration)) throw new Error(`reflector broke on ${iteration}`);
        return { outcome: result.ok ? 'success' : 'failure', analysis: result.error?.message ?? 'fine', tags: [] };
      },
    },
  );
  const errors: TroupeEvent<'loop:error'>[] = [];
  loop.bus.on('loop:error', (event) => void errors.push(event));
  return { loop, calls, reflected, lines, errors };
}

async function runUntil(loop: AgentLoop, count: number): Promise<void> {
  await loop.start();
  await iterations(loop, count);
  await loop.stop();
}

describe('AgentLoop: error handling per phase (seed 002 §4)', () => {
  it('Sense error: logged, the iteration is skipped (no Plan), the next Sense follows', async () => {
    const { loop, calls, lines, errors } = faultyLoop('sense-error', { sense: [1] });
    await runUntil(loop, 2);
    expect(calls.slice(0, 5)).toEqual(['sense 1', 'sense 2', 'plan 2', 'act 2', 'reflect 2']);
    expect(lines.find((line) => line.level === 'error')?.message).toBe(
      'Loop "sense-error" sense failed in stage "test:sensor": Error: sensor broke on 1',
    );
    expect(errors[0]?.payload).toMatchObject({ phase: 'sense', handling: 'skip-iteration', stage: 'test:sensor', iterationId: 'sense-error#1' });
    expect(loop.stats().phases.sense.errors).toBe(1);
  });

  it('Plan error: logged, ErrorOccurred (loop:error) published, the iteration is skipped, the next Sense follows', async () => {
    const { loop, calls, lines, errors } = faultyLoop('plan-error', { plan: [1] });
    await runUntil(loop, 2);
    expect(calls.slice(0, 6)).toEqual(['sense 1', 'plan 1', 'sense 2', 'plan 2', 'act 2', 'reflect 2']);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)[0]).toBe(
      'Loop "plan-error" plan failed in stage "test:planner": Error: planner broke on 1',
    );
    expect(errors[0]?.payload).toMatchObject({
      loopId: 'plan-error',
      iterationId: 'plan-error#1',
      phase: 'plan',
      handling: 'skip-iteration',
      stage: 'test:planner',
      error: { name: 'Error', message: 'planner broke on 1' },
    });
  });

  it('Act error: logged, loop:error published, Reflect runs on the failure to analyse it', async () => {
    const { loop, calls, reflected, lines, errors } = faultyLoop('act-error', { act: [1] });
    await runUntil(loop, 2);
    expect(calls.slice(0, 8)).toEqual(['sense 1', 'plan 1', 'act 1', 'reflect 1', 'sense 2', 'plan 2', 'act 2', 'reflect 2']);
    expect(reflected[0]).toMatchObject({ ok: false, error: { message: 'tool broke on 1', code: 'EBROKEN' }, results: [{ status: 'failed' }] });
    expect(lines.some((line) => line.level === 'error' && line.message.includes('act failed in stage "test:tool": Error: tool broke on 1'))).toBe(true);
    expect(errors[0]?.payload).toMatchObject({ phase: 'act', handling: 'reflect-failure', stage: 'test:tool', error: { code: 'EBROKEN' } });
    const [failure] = await loop.memory.query({ outcome: 'failure' });
    expect(failure).toMatchObject({ iterationId: 'act-error#1', analysis: 'tool broke on 1' });
    expect(loop.stats()).toMatchObject({ phases: { act: { errors: 1 } }, lastIteration: { outcome: 'completed' } });
  });

  it('Reflect error: logged, the next iteration is unaffected', async () => {
    const { loop, calls, lines, errors } = faultyLoop('reflect-error', { reflect: [1] });
    await runUntil(loop, 2);
    expect(calls.slice(0, 8)).toEqual(['sense 1', 'plan 1', 'act 1', 'reflect 1', 'sense 2', 'plan 2', 'act 2', 'reflect 2']);
    expect(lines.some((line) => line.level === 'error' && line.message.includes('reflect failed in stage "test:reflector"'))).toBe(true);
    expect(errors[0]?.payload).toMatchObject({ phase: 'reflect', handling: 'continue' });
    expect(loop.stats().completed).toBeGreaterThanOrEqual(1);
  });

  it('a throwing phase never ends the loop; the iteration outcome and error rate say what happened', async () => {
    const { loop } = faultyLoop('mixed', { sense: [1], plan: [2], act: [3], reflect: [4] });
    const outcomes: string[] = [];
    loop.bus.on('loop:completed', (event) => void outcomes.push(`${event.payload.outcome}${event.payload.failedPhase ? `:${event.payload.failedPhase}` : ''}`));
    await runUntil(loop, 5);
    expect(outcomes.slice(0, 5)).toEqual(['failed:sense', 'failed:plan', 'failed:act', 'failed:reflect', 'completed']);
    const stats = loop.stats();
    expect(stats.failed).toBe(4);
    expect(stats.errorRate).toBe(4 / stats.iterations);
  });

  it('a missing planner, a sensor returning garbage and a processor returning garbage are phase errors with clear messages', async () => {
    const loop = new AgentLoop({ id: 'garbage' });
    await expect(loop.stepPlan([])).rejects.toThrow(`Loop "garbage" has no planner; register one with use({ kind: 'planner', … })`);
    const off = loop.use({ kind: 'sensor', name: 'bad', sense: () => 'nope' as unknown as [] });
    await expect(loop.stepSense()).rejects.toThrow('Invalid argument "sensor "bad"": sense() must return an array of perceptions');
    off();
    loop.use({ kind: 'sensor', name: 'half', sense: () => [{ source: 's' } as never] });
    await expect(loop.stepSense()).rejects.toThrow('Invalid argument "sensor "half" perception [0]": expected { source: string, content: string, … }');
    const loop2 = new AgentLoop({ id: 'garbage2' });
    loop2.use({ kind: 'perception-processor', name: 'lossy', process: () => undefined as unknown as [] });
    await expect(loop2.stepSense()).rejects.toThrow('perception processor "lossy"');
  });

  it('secrets never reach events or logs', async () => {
    const { logger, lines } = memoryLogger();
    const loop = new AgentLoop({ id: 'secret', logger, secrets: ['hunter2-secret'] });
    const events: string[] = [];
    loop.bus.on('*', (event) => void events.push(JSON.stringify(event)));
    loop.use({
      kind: 'planner',
      name: 'leaky',
      plan: () => {
        throw new Error('auth failed with hunter2-secret and sk-ant-api03-abcdefghijkl');
      },
    });
    await expect(loop.stepPlan([{ source: 's', content: 'token hunter2-secret' }])).rejects.toThrow();
    const text = events.join('\n') + JSON.stringify(lines);
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('sk-ant-api03');
    expect(text).toContain('[REDACTED]');
  });
});
