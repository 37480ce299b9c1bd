import { describe, expect, it } from 'vitest';
import { ConfigError, EventBus, MessageStore, messageSchema, type TroupeEvent } from '@troupe/core';

describe('MessageStore', () => {
  it('appends ordered messages and emits message:added in the seed schema', () => {
    const bus = new EventBus();
    const events: TroupeEvent<'message:added'>[] = [];
    bus.on('message:added', (event) => void events.push(event));
    const store = new MessageStore(bus, { now: () => 1000 });
    const first = store.append('looper', { role: 'system', content: '[AUTO] Iteration 1 started', speaker: 'looper' });
    const second = store.append('looper', { content: 'done' });
    expect(first).toEqual({ id: 'looper#1', channelId: 'looper', seq: 1, role: 'system', speaker: 'looper', content: '[AUTO] Iteration 1 started', timestamp: 1000 });
    expect(second).toMatchObject({ seq: 2, role: 'assistant' });
    expect(events.map((e) => e.payload)).toEqual([
      { channelId: 'looper', tabId: 'looper', message: first, timestamp: 1000 },
      { channelId: 'looper', tabId: 'looper', message: second, timestamp: 1000 },
    ]);
    expect(messageSchema.parse(events[0]?.payload.message)).toEqual(first);
  });

  it('works without an event bus (backward compatible)', () => {
    const store = new MessageStore();
    store.appendMessage('a', { content: 'x' });
    expect(store.list('a').map((m) => m.content)).toEqual(['x']);
  });

  it('reads by channel with after and limit', () => {
    const store = new MessageStore();
    for (let i = 1; i <= 10; i++) store.append(i % 2 ? 'odd' : 'even', { content: String(i) });
    expect(store.list('odd').map((m) => m.content)).toEqual(['1', '3', '5', '7', '9']);
    expect(store.list('odd', { after: 'odd#2' }).map((m) => m.content)).toEqual(['5', '7', '9']);
    expect(store.list('odd', { after: 3, limit: 1 }).map((m) => m.content)).toEqual(['7']);
    expect(store.list('odd', { limit: 2, last: true }).map((m) => m.content)).toEqual(['7', '9']);
    expect(store.list('missing')).toEqual([]);
    expect(store.last('even')?.content).toBe('10');
    expect(store.count('even')).toBe(5);
    expect(store.channelIds().sort()).toEqual(['even', 'odd']);
  });

  it('keeps only the newest messages under bounded retention, per channel', () => {
    const store = new MessageStore(undefined, { maxMessagesPerChannel: 3, retention: { audit: 5000 } });
    for (let i = 1; i <= 5000; i++) {
      store.append('chat', { content: String(i) });
      store.append('audit', { content: String(i) });
    }
    expect(store.list('chat').map((m) => m.seq)).toEqual([4998, 4999, 5000]);
    expect(store.count('audit')).toBe(5000);
    expect(store.list('chat', { after: 4998 }).map((m) => m.seq)).toEqual([4999, 5000]);
  });

  it('rejects a malformed message with a clear error and stores nothing', () => {
    const bus = new EventBus();
    let emitted = 0;
    bus.on('message:added', () => void emitted++);
    const store = new MessageStore(bus);
    expect(() => store.append('c', { content: 42 as unknown as string })).toThrow(ConfigError);
    expect(() => store.append('c', { content: 'x', role: 'robot' as 'user' })).toThrow(/role/);
    expect(() => store.append('', { content: 'x' })).toThrow(/channelId/);
    expect(store.count('c')).toBe(0);
    expect(emitted).toBe(0);
    expect(() => new MessageStore(undefined, { maxMessagesPerChannel: 0 })).toThrow(/maxMessagesPerChannel/);
    expect(() => store.list('c', { after: 'garbage' })).not.toThrow();
    store.append('c', { content: 'x' });
    expect(() => store.list('c', { after: 'garbage' })).toThrow(/not a message id/);
  });
});
