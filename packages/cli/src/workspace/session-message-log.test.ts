import { EventBus, MemoryStore, type Message } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { isHeldBack, SessionMessageLog, type LooperPosition } from './session-message-log';

const namespace = (channelId?: string) => ['sessions', 's1', 'messages', ...(channelId ? [channelId] : [])];
const running = (revision: number, iteration: number, step: LooperPosition['step']): LooperPosition => ({ revision, state: 'RUNNING', runId: 'run-1', iteration, step });

async function saved(store: MemoryStore, channelId: string): Promise<string[]> {
  return (await store.list<Message>(namespace(channelId))).map((item) => `${item.key} ${item.value.content}`);
}

describe('SessionMessageLog', () => {
  it('restores a session’s messages (order, content, timestamps) and continues after them', async () => {
    const store = new MemoryStore();
    const first = await SessionMessageLog.open(store, namespace, new EventBus());
    first.messages.append('looper', { role: 'user', speaker: 'user', content: 'start', metadata: { origin: 'local' } });
    first.messages.append('devhub', { role: 'assistant', speaker: 'devhub', content: 'hello' });
    first.messages.append('looper', { role: 'system', speaker: 'looper', content: '[AUTO] Loop started' });
    await first.flush();
    const timestamps = first.messages.list('looper').map((m) => m.timestamp);
    first.close();

    const bus = new EventBus();
    const seen: string[] = [];
    const second = await SessionMessageLog.open(store, namespace, bus);
    bus.on('message:added', (event) => {
      seen.push(event.payload.message.content);
    });
    expect(second.messages.list('looper').map((m) => [m.seq, m.role, m.speaker, m.content, m.timestamp])).toEqual([
      [1, 'user', 'user', 'start', timestamps[0]],
      [2, 'system', 'looper', '[AUTO] Loop started', timestamps[1]],
    ]);
    expect(second.messages.list('looper')[0]?.metadata).toEqual({ origin: 'local' });
    expect(seen).toEqual([]); // restoring is silent for listeners added afterwards
    second.messages.append('looper', { role: 'user', content: 'status' });
    await second.flush();
    expect(await saved(store, 'looper')).toEqual(['0000000001 start', '0000000002 [AUTO] Loop started', '0000000003 status']);
    expect(await saved(store, 'devhub')).toEqual(['0000000001 hello']);
  });

  it('never writes a message ahead of the Looper state it was posted in', async () => {
    const store = new MemoryStore();
    const log = await SessionMessageLog.open(store, namespace, new EventBus());
    let revision = 0;
    log.trackLooper(() => revision);
    revision = 1;
    log.messages.append('looper', { content: 'Task queued (pending: 1)' }); // posted at revision 1, not on disk yet
    await log.flush();
    expect(await saved(store, 'looper')).toEqual([]);
    expect(log.pendingCount).toBe(1);
    log.markCommitted({ ...running(1, 1, 'coder'), state: 'IDLE', runId: null, step: null });
    await log.flush();
    expect(await saved(store, 'looper')).toEqual(['0000000001 Task queued (pending: 1)']);
    expect(log.pendingCount).toBe(0);
  });

  it('holds back step announcements until the checkpoint has moved past the step', async () => {
    const store = new MemoryStore();
    const log = await SessionMessageLog.open(store, namespace, new EventBus());
    let revision = 5;
    log.trackLooper(() => revision);
    log.markCommitted(running(5, 2, 'coder'));
    log.messages.append('looper', { role: 'system', content: '[AUTO] Iteration 2/5 started', metadata: { auto: true, kind: 'iteration-started', runId: 'run-1', iteration: 2 } });
    await log.flush();
    expect(await saved(store, 'looper')).toEqual([]); // a crash now: the resumed Coder step posts it again, once
    revision = 6;
    log.messages.append('looper', { role: 'system', content: '[AUTO] Coder done', metadata: { auto: true, kind: 'coder', runId: 'run-1', iteration: 2 } });
    // The checkpoint of the Coder result writes both, in order.
    const batch = log.takeBatch(running(6, 2, 'review'));
    await store.transaction((tx) => log.writeBatch(batch, tx));
    log.commitBatch(batch);
    expect(await saved(store, 'looper')).toEqual(['0000000001 [AUTO] Iteration 2/5 started', '0000000002 [AUTO] Coder done']);
  });

  it('overlapping batches write each message once, under one key', async () => {
    const store = new MemoryStore();
    const log = await SessionMessageLog.open(store, namespace, new EventBus());
    log.messages.append('looper', { content: 'a' });
    const first = log.takeBatch();
    log.messages.append('looper', { content: 'b' });
    const second = log.takeBatch();
    await log.writeBatch(second);
    log.commitBatch(second);
    await log.writeBatch(first);
    log.commitBatch(first);
    expect(await saved(store, 'looper')).toEqual(['0000000001 a', '0000000002 b']);
    expect(log.pendingCount).toBe(0);
  });

  it('isHeldBack only applies to the announcement of the step in progress', () => {
    const message = (kind: string, iteration = 2) => ({ id: 'x', channelId: 'looper', seq: 1, role: 'system' as const, content: '', timestamp: 0, metadata: { auto: true, kind, runId: 'run-1', iteration } });
    expect(isHeldBack(message('iteration-started'), running(3, 2, 'coder'))).toBe(true);
    expect(isHeldBack(message('iteration-started'), running(4, 2, 'review'))).toBe(false);
    expect(isHeldBack(message('iteration-started', 1), running(3, 2, 'coder'))).toBe(false);
    expect(isHeldBack(message('decision'), running(3, 2, 'judge'))).toBe(true);
    expect(isHeldBack(message('judge-fallback'), running(3, 2, 'judge'))).toBe(true);
    expect(isHeldBack(message('coder'), running(3, 2, 'review'))).toBe(false);
    expect(isHeldBack(message('iteration-started'), undefined)).toBe(false);
  });
});
