import { describe, expect, it } from 'vitest';
import { AgentLoop, loopStateNamespace, type LoopStateSnapshot } from '@troupe/core/agent-loop';
import { InvalidStateError, MemoryStore, TroupeError } from '@troupe/core';
import { deferred, eventTrail, flush, iterations, recordEvents } from '../testing/loop-test-kit';

function gatedLoop(id: string) {
  let gate = deferred();
  const entered: number[] = [];
  const loop = new AgentLoop({ id, interval: 0 });
  loop.use(
    {
      kind: 'sensor',
      name: 'gated',
      sense: async (context) => {
        entered.push(context.iteration);
        await gate.promise;
        return [{ source: 'gate', content: `#${context.iteration}` }];
      },
    },
    { kind: 'planner', name: 'p', plan: (ps) => ({ task: 'echo', toolCalls: ps.map((p) => ({ tool: 'echo', input: p.content })) }) },
    { kind: 'tool', name: 'echo', execute: (input) => input },
  );
  return {
    loop,
    entered,
    open: () => {
      const current = gate;
      gate = deferred();
      current.resolve();
    },
  };
}

describe('AgentLoop: control (seed 002 §3)', () => {
  it('start() begins iterating and keeps going until stop()', async () => {
    const loop = new AgentLoop({ id: 'run', interval: 0 });
    loop.use({ kind: 'planner', name: 'p', plan: () => null });
    expect(loop.state).toBe('idle');
    await loop.start();
    expect(loop.state).toBe('running');
    await iterations(loop, 25);
    await loop.stop();
    expect(loop.state).toBe('stopped');
    const count = loop.stats().iterations;
    expect(count).toBeGreaterThanOrEqual(25);
    await flush();
    expect(loop.stats().iterations).toBe(count);
  });

  it('stop() finishes the current iteration, releases resources and saves state to the Store', async () => {
    const { loop, entered, open } = gatedLoop('graceful');
    const torn: string[] = [];
    loop.use({ kind: 'reflector', name: 'r', reflect: () => undefined, setup: () => void torn.push('setup'), teardown: () => void torn.push('teardown') });
    const events = recordEvents(loop.bus);
    await loop.start();
    await flush();
    expect(entered).toEqual([1]);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await flush();
    expect(loop.state).toBe('stopping');
    expect(stopped).toBe(false); // waits for the iteration in progress
    open();
    await stopping;
    expect(entered).toEqual([1]); // no new iteration
    expect(eventTrail(events, ['loop:phase-completed', 'loop:completed', 'loop:state-changed'])).toEqual([
      'loop:state-changed starting',
      'loop:state-changed running',
      'loop:state-changed stopping',
      'loop:phase-completed sense',
      'loop:phase-completed plan',
      'loop:phase-completed act',
      'loop:phase-completed reflect',
      'loop:completed',
      'loop:state-changed stopped',
    ]);
    expect(torn).toEqual(['setup', 'teardown']);
    const saved = await loop.store.get<LoopStateSnapshot>(loopStateNamespace('graceful'), 'state');
    expect(saved?.value).toMatchObject({ version: 1, loopId: 'graceful', totals: { iterations: 1, completed: 1 }, capabilities: [{ tool: 'echo', calls: 1 }] });
  });

  it('a new loop with the same id and Store restores the saved state and continues the numbering', async () => {
    const store = new MemoryStore();
    const first = new AgentLoop({ id: 'durable', store, interval: 0 });
    first.use({ kind: 'planner', name: 'p', plan: () => ({ task: 't', toolCalls: [{ tool: 'x' }] }) }, { kind: 'tool', name: 'x', execute: () => 1 });
    await first.start();
    await iterations(first, 3);
    await first.stop();
    const total = first.stats().iterations;
    const second = new AgentLoop({ id: 'durable', store, interval: 0 });
    second.use({ kind: 'planner', name: 'p', plan: () => null });
    const started = second.bus.waitFor('loop:started');
    await second.start();
    expect((await started).payload.iterationId).toBe(`durable#${total + 1}`);
    await second.stop();
    expect(second.stats().iterations).toBeGreaterThan(total);
    expect(second.capabilities()[0]).toMatchObject({ tool: 'x', calls: total });
  });

  it('pause() waits for the current iteration, then starts no new one; resume() continues', async () => {
    const { loop, entered, open } = gatedLoop('pausable');
    const events = recordEvents(loop.bus);
    await loop.start();
    await flush();
    const pausing = loop.pause();
    expect(loop.state).toBe('pausing');
    open();
    await pausing;
    expect(loop.state).toBe('paused');
    expect(entered).toEqual([1]);
    for (let i = 0; i < 5; i++) await flush();
    expect(entered).toEqual([1]);
    expect(loop.stats().iterations).toBe(1);
    await loop.resume();
    expect(loop.state).toBe('running');
    await flush();
    expect(entered).toEqual([1, 2]);
    open();
    await iterations(loop, 2);
    const stopping = loop.stop();
    open();
    await stopping;
    expect(eventTrail(events, ['loop:state-changed'])).toEqual([
      'loop:state-changed starting',
      'loop:state-changed running',
      'loop:state-changed pausing',
      'loop:state-changed paused',
      'loop:state-changed running',
      'loop:state-changed stopping',
      'loop:state-changed stopped',
    ]);
  });

  it('pause() during the wait between iterations takes effect at once', async () => {
    const loop = new AgentLoop({ id: 'long-wait', interval: 3600 });
    loop.use({ kind: 'planner', name: 'p', plan: () => null });
    await loop.start();
    await iterations(loop, 1);
    await loop.pause();
    expect(loop.state).toBe('paused');
    await loop.stop();
    expect(loop.stats().iterations).toBe(1);
  });

  it('invalid transitions throw InvalidStateError with a clear message', async () => {
    const loop = new AgentLoop({ id: 'strict', interval: 0 });
    loop.use({ kind: 'planner', name: 'p', plan: () => null });
    await expect(loop.pause()).rejects.toThrow('Cannot pause loop "strict": it is idle');
    await expect(loop.resume()).rejects.toThrow('Cannot resume loop "strict": it is idle; only a paused loop resumes');
    await expect(loop.stop()).rejects.toThrow('Cannot stop loop "strict": it is idle');
    await loop.start();
    const error = await loop.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(TroupeError.hasCode(error, 'INVALID_STATE')).toBe(true);
    expect((error as Error).message).toBe('Cannot start loop "strict": it is running');
    await expect(loop.resume()).rejects.toThrow('Cannot resume loop "strict": it is running');
    await expect(loop.stepSense()).rejects.toThrow('Cannot stepSense() on loop "strict" while it is running; pause or stop it first');
    const pausing = loop.pause();
    expect(loop.pause()).toBe(pausing); // same transition, not an error
    await pausing;
    await expect(loop.pause()).rejects.toThrow('Cannot pause loop "strict": it is paused');
    await expect(loop.start()).rejects.toThrow('Cannot start loop "strict": it is paused; call resume()');
    await loop.stop();
    await expect(loop.stop()).rejects.toThrow('Cannot stop loop "strict": it is stopped');
    await expect(loop.pause()).rejects.toThrow(InvalidStateError);
    await loop.start(); // a stopped loop starts again
    await loop.stop();
  });

  it('stop() of a paused loop stops it; resume() while pausing waits for the pause first', async () => {
    const { loop, open } = gatedLoop('mixed');
    await loop.start();
    await flush();
    const pausing = loop.pause();
    const resuming = loop.resume();
    open();
    await pausing;
    await resuming;
    expect(loop.state).toBe('running');
    await flush();
    await loop.pause({ signal: AbortSignal.abort() });
    expect(loop.state).toBe('paused');
    await loop.stop();
    expect(loop.state).toBe('stopped');
  });

  it('stop({ signal }) aborts the iteration in progress instead of waiting', async () => {
    const loop = new AgentLoop({ id: 'abortable', interval: 0 });
    let sawAbort = false;
    loop.use({
      kind: 'sensor',
      name: 'hang',
      sense: (context) =>
        new Promise((_, reject) => context.signal.addEventListener('abort', () => ((sawAbort = true), reject(context.signal.reason)))),
    });
    const errors: unknown[] = [];
    loop.bus.on('loop:error', (event) => void errors.push(event));
    await loop.start();
    await flush();
    const controller = new AbortController();
    const stopping = loop.stop({ signal: controller.signal });
    controller.abort(new Error('shutdown'));
    await stopping;
    expect(sawAbort).toBe(true);
    expect(loop.stats()).toMatchObject({ iterations: 1, aborted: 1, failed: 0 });
    expect(errors).toEqual([]); // an abort is not an error
  });

  it('an aborted run or step starts none of the action\'s remaining tool calls', async () => {
    const started: string[] = [];
    const loop = new AgentLoop({ id: 'cut-short', interval: 0 });
    let stopping: Promise<void> | undefined;
    let cut: () => void = () => {};
    let firstDone = deferred();
    loop.use(
      { kind: 'sensor', name: 's', sense: () => [{ source: 'test', content: 'go' }] },
      { kind: 'planner', name: 'p', plan: () => ({ task: 'two', toolCalls: [{ tool: 'first' }, { tool: 'second' }], execution: { mode: 'sequential', stopOnError: false } }) },
      { kind: 'tool', name: 'first', execute: async () => (started.push('first'), cut(), await flush(), firstDone.resolve(), 1) },
      { kind: 'tool', name: 'second', execute: () => (started.push('second'), 2) },
    );
    cut = () => void (stopping ??= loop.stop({ signal: AbortSignal.abort() }));
    await loop.start();
    await loop.bus.waitFor('loop:state-changed', { filter: (event) => event.payload.to === 'stopped' });
    await stopping;
    await firstDone.promise; // the abandoned Act goes on in the background: give it the chance to start the second call
    await flush();
    expect(started).toEqual(['first']);

    started.length = 0;
    firstDone = deferred();
    const controller = new AbortController();
    cut = () => controller.abort();
    const result = await loop.stepAct({ task: 'two', toolCalls: [{ tool: 'first' }, { tool: 'second' }], execution: { mode: 'sequential', stopOnError: false } }, { signal: controller.signal }).catch((error: unknown) => error);
    await firstDone.promise;
    await flush();
    expect(started).toEqual(['first']);
    expect(result).toMatchObject({ code: 'ABORTED' });
  });

  it('stop({ signal }) gives up on a phase that ignores the signal', async () => {
    const loop = new AgentLoop({ id: 'deaf', interval: 0 });
    loop.use({ kind: 'sensor', name: 'deaf', sense: () => new Promise(() => {}) });
    await loop.start();
    await loop.stop({ signal: AbortSignal.abort() });
    expect(loop.state).toBe('stopped');
    expect(loop.stats().aborted).toBe(1);
  });

  it('start({ signal }) stops the loop when the signal aborts', async () => {
    const loop = new AgentLoop({ id: 'lifetime', interval: 0 });
    loop.use({ kind: 'planner', name: 'p', plan: () => null });
    const controller = new AbortController();
    await loop.start({ signal: controller.signal });
    const stopped = loop.bus.waitFor('loop:state-changed', { filter: (event) => event.payload.to === 'stopped' });
    controller.abort();
    await stopped;
    expect(loop.state).toBe('stopped');
    await expect(loop.start({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(loop.state).toBe('stopped');
  });

  it('a failing stage setup makes start() reject and leaves the loop stopped, tearing down what was set up', async () => {
    const calls: string[] = [];
    const loop = new AgentLoop({ id: 'setup-fails' });
    loop.use(
      { kind: 'sensor', name: 'ok', sense: () => [], setup: () => void calls.push('ok:setup'), teardown: () => void calls.push('ok:teardown') },
      {
        kind: 'sensor',
        name: 'broken',
        sense: () => [],
        setup: () => {
          throw new Error('no watcher');
        },
      },
    );
    await expect(loop.start()).rejects.toThrow('no watcher');
    expect(loop.state).toBe('idle');
    expect(calls).toEqual(['ok:setup', 'ok:teardown']);
  });

  it('stop() while starting waits for the start, then stops', async () => {
    const gate = deferred();
    const loop = new AgentLoop({ id: 'slow-start', interval: 0 });
    loop.use({ kind: 'sensor', name: 's', sense: () => [], setup: () => gate.promise }, { kind: 'planner', name: 'p', plan: () => null });
    const starting = loop.start();
    expect(loop.state).toBe('starting');
    const stopping = loop.stop();
    gate.resolve();
    await starting;
    await stopping;
    expect(loop.state).toBe('stopped');
  });

  it('dispose() stops an active loop and tears down stages set up by single steps', async () => {
    const calls: string[] = [];
    const loop = new AgentLoop({ id: 'dispose' });
    loop.use({ kind: 'sensor', name: 's', sense: () => [], setup: () => void calls.push('setup'), teardown: () => void calls.push('teardown') });
    await loop.stepSense();
    await loop.stepSense();
    expect(calls).toEqual(['setup']);
    await loop.dispose();
    await loop.dispose();
    expect(calls).toEqual(['setup', 'teardown']);
    loop.use({ kind: 'planner', name: 'p', plan: () => null });
    await loop.start();
    await loop.dispose();
    expect(loop.state).toBe('stopped');
    expect(calls).toEqual(['setup', 'teardown', 'setup', 'teardown']);
  });
});
