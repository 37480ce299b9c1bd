import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventBus, registerEventSchema, type AnyTroupeEvent, type TroupeEventType } from '@troupe/core';

const message = { id: 'm#1', channelId: 'looper', seq: 1, role: 'system' as const, content: 'hi', timestamp: 1 };
const added = (channelId: string) => ({ channelId, tabId: channelId, message: { ...message, channelId }, timestamp: 1 });

describe('EventBus subscriptions', () => {
  it('delivers in subscription order across channel-indexed and unfiltered listeners, type before "*"', () => {
    const bus = new EventBus();
    const order: string[] = [];
    bus.on('*', () => void order.push('star'));
    bus.on('message:added', () => void order.push('a'));
    bus.on('message:added', () => void order.push('b:looper'), { channelId: 'looper' });
    bus.on('message:added', () => void order.push('c:devhub'), { channelId: 'devhub' });
    bus.on('message:added', () => void order.push('d'));
    bus.on('message:added', () => void order.push('e:looper'), { channelId: 'looper' });
    bus.on('*', () => void order.push('star:looper'), { channelId: 'looper' });
    bus.emit('message:added', added('looper'));
    expect(order).toEqual(['a', 'b:looper', 'd', 'e:looper', 'star', 'star:looper']);
    order.length = 0;
    bus.emit('message:added', added('devhub'));
    expect(order).toEqual(['a', 'c:devhub', 'd', 'star']);
    order.length = 0;
    bus.emit('agent:stopped', { roleId: 'x' });
    expect(order).toEqual(['star']);
  });

  it('finds the one matching channel among 10,000 and unsubscribes all of them', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    const offs = Array.from({ length: 10_000 }, (_, i) => bus.on('message:added', (event) => void heard.push(event.payload.channelId), { channelId: `c${i}` }));
    expect(bus.listenerCount('message:added')).toBe(10_000);
    bus.emit('message:added', added('c4321'));
    bus.emit('message:added', added('nobody'));
    expect(heard).toEqual(['c4321']);
    // Unsubscribe in an order that is neither first-in nor last-in.
    for (let i = 0; i < offs.length; i += 2) offs[i]?.();
    for (let i = offs.length - 1; i > 0; i -= 2) offs[i]?.();
    expect(bus.listenerCount('message:added')).toBe(0);
    bus.emit('message:added', added('c4321'));
    expect(heard).toEqual(['c4321']);
  });

  it('a listener unsubscribed during an emit is not called by it; one subscribed during an emit waits for the next', () => {
    const bus = new EventBus();
    const calls: string[] = [];
    let offLater: () => void = () => {};
    let offChannel: () => void = () => {};
    bus.on('message:added', (event) => {
      calls.push(`first ${event.payload.message.content}`);
      offLater();
      offChannel();
      bus.on('message:added', () => void calls.push('added during emit'));
    });
    offChannel = bus.on('message:added', () => void calls.push('channel'), { channelId: 'looper' });
    offLater = bus.on('message:added', () => void calls.push('later'));
    bus.on('message:added', () => void calls.push('last'));
    bus.emit('message:added', added('looper'));
    expect(calls).toEqual(['first hi', 'last']);
    calls.length = 0;
    bus.emit('message:added', added('looper'));
    expect(calls).toEqual(['first hi', 'last', 'added during emit']);
  });

  it('a "*" listener subscribed by a type listener waits for the next event, whether it came through emit or publish', () => {
    for (const send of ['emit', 'publish'] as const) {
      const bus = new EventBus();
      const calls: string[] = [];
      let subscribed = false;
      bus.on('agent:stopped', () => {
        calls.push('type');
        if (subscribed) return;
        subscribed = true;
        bus.on('*', (event) => void calls.push(`star ${event.type}`));
      });
      const fire = () => {
        if (send === 'emit') bus.emit('agent:stopped', { roleId: 'coder' });
        else bus.publish({ type: 'agent:stopped', version: 1, timestamp: 1, source: 'elsewhere', payload: { roleId: 'coder' } });
      };
      fire();
      expect(calls, send).toEqual(['type']);
      fire();
      expect(calls, send).toEqual(['type', 'type', 'star agent:stopped']);
    }
  });

  it('a listener may unsubscribe itself, and a once listener runs once even when it emits again', () => {
    const bus = new EventBus();
    const calls: string[] = [];
    const off = bus.on('agent:stopped', (event) => {
      calls.push(`self ${event.payload.roleId}`);
      off();
    });
    bus.once('agent:stopped', (event) => {
      calls.push(`once ${event.payload.roleId}`);
      bus.emit('agent:stopped', { roleId: 'nested' });
    });
    bus.on('agent:stopped', (event) => void calls.push(`stay ${event.payload.roleId}`));
    bus.emit('agent:stopped', { roleId: 'a' });
    bus.emit('agent:stopped', { roleId: 'b' });
    expect(calls).toEqual(['self a', 'once a', 'stay nested', 'stay a', 'stay b']);
    expect(bus.listenerCount('agent:stopped')).toBe(1);
  });

  it('a throwing listener or filter breaks neither the channel index nor the listeners after it', () => {
    const bus = new EventBus();
    const reached: string[] = [];
    const reported: string[] = [];
    bus.on('bus:listener-error', (event) => void reported.push(event.payload.error.message));
    bus.on(
      'message:added',
      () => {
        throw new Error('channel listener broke');
      },
      { channelId: 'looper' },
    );
    bus.on('message:added', () => void reached.push('filtered'), {
      filter: () => {
        throw new Error('filter broke');
      },
    });
    bus.on('message:added', () => void reached.push('after'), { channelId: 'looper' });
    bus.emit('message:added', added('looper'));
    bus.emit('message:added', added('looper'));
    expect(reached).toEqual(['after', 'after']);
    expect(reported).toEqual(['channel listener broke', 'filter broke', 'channel listener broke', 'filter broke']);
  });

  it('clear() during an emit stops the listeners still to come', () => {
    const bus = new EventBus();
    const calls: string[] = [];
    bus.on('agent:stopped', () => {
      calls.push('first');
      bus.clear();
    });
    bus.on('agent:stopped', () => void calls.push('second'));
    bus.on('*', () => void calls.push('star'));
    bus.emit('agent:stopped', { roleId: 'a' });
    expect(calls).toEqual(['first']);
    expect(bus.listenerCount('agent:stopped')).toBe(0);
  });

  it('an aborted signal unsubscribes, whatever the subscription order', () => {
    const bus = new EventBus();
    const controller = new AbortController();
    const calls: string[] = [];
    bus.on('agent:stopped', () => void calls.push('one'));
    bus.on('agent:stopped', () => void calls.push('aborted'), { signal: controller.signal, channelId: undefined });
    bus.on('agent:stopped', () => void calls.push('three'));
    controller.abort();
    bus.emit('agent:stopped', { roleId: 'a' });
    expect(calls).toEqual(['one', 'three']);
    expect(bus.listenerCount('agent:stopped')).toBe(2);
  });
});

describe('EventBus envelopes', () => {
  it('listeners and the caller see a plain envelope with the five fields', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const bus = new EventBus({ source: 'test' });
    let seen: AnyTroupeEvent | undefined;
    bus.on('agent:stopped', (event) => {
      seen = event;
    });
    const before = Date.now();
    const emitted = bus.emit('agent:stopped', { roleId: 'coder' });
    const after = Date.now();
    expect(seen).toBe(emitted);
    expect(emitted).toEqual({ type: 'agent:stopped', version: 1, timestamp: expect.any(Number), source: 'test', payload: { roleId: 'coder' } });
    expect(Object.keys(emitted).sort()).toEqual(['payload', 'source', 'timestamp', 'type', 'version']);
    expect({ ...emitted }).toEqual(emitted);
    expect(JSON.parse(JSON.stringify(emitted))).toEqual(emitted);
    expect(emitted.timestamp).toBeGreaterThanOrEqual(before);
    expect(emitted.timestamp).toBeLessThanOrEqual(after);
  });

  it('timestamps never run backwards and never lie in the future, however many events a run emits', () => {
    const bus = new EventBus();
    const stamps: number[] = [];
    bus.on('agent:stopped', (event) => void stamps.push(event.timestamp));
    const start = Date.now();
    for (let i = 0; i < 1000; i++) {
      bus.emit('agent:stopped', { roleId: `r${i}` });
      expect(stamps[i]).toBeLessThanOrEqual(Date.now());
    }
    expect(stamps[0]).toBeGreaterThanOrEqual(start - 1);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1] as number);
  });

  it('stamps the schema version registered at emit time, also after the type already had listeners', () => {
    const bus = new EventBus();
    const type = 'h16-test:versioned' as TroupeEventType;
    const versions: number[] = [];
    bus.on(type, (event) => void versions.push(event.version));
    bus.emit(type, {} as never);
    const unregister = registerEventSchema(type, z.object({}), 3);
    bus.emit(type, {} as never);
    unregister();
    bus.emit(type, {} as never);
    expect(versions).toEqual([1, 3, 1]);
  });
});
