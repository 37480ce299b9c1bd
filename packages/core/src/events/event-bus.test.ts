import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, EventBus, parseEvent, registerEventSchema, serializeEvent, type AnyTroupeEvent } from '@troupe/core';

const message = { id: 'looper#1', channelId: 'looper', seq: 1, role: 'system' as const, content: '[AUTO] go', timestamp: 1 };

describe('EventBus', () => {
  it('wraps payloads in a versioned envelope', () => {
    const bus = new EventBus({ source: 'test' });
    const seen: AnyTroupeEvent[] = [];
    bus.on('agent:stopped', (event) => {
      seen.push(event);
    });
    const emitted = bus.emit('agent:stopped', { roleId: 'coder' });
    expect(seen).toEqual([emitted]);
    expect(emitted).toMatchObject({ type: 'agent:stopped', version: 1, source: 'test', payload: { roleId: 'coder' } });
    expect(typeof emitted.timestamp).toBe('number');
    expect(bus.emit('agent:stopped', { roleId: 'x' }, { source: 'looper' }).source).toBe('looper');
  });

  it('on() and once() return unsubscribe functions; wildcard sees every event', () => {
    const bus = new EventBus();
    const all: string[] = [];
    const once: string[] = [];
    const offAll = bus.on('*', (event) => {
      all.push(event.type);
    });
    bus.once('agent:stopped', (event) => {
      once.push(event.payload.roleId);
    });
    bus.emit('agent:stopped', { roleId: 'a' });
    bus.emit('agent:stopped', { roleId: 'b' });
    offAll();
    offAll(); // harmless twice
    bus.emit('agent:stopped', { roleId: 'c' });
    expect(all).toEqual(['agent:stopped', 'agent:stopped']);
    expect(once).toEqual(['a']);
    expect(bus.listenerCount('*')).toBe(0);
    expect(bus.listenerCount('agent:stopped')).toBe(0);
  });

  it('filters by channel and by predicate', () => {
    const bus = new EventBus();
    const looper: string[] = [];
    const long: string[] = [];
    bus.on('message:added', (event) => void looper.push(event.payload.message.content), { channelId: 'looper' });
    bus.on('message:added', (event) => void long.push(event.payload.channelId), { filter: (event) => event.payload.message.content.length > 5 });
    bus.emit('message:added', { channelId: 'looper', tabId: 'looper', message, timestamp: 1 });
    bus.emit('message:added', { channelId: 'devhub', tabId: 'devhub', message: { ...message, channelId: 'devhub', content: 'hi' }, timestamp: 1 });
    expect(looper).toEqual(['[AUTO] go']);
    expect(long).toEqual(['looper']);
  });

  it('a throwing or rejecting listener never stops the emit or other listeners, and is reported', async () => {
    const bus = new EventBus();
    const reached: string[] = [];
    const reported: string[] = [];
    bus.on('bus:listener-error', (event) => void reported.push(`${event.payload.eventType}: ${event.payload.error.message}`));
    bus.on('agent:stopped', () => {
      throw new Error('listener one broke');
    });
    bus.on('agent:stopped', async () => {
      throw new Error('listener two rejected');
    });
    bus.on('agent:stopped', (event) => void reached.push(event.payload.roleId));
    expect(() => bus.emit('agent:stopped', { roleId: 'r' })).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reached).toEqual(['r']);
    expect(reported).toEqual(['agent:stopped: listener one broke', 'agent:stopped: listener two rejected']);
  });

  it('a throwing listener-error listener does not recurse; it becomes a process warning', async () => {
    const bus = new EventBus();
    bus.on('bus:listener-error', () => {
      throw new Error('reporter broke too');
    });
    bus.on('agent:stopped', () => {
      throw new Error('first');
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      expect(() => bus.emit('agent:stopped', { roleId: 'r' })).not.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual(['Troupe event listener for "bus:listener-error" failed: reporter broke too']);
  });

  it('events() iterates and ends on abort without leaking its listener', async () => {
    const bus = new EventBus();
    const controller = new AbortController();
    const received: string[] = [];
    const consumer = (async () => {
      for await (const event of bus.events('agent:stopped', { signal: controller.signal })) {
        received.push(event.payload.roleId);
        if (received.length === 2) setImmediate(() => controller.abort());
      }
    })();
    expect(bus.listenerCount('agent:stopped')).toBe(1);
    bus.emit('agent:stopped', { roleId: 'a' });
    bus.emit('agent:stopped', { roleId: 'b' });
    await consumer;
    expect(received).toEqual(['a', 'b']);
    expect(bus.listenerCount('agent:stopped')).toBe(0);
  });

  it('events() ends when the loop breaks, and with an already-aborted signal', async () => {
    const bus = new EventBus();
    const iterator = bus.events('*');
    bus.emit('agent:stopped', { roleId: 'a' });
    for await (const event of iterator) {
      expect(event.type).toBe('agent:stopped');
      break;
    }
    expect(bus.listenerCount('*')).toBe(0);
    const aborted = bus.events('*', { signal: AbortSignal.abort() });
    expect(await aborted.next()).toEqual({ value: undefined, done: true });
    expect(bus.listenerCount('*')).toBe(0);
  });

  it('waitFor() resolves with the next event or rejects on abort', async () => {
    const bus = new EventBus();
    const next = bus.waitFor('agent:stopped');
    bus.emit('agent:stopped', { roleId: 'z' });
    expect((await next).payload.roleId).toBe('z');
    await expect(bus.waitFor('agent:stopped', { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(bus.listenerCount('agent:stopped')).toBe(0);
  });

  it('listeners added straight to the typed emitter receive events too, and clear() removes everything', () => {
    const bus = new EventBus();
    const raw: string[] = [];
    const ours: string[] = [];
    const direct = (event: { payload: { roleId: string } }) => void raw.push(event.payload.roleId);
    bus.on('agent:stopped', (event) => void ours.push(event.payload.roleId));
    bus.emitter.on('agent:stopped', direct);
    bus.emitter.on('*', (event) => void raw.push(`*${event.type}`));
    bus.emit('agent:stopped', { roleId: 'a' });
    bus.emitter.off('agent:stopped', direct);
    bus.emit('agent:stopped', { roleId: 'b' });
    expect(ours).toEqual(['a', 'b']);
    expect(raw).toEqual(['a', '*agent:stopped', '*agent:stopped']);
    bus.clear();
    bus.emit('agent:stopped', { roleId: 'c' });
    expect(ours).toEqual(['a', 'b']);
    expect(bus.listenerCount('agent:stopped')).toBe(0);
    bus.on('agent:stopped', (event) => void ours.push(event.payload.roleId));
    bus.emit('agent:stopped', { roleId: 'd' });
    expect(ours).toEqual(['a', 'b', 'd']);
  });

  it('rejects bad subscriptions loudly', () => {
    const bus = new EventBus();
    expect(() => bus.on('' as 'agent:stopped', () => {})).toThrow(/type/);
    expect(() => bus.on('agent:stopped', 'nope' as unknown as () => void)).toThrow(/listener/);
  });
});

describe('event serialization', () => {
  it('round-trips an envelope through JSON with validation', () => {
    const bus = new EventBus();
    const event = bus.emit('message:added', { channelId: 'looper', tabId: 'looper', message, timestamp: 5 });
    expect(parseEvent(serializeEvent(event))).toEqual(event);
  });

  it('names the invalid field of a bad payload, an unknown type, and bad JSON', () => {
    const bad = { type: 'message:added', version: 1, timestamp: 1, source: 'x', payload: { channelId: 'c', tabId: 'c', message: { ...message, seq: -1 }, timestamp: 1 } };
    expect(() => parseEvent(bad)).toThrow(ConfigError);
    expect(() => parseEvent(bad)).toThrow(/payload\.message\.seq/);
    expect(() => parseEvent({ ...bad, type: 'nope:nope' })).toThrow(/unknown event type "nope:nope"/);
    expect(() => parseEvent('{not json')).toThrow(/not valid JSON/);
  });

  it('plugins register schemas for their events and unregister them', () => {
    const unregister = registerEventSchema('looper:state-changed', z.object({ state: z.enum(['IDLE', 'RUNNING']) }), 2);
    const event = { type: 'looper:state-changed', version: 2, timestamp: 1, source: 'looper', payload: { state: 'RUNNING' } };
    expect(parseEvent(event)).toEqual(event);
    expect(() => parseEvent({ ...event, payload: { state: 'NOPE' } })).toThrow(/payload\.state/);
    expect(() => registerEventSchema('looper:state-changed', z.object({}))).toThrow(/already/);
    expect(() => registerEventSchema('BadName', z.object({}))).toThrow(/namespace:name/);
    unregister();
    expect(() => parseEvent(event)).toThrow(/unknown event type/);
  });
});

describe('EventBus.listenerGeneration', () => {
  it('moves when a listener is added or removed by any route, and only then', () => {
    const bus = new EventBus();
    const seen: number[] = [bus.listenerGeneration];
    const moved = () => {
      const now = bus.listenerGeneration;
      const changed = now !== seen[seen.length - 1];
      seen.push(now);
      return changed;
    };
    bus.emit('bus:listener-error', { eventType: 'x', error: { name: 'E', message: 'm' } });
    expect(moved()).toBe(false); // emitting is not a change
    const off = bus.on('loop:started', () => {});
    expect(moved()).toBe(true);
    off();
    expect(moved()).toBe(true);
    off(); // already removed
    expect(moved()).toBe(false);
    bus.once('*', () => {});
    expect(moved()).toBe(true);
    bus.emit('bus:listener-error', { eventType: 'x', error: { name: 'E', message: 'm' } }); // the once listener leaves
    expect(moved()).toBe(true);
    const raw = () => {};
    bus.emitter.on('loop:completed', raw);
    expect(moved()).toBe(true);
    bus.emitter.off('loop:completed', raw);
    expect(moved()).toBe(true);
    const controller = new AbortController();
    bus.on('loop:completed', () => {}, { signal: controller.signal });
    expect(moved()).toBe(true);
    controller.abort();
    expect(moved()).toBe(true);
    bus.on('loop:completed', () => {});
    expect(moved()).toBe(true);
    bus.clear();
    expect(moved()).toBe(true);
    expect(bus.listenerCount('loop:completed')).toBe(0);
  });
});

describe('EventBus.publish with listeners that come and go', () => {
  const envelope = (type: string, n: number): AnyTroupeEvent => ({ type, version: 1, timestamp: n, source: 'test', payload: { n } }) as unknown as AnyTroupeEvent;

  it('delivers to exactly the listeners present at each publish, across more types than it remembers', () => {
    const bus = new EventBus();
    const types = ['loop:started', 'loop:phase-started', 'loop:phase-completed', 'loop:completed', 'loop:error', 'loop:stuck'];
    const got: string[] = [];
    const all: string[] = [];
    bus.on('*', (event) => void all.push(event.type));
    // Publish every type once with no typed listener (each remembered as having none).
    types.forEach((type, i) => bus.publish(envelope(type, i)));
    const offs = types.map((type) => bus.on(type as 'loop:started', (event) => void got.push(`${event.type}#${event.timestamp}`)));
    types.forEach((type, i) => bus.publish(envelope(type, 10 + i)));
    offs[1]?.();
    offs[4]?.();
    types.forEach((type, i) => bus.publish(envelope(type, 20 + i)));
    for (let round = 0; round < 3; round++) types.forEach((type, i) => bus.publish(envelope(type, 30 + 10 * round + i)));
    expect(got.filter((entry) => entry.startsWith('loop:phase-started'))).toEqual(['loop:phase-started#11']);
    expect(got.filter((entry) => entry.startsWith('loop:error'))).toEqual(['loop:error#14']);
    expect(got.filter((entry) => entry.startsWith('loop:completed'))).toEqual(['loop:completed#13', 'loop:completed#23', 'loop:completed#33', 'loop:completed#43', 'loop:completed#53']);
    expect(all).toHaveLength(6 * 6);
    bus.clear();
    bus.on('loop:stuck', (event) => void got.push(`after-clear#${event.timestamp}`));
    bus.publish(envelope('loop:stuck', 99));
    bus.publish(envelope('loop:completed', 98));
    expect(got.slice(-1)).toEqual(['after-clear#99']);
  });
});
