import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { EventBus, type AnyTroupeEvent } from '@troupe/core';

/** A loop whose sensor counts iterations and runs `onIteration` at the start of each. */
function countingLoop(bus: EventBus, onIteration: (n: number) => void): AgentLoop {
  const loop = new AgentLoop({ id: 'listeners', interval: 0, bus });
  let n = 0;
  loop.use(
    { kind: 'sensor', name: 'tick', sense: () => (onIteration(++n), [{ source: 't', content: String(n) }]) },
    { kind: 'planner', name: 'plan', plan: () => ({ task: 'noop', toolCalls: [{ tool: 'noop', input: null }] }) },
    { kind: 'tool', name: 'noop', execute: () => 1 },
  );
  return loop;
}

const iterationsOf = (events: readonly AnyTroupeEvent[], type: string): number[] =>
  events.filter((event) => event.type === type).map((event) => (event.payload as { iteration?: number; iterationId: string }).iterationId.split('#')[1]).map(Number);

describe('AgentLoop: listeners that come and go while it runs', () => {
  it('a listener added mid-run through on(), once() or the raw emitter gets the iteration events from the next iteration on; a removed one stops getting them', async () => {
    const bus = new EventBus();
    const viaOn: AnyTroupeEvent[] = [];
    const viaEmitter: AnyTroupeEvent[] = [];
    const viaOnce: AnyTroupeEvent[] = [];
    const done = bus.waitFor('loop:completed', { filter: (event) => event.payload.iteration >= 8 });
    let off: (() => void) | undefined;
    const raw = (event: AnyTroupeEvent) => void viaEmitter.push(event);
    const loop = countingLoop(bus, (n) => {
      if (n === 2) off = bus.on('loop:phase-completed', (event) => void viaOn.push(event));
      if (n === 3) bus.emitter.on('loop:started', raw);
      if (n === 4) bus.once('loop:phase-started', (event) => void viaOnce.push(event));
      if (n === 5) off?.();
      if (n === 6) bus.emitter.off('loop:started', raw);
    });
    await loop.start();
    await done;
    await loop.stop();
    // Added during iteration 2's Sense: from iteration 3 on (each iteration checks once, at its start); removed during 5's Sense: nothing after.
    expect([...new Set(iterationsOf(viaOn, 'loop:phase-completed'))]).toEqual([3, 4]);
    expect(iterationsOf(viaEmitter, 'loop:started')).toEqual([4, 5, 6]);
    expect(viaOnce).toHaveLength(1);
    expect(viaOnce[0]?.payload).toMatchObject({ iterationId: 'listeners#5', phase: 'sense' });
  });

  it('with no listener at all, no iteration event is built; one added later is served', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    let resolveLater!: () => void;
    const later = new Promise<void>((resolve) => (resolveLater = resolve));
    const loop = countingLoop(bus, (n) => {
      if (n === 3) bus.on('*', (event) => void seen.push(`${event.type}`));
      if (n === 5) resolveLater();
    });
    await loop.start();
    await later;
    await loop.stop();
    expect(seen.filter((type) => type === 'loop:started').length).toBeGreaterThanOrEqual(1);
    expect(seen).toContain('loop:phase-completed');
    expect(loop.stats().iterations).toBeGreaterThanOrEqual(5);
  });
});
