import { describe, expect, it } from 'vitest';
import { MemoryStore } from '@troupe/core';

describe('MemoryStore', () => {
  it('puts, gets, lists by namespace (optionally recursive) and deletes', async () => {
    let clock = 1;
    const store = new MemoryStore({ now: () => clock++ });
    await store.put(['loop', 'a'], 'k2', { n: 2 });
    await store.put(['loop', 'a'], 'k1', { n: 1 });
    await store.put(['loop', 'a', 'deep'], 'k3', [3]);
    await store.put(['other'], 'k', 'x');
    expect((await store.get(['loop', 'a'], 'k1'))?.value).toEqual({ n: 1 });
    expect((await store.list(['loop', 'a'])).map((i) => i.key)).toEqual(['k1', 'k2']);
    expect((await store.list(['loop', 'a'], { recursive: true })).map((i) => i.key)).toEqual(['k1', 'k2', 'k3']);
    expect((await store.list(['loop', 'a'], { after: 'k1' })).map((i) => i.key)).toEqual(['k2']);
    expect((await store.list(['loop', 'a'], { limit: 1 })).map((i) => i.key)).toEqual(['k1']);
    expect(await store.list(['loop', 'a'], { limit: 0 })).toEqual([]);
    await store.put(['loop', 'a'], 'k1', { n: 10 });
    const updated = await store.get(['loop', 'a'], 'k1');
    expect(updated).toMatchObject({ value: { n: 10 }, createdAt: 2 });
    expect(updated?.updatedAt).toBeGreaterThan(updated?.createdAt as number);
    expect(await store.delete(['loop', 'a'], 'k1')).toBe(true);
    expect(await store.delete(['loop', 'a'], 'k1')).toBe(false);
    expect(await store.get(['loop', 'a'], 'k1')).toBeUndefined();
  });

  it('copies values in and out', async () => {
    const store = new MemoryStore();
    const value = { list: [1] };
    await store.put(['ns'], 'k', value);
    value.list.push(2);
    const read = await store.get<{ list: number[] }>(['ns'], 'k');
    read?.value.list.push(3);
    expect((await store.get(['ns'], 'k'))?.value).toEqual({ list: [1] });
  });

  it('transactions apply all writes or none', async () => {
    const store = new MemoryStore();
    await store.put(['s'], 'a', 1);
    await expect(
      store.transaction(async (tx) => {
        await tx.put(['s'], 'a', 2);
        await tx.put(['s'], 'b', 2);
        throw new Error('crash mid-step');
      }),
    ).rejects.toThrow('crash mid-step');
    expect((await store.list(['s'])).map((i) => [i.key, i.value])).toEqual([['a', 1]]);
    await store.transaction(async (tx) => {
      await tx.put(['s'], 'a', 3);
      await tx.delete(['s'], 'missing');
    });
    expect((await store.get(['s'], 'a'))?.value).toBe(3);
  });

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

  it('a failed nested transaction rolls back only its own writes', async () => {
    const store = new MemoryStore();
    await store.transaction(async (tx) => {
      await tx.put(['n'], 'outer', 1);
      await expect(
        tx.transaction(async (inner) => {
          await inner.put(['n'], 'inner', 2);
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await tx.transaction(async (inner) => {
        expect((await inner.get(['n'], 'outer'))?.value).toBe(1);
        await inner.put(['n'], 'inner-ok', 3);
      });
    });
    expect((await store.list(['n'])).map((i) => i.key)).toEqual(['inner-ok', 'outer']);
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

  it('rejects bad namespaces, keys and values clearly', async () => {
    const store = new MemoryStore();
    await expect(store.put([], 'k', 1)).rejects.toThrow(/namespace/);
    await expect(store.put(['a', ''], 'k', 1)).rejects.toThrow(/segment/);
    await expect(store.put(['a'], '', 1)).rejects.toThrow(/key/);
    await expect(store.put(['a'], 'k', undefined)).rejects.toThrow(/delete/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.put(['a'], 'k', cyclic)).rejects.toThrow(/JSON-serializable/);
    await expect(store.get(['a'], 'k', { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
