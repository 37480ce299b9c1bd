import type { Store } from '@troupe/core';
import { describe, expect, it } from 'vitest';

/** Behaviours a store may deviate on, with a known issue filed. */
export type StoreDeviation = 'limit-zero';

/** Options of {@link describeStoreConformance}. */
export interface StoreConformanceOptions {
  /** A fresh, empty store; `now` is its clock when the store takes one. */
  create(options: { now?: () => number }): Promise<Store> | Store;
  /** Called after each test (close files…). */
  dispose?(store: Store): Promise<void> | void;
  /** Tests expected to fail for this store (`it.fails`), each a known issue. */
  knownDeviations?: readonly StoreDeviation[];
}

/**
 * The behaviour every core `Store` must have, as a vitest suite: the cases of
 * core's `memory-store.test.ts` plus ordering, pagination, nesting and
 * isolation cases. Run it for each implementation:
 *
 * @example
 * ```ts
 * describeStoreConformance('SqliteStore', { create: ({ now }) => openSqliteStore(':memory:', { now }) });
 * ```
 */
export function describeStoreConformance(name: string, options: StoreConformanceOptions): void {
  const deviates = (deviation: StoreDeviation) => options.knownDeviations?.includes(deviation) ?? false;
  const withStore = (test: (store: Store, clock: { tick(): number }) => Promise<void>) => async () => {
    let time = 1;
    const clock = { tick: () => time++ };
    const store = await options.create({ now: clock.tick });
    try {
      await test(store, clock);
    } finally {
      await options.dispose?.(store);
    }
  };

  describe(`${name} (Store conformance)`, () => {
    it(
      'puts, gets, lists by namespace (optionally recursive) and deletes',
      withStore(async (store) => {
        await store.put(['loop', 'a'], 'k2', { n: 2 });
        await store.put(['loop', 'a'], 'k1', { n: 1 });
        await store.put(['loop', 'a', 'deep'], 'k3', [3]);
        await store.put(['other'], 'k', 'x');
        expect((await store.get(['loop', 'a'], 'k1'))?.value).toEqual({ n: 1 });
        expect((await store.list(['loop', 'a'])).map((i) => i.key)).toEqual(['k1', 'k2']);
        expect((await store.list(['loop', 'a'], { recursive: true })).map((i) => i.key)).toEqual(['k1', 'k2', 'k3']);
        expect((await store.list(['loop', 'a'], { after: 'k1' })).map((i) => i.key)).toEqual(['k2']);
        expect((await store.list(['loop', 'a'], { limit: 1 })).map((i) => i.key)).toEqual(['k1']);
        await store.put(['loop', 'a'], 'k1', { n: 10 });
        const updated = await store.get(['loop', 'a'], 'k1');
        expect(updated).toMatchObject({ namespace: ['loop', 'a'], key: 'k1', value: { n: 10 }, createdAt: 2 });
        expect(updated?.updatedAt).toBeGreaterThan(updated?.createdAt as number);
        expect(await store.delete(['loop', 'a'], 'k1')).toBe(true);
        expect(await store.delete(['loop', 'a'], 'k1')).toBe(false);
        expect(await store.get(['loop', 'a'], 'k1')).toBeUndefined();
      }),
    );

    it(
      'sorts recursive listings by namespace (parent first) then key, and keeps sibling namespaces out',
      withStore(async (store) => {
        await store.put(['a', 'b', 'c'], 'z', 1);
        await store.put(['a', 'b'], 'y', 2);
        await store.put(['a', 'a'], 'x', 3);
        await store.put(['a'], 'w', 4);
        await store.put(['ab'], 'v', 5);
        await store.put(['a', 'b '], 'u', 6);
        const listed = await store.list(['a'], { recursive: true });
        expect(listed.map((i) => [i.namespace.join('/'), i.key])).toEqual([
          ['a', 'w'],
          ['a/a', 'x'],
          ['a/b', 'y'],
          ['a/b/c', 'z'],
          ['a/b ', 'u'],
        ]);
        expect((await store.list(['a', 'b'], { recursive: true })).map((i) => i.key)).toEqual(['y', 'z']);
        expect(await store.list(['missing'], { recursive: true })).toEqual([]);
      }),
    );

    it(
      'pages through a namespace with after + limit; after only applies to the namespace itself',
      withStore(async (store) => {
        for (const key of ['0003', '0001', '0002', '0005', '0004']) await store.put(['log'], key, Number(key));
        await store.put(['log', 'child'], '0000', 0);
        const pages: string[][] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.list(['log'], { limit: 2, ...(after !== undefined ? { after } : {}) });
          if (page.length === 0) break;
          pages.push(page.map((i) => i.key));
          after = page[page.length - 1]?.key;
        }
        expect(pages).toEqual([['0001', '0002'], ['0003', '0004'], ['0005']]);
        expect((await store.list(['log'], { recursive: true, after: '0004' })).map((i) => i.key)).toEqual(['0005', '0000']);
      }),
    );

    (deviates('limit-zero') ? it.fails : it)(
      'returns nothing for limit 0',
      withStore(async (store) => {
        await store.put(['ns'], 'a', 1);
        expect(await store.list(['ns'], { limit: 0 })).toEqual([]);
      }),
    );

    it(
      'copies values in and out, and round-trips JSON values',
      withStore(async (store) => {
        const value = { list: [1] };
        await store.put(['ns'], 'k', value);
        value.list.push(2);
        const read = await store.get<{ list: number[] }>(['ns'], 'k');
        read?.value.list.push(3);
        expect((await store.get(['ns'], 'k'))?.value).toEqual({ list: [1] });
        const values: unknown[] = [null, 0, -1.5, '', 'héllo 世界 🎉', true, [], {}, { nested: { a: [1, { b: null }] } }];
        for (const [index, v] of values.entries()) await store.put(['values'], `k${index}`, v);
        expect((await store.list(['values'])).map((i) => i.value)).toEqual(values);
        await store.put(['values'], 'date', { at: new Date(0) });
        expect((await store.get(['values'], 'date'))?.value).toEqual({ at: '1970-01-01T00:00:00.000Z' });
      }),
    );

    it(
      'keeps namespaces and keys apart exactly (no separator collisions, unicode segments)',
      withStore(async (store) => {
        await store.put(['a', 'b'], 'k', 'two segments');
        await store.put(['a/b'], 'k', 'slash');
        await store.put(['a b'], 'k', 'space');
        await store.put(['ä', '日本'], 'ключ', 'unicode');
        expect((await store.get(['a', 'b'], 'k'))?.value).toBe('two segments');
        expect((await store.get(['a/b'], 'k'))?.value).toBe('slash');
        expect((await store.get(['a b'], 'k'))?.value).toBe('space');
        expect(await store.get(['ä', '日本'], 'ключ')).toMatchObject({ namespace: ['ä', '日本'], key: 'ключ', value: 'unicode' });
      }),
    );

    it(
      'transactions apply all writes or none',
      withStore(async (store) => {
        await store.put(['s'], 'a', 1);
        await store.put(['s'], 'c', 1);
        await expect(
          store.transaction(async (tx) => {
            await tx.put(['s'], 'a', 2);
            await tx.put(['s'], 'b', 2);
            await tx.delete(['s'], 'c');
            throw new Error('crash mid-step');
          }),
        ).rejects.toThrow('crash mid-step');
        expect((await store.list(['s'])).map((i) => [i.key, i.value])).toEqual([
          ['a', 1],
          ['c', 1],
        ]);
        const result = await store.transaction(async (tx) => {
          await tx.put(['s'], 'a', 3);
          await tx.delete(['s'], 'missing');
          return 'done';
        });
        expect(result).toBe('done');
        expect((await store.get(['s'], 'a'))?.value).toBe(3);
      }),
    );

    it(
      'reads inside a transaction see its own writes',
      withStore(async (store) => {
        await store.transaction(async (tx) => {
          await tx.put(['t'], 'k', 'inside');
          expect((await tx.get(['t'], 'k'))?.value).toBe('inside');
          expect((await tx.list(['t'])).map((i) => i.key)).toEqual(['k']);
          expect(await tx.delete(['t'], 'k')).toBe(true);
          expect(await tx.get(['t'], 'k')).toBeUndefined();
          await tx.put(['t'], 'k', 'kept');
        });
        expect((await store.get(['t'], 'k'))?.value).toBe('kept');
      }),
    );

    it(
      'a nested transaction that fails rolls back only its own writes',
      withStore(async (store) => {
        await store.transaction(async (tx) => {
          await tx.put(['n'], 'outer', 1);
          await expect(
            tx.transaction(async (inner) => {
              await inner.put(['n'], 'inner', 2);
              throw new Error('inner failed');
            }),
          ).rejects.toThrow('inner failed');
          await tx.transaction(async (inner) => inner.put(['n'], 'inner-ok', 3));
        });
        expect((await store.list(['n'])).map((i) => i.key)).toEqual(['inner-ok', 'outer']);
      }),
    );

    it(
      'rejects bad namespaces, keys, values and options clearly',
      withStore(async (store) => {
        await expect(store.put([], 'k', 1)).rejects.toThrow(/namespace/);
        await expect(store.put(['a', ''], 'k', 1)).rejects.toThrow(/segment/);
        await expect(store.put(['a\u0000b'], 'k', 1)).rejects.toThrow(/NUL/);
        await expect(store.put(['a'], '', 1)).rejects.toThrow(/key/);
        await expect(store.put(['a'], 'k', undefined)).rejects.toThrow(/delete/);
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await expect(store.put(['a'], 'k', cyclic)).rejects.toThrow(/JSON-serializable/);
        await expect(store.put(['a'], 'k', 10n)).rejects.toThrow(/JSON-serializable/);
        await expect(store.list(['a'], { limit: -1 })).rejects.toThrow(/limit/);
        await expect(store.list(['a'], { limit: 1.5 })).rejects.toThrow(/limit/);
        expect(await store.list(['a'])).toEqual([]);
      }),
    );

    it(
      'honours an aborted signal on every call',
      withStore(async (store) => {
        const signal = AbortSignal.abort();
        await expect(store.get(['a'], 'k', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
        await expect(store.put(['a'], 'k', 1, { signal })).rejects.toMatchObject({ code: 'ABORTED' });
        await expect(store.delete(['a'], 'k', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
        await expect(store.list(['a'], { signal })).rejects.toMatchObject({ code: 'ABORTED' });
        let ran = false;
        await expect(
          store.transaction(async () => {
            ran = true;
          }, { signal }),
        ).rejects.toMatchObject({ code: 'ABORTED' });
        expect(ran).toBe(false);
        expect(await store.get(['a'], 'k')).toBeUndefined();
      }),
    );
  });
}
