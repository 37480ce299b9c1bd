import { MemoryStore, type Store } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { createLooperSnapshot, createLooperStateStore, type LooperHistoryEntry } from '../index';

const entry = (revision: number): LooperHistoryEntry => ({ kind: 'pending-added', revision, runId: null, iteration: 0, at: revision, data: { task: `t${revision}` } });

describe('createLooperStateStore', () => {
  it('saves the snapshot and its history entries in one transaction, keeping the newest historyLimit entries', async () => {
    const store = new MemoryStore();
    const states = createLooperStateStore(store, { historyLimit: 3, namespace: ['apps', 'demo'] });
    const snapshot = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 });
    await states.save({ ...snapshot, revision: 2 }, [entry(1), entry(2)]);
    await states.save({ ...snapshot, revision: 5 }, [entry(3), entry(4), entry(5)]);
    expect((await states.history('looper')).map((e) => e.revision)).toEqual([3, 4, 5]);
    expect((await states.load('looper'))?.revision).toBe(5);
    expect(await store.get(['apps', 'demo', 'looper'], 'state')).toBeDefined();
    expect(await states.load('other')).toBeUndefined();
  });

  it('writes nothing when the transaction fails', async () => {
    const inner = new MemoryStore();
    const failing: Store = {
      get: (...args) => inner.get(...args),
      put: (...args) => inner.put(...args),
      delete: (...args) => inner.delete(...args),
      list: (...args) => inner.list(...args),
      transaction: (work, options) =>
        inner.transaction(async (tx) => {
          await work(tx);
          throw new Error('disk full');
        }, options),
    };
    const states = createLooperStateStore(failing);
    await expect(states.save(createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 }), [entry(1)])).rejects.toThrow('disk full');
    expect(await states.load('looper')).toBeUndefined();
    expect(await states.history('looper')).toEqual([]);
    expect(() => createLooperStateStore(inner, { historyLimit: -1 })).toThrow(/historyLimit/);
  });
});
