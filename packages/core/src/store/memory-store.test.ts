import { describe, expect, it } from 'vitest';
import { MemoryStore } from '@troupe/core';
import { storeConformanceCases, withConformanceStore } from '@troupe/core/testing';

describe('MemoryStore (Store conformance)', () => {
  const withStore = withConformanceStore(({ now }) => new MemoryStore({ now }));
  for (const c of storeConformanceCases()) it(c.name, withStore(c));
});

describe('MemoryStore', () => {
  it('a write made outside a running transaction is not lost when it commits', async () => {
    const store = new MemoryStore();
    let inside!: () => void;
    const paused = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    const tx = store.transaction(async (draft) => {
      await draft.put(['s'], 'checkpoint', 1);
      inside();
      await gate;
      // The transaction sees its own writes and the base store, merged.
      expect((await draft.list(['s'])).map((i) => i.key)).toEqual(['checkpoint', 'message', 'other']);
      await draft.delete(['s'], 'message');
    });
    await paused;
    await store.put(['s'], 'message', 'written meanwhile');
    await store.put(['s'], 'other', 'kept');
    expect(await store.get(['s'], 'checkpoint')).toBeUndefined(); // not visible before commit
    proceed();
    await tx;
    expect((await store.list(['s'])).map((i) => [i.key, i.value])).toEqual([
      ['checkpoint', 1],
      ['other', 'kept'],
    ]);
  });

  it('runs transactions one at a time', async () => {
    const store = new MemoryStore();
    const order: string[] = [];
    const slow = store.transaction(async (tx) => {
      order.push('a:start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await tx.put(['n'], 'a', 1);
      order.push('a:end');
    });
    const fast = store.transaction(async (tx) => {
      order.push('b:start');
      expect((await tx.get(['n'], 'a'))?.value).toBe(1);
      order.push('b:end');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });
});
