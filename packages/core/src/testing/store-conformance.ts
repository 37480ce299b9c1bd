import assert from 'node:assert/strict';
import type { Store, StoreItem } from '@troupe/core';

/**
 * One behaviour every core `Store` must have. `run` throws (a `node:assert`
 * error) when the store does not have it; it needs no test framework.
 *
 * @example
 * ```ts
 * import { storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
 * const withStore = withConformanceStore(({ now }) => new MyStore({ now }));
 * for (const c of storeConformanceCases()) it(c.name, withStore(c));
 * ```
 */
export interface StoreConformanceCase {
  /** What the store must do, phrased as a test name. */
  name: string;
  /** Runs the case on a fresh, empty store whose clock (`now`) is `clock.tick`. */
  run(store: Store, clock: { tick(): number }): Promise<void>;
}

/** Builds a fresh, empty store for one case; `now` must be its clock for `createdAt`/`updatedAt`. */
export type CreateConformanceStore = (options: { now: () => number }) => Promise<Store> | Store;

/**
 * Wraps each case as a test body: it creates a fresh store whose clock
 * returns 1, 2, 3… on successive calls, runs the case, and disposes of the
 * store (close files…) even when the case fails.
 *
 * @example
 * ```ts
 * import { storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
 * describe('SqliteStore (Store conformance)', () => {
 *   const withStore = withConformanceStore(({ now }) => openSqliteStore(':memory:', { now }), (store) => (store as SqliteStore).close());
 *   for (const c of storeConformanceCases()) it(c.name, withStore(c));
 * });
 * ```
 */
export function withConformanceStore(
  create: CreateConformanceStore,
  dispose?: (store: Store) => Promise<void> | void,
): (c: StoreConformanceCase) => () => Promise<void> {
  return (c) => async () => {
    let time = 1;
    const clock = { tick: () => time++ };
    const store = await create({ now: clock.tick });
    try {
      await c.run(store, clock);
    } finally {
      await dispose?.(store);
    }
  };
}

/** Asserts that `item` exists and each field of `expected` deep-equals the item's (vitest's `toMatchObject`, one level deep). */
function assertItem(item: StoreItem | undefined, expected: Partial<StoreItem>): asserts item is StoreItem {
  assert.ok(item, 'expected an item, got undefined');
  const actual = Object.fromEntries(Object.keys(expected).map((field) => [field, item[field as keyof StoreItem]]));
  assert.deepEqual(actual, expected);
}

const aborted = { code: 'ABORTED' };

/**
 * The behaviour every core `Store` must have — put/get/list/delete, ordering,
 * paging, the `after` cursor (only what is new), value copying and JSON round-trips, namespace isolation, atomic and
 * nested transactions, argument validation and abort signals — as
 * framework-agnostic cases. Core runs them against `MemoryStore`;
 * `@troupe/store-sqlite` against `SqliteStore`. Pair them with
 * {@link withConformanceStore}.
 *
 * @example
 * ```ts
 * import { storeConformanceCases, withConformanceStore } from '@troupe/core/testing';
 * const withStore = withConformanceStore(({ now }) => new MemoryStore({ now }));
 * describe('MemoryStore (Store conformance)', () => {
 *   for (const c of storeConformanceCases()) it(c.name, withStore(c));
 * });
 * ```
 */
export function storeConformanceCases(): StoreConformanceCase[] {
  return [
    {
      name: 'puts, gets, lists by namespace (optionally recursive) and deletes',
      async run(store) {
        await store.put(['loop', 'a'], 'k2', { n: 2 });
        await store.put(['loop', 'a'], 'k1', { n: 1 });
        await store.put(['loop', 'a', 'deep'], 'k3', [3]);
        await store.put(['other'], 'k', 'x');
        assert.deepEqual((await store.get(['loop', 'a'], 'k1'))?.value, { n: 1 });
        assert.deepEqual((await store.list(['loop', 'a'])).map((i) => i.key), ['k1', 'k2']);
        assert.deepEqual((await store.list(['loop', 'a'], { recursive: true })).map((i) => i.key), ['k1', 'k2', 'k3']);
        assert.deepEqual((await store.list(['loop', 'a'], { after: 'k1' })).map((i) => i.key), ['k2']);
        assert.deepEqual((await store.list(['loop', 'a'], { limit: 1 })).map((i) => i.key), ['k1']);
        await store.put(['loop', 'a'], 'k1', { n: 10 });
        const updated = await store.get(['loop', 'a'], 'k1');
        assertItem(updated, { namespace: ['loop', 'a'], key: 'k1', value: { n: 10 }, createdAt: 2 });
        assert.ok(updated.updatedAt > updated.createdAt, `updatedAt ${updated.updatedAt} is not after createdAt ${updated.createdAt}`);
        assert.equal(await store.delete(['loop', 'a'], 'k1'), true);
        assert.equal(await store.delete(['loop', 'a'], 'k1'), false);
        assert.equal(await store.get(['loop', 'a'], 'k1'), undefined);
      },
    },
    {
      name: 'sorts recursive listings by namespace (parent first) then key, and keeps sibling namespaces out',
      async run(store) {
        await store.put(['a', 'b', 'c'], 'z', 1);
        await store.put(['a', 'b'], 'y', 2);
        await store.put(['a', 'a'], 'x', 3);
        await store.put(['a'], 'w', 4);
        await store.put(['ab'], 'v', 5);
        await store.put(['a', 'b '], 'u', 6);
        const listed = await store.list(['a'], { recursive: true });
        assert.deepEqual(
          listed.map((i) => [i.namespace.join('/'), i.key]),
          [
            ['a', 'w'],
            ['a/a', 'x'],
            ['a/b', 'y'],
            ['a/b/c', 'z'],
            ['a/b ', 'u'],
          ],
        );
        assert.deepEqual((await store.list(['a', 'b'], { recursive: true })).map((i) => i.key), ['y', 'z']);
        assert.deepEqual(await store.list(['missing'], { recursive: true }), []);
      },
    },
    {
      name: 'pages through a namespace with after + limit; after only applies to the namespace itself',
      async run(store) {
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
        assert.deepEqual(pages, [['0001', '0002'], ['0003', '0004'], ['0005']]);
        assert.deepEqual((await store.list(['log'], { recursive: true, after: '0004' })).map((i) => i.key), ['0005', '0000']);
      },
    },
    {
      name: 'a cursor (after) reads only keys added after it since the last read, whether or not the cursor key exists',
      async run(store) {
        for (const key of ['0001', '0002', '0003', '0004', '0005']) await store.put(['feed'], key, key);
        const first = await store.list(['feed']);
        const cursor = first[first.length - 1]?.key as string;
        assert.equal(cursor, '0005');
        await store.put(['feed'], '0007', '0007');
        await store.put(['feed'], '0006', '0006');
        await store.put(['feed'], '0003', 'updated before the cursor');
        await store.put(['feed'], '0002a', 'added before the cursor');
        await store.put(['feed', 'child'], '9999', 'another namespace');
        assert.deepEqual((await store.list(['feed'], { after: cursor })).map((i) => [i.key, i.value]), [
          ['0006', '0006'],
          ['0007', '0007'],
        ]);
        assert.deepEqual((await store.list(['feed'], { after: '0003x' })).map((i) => i.key), ['0004', '0005', '0006', '0007']);
        assert.deepEqual((await store.list(['feed'], { after: '' })).length, 8);
        assert.deepEqual(await store.list(['feed'], { after: '9' }), []);
        assert.deepEqual(await store.list(['missing'], { after: '0001' }), []);
        // The cursor's own key may go away; reading after it still works.
        await store.delete(['feed'], '0007');
        assert.deepEqual(await store.list(['feed'], { after: '0007' }), []);
        await store.put(['feed'], '0008', '0008');
        assert.deepEqual((await store.list(['feed'], { after: '0007' })).map((i) => i.key), ['0008']);
      },
    },
    {
      name: 'follows a growing namespace with after + limit: every key once, in order, across thousands of out-of-order writes',
      async run(store) {
        // A fixed pseudo-random order, so keys land in the middle of the index as well as at its end.
        const keys = Array.from({ length: 1500 }, (_, i) => `k${String(i).padStart(5, '0')}`);
        let seed = 7;
        for (let i = keys.length - 1; i > 0; i--) {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          const j = seed % (i + 1);
          [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        let written = 0;
        const read = async () => {
          for (;;) {
            const page = await store.list(['grow'], { limit: 100, ...(cursor !== undefined ? { after: cursor } : {}) });
            if (page.length === 0) return;
            for (const item of page) seen.push(item.key);
            cursor = page[page.length - 1]?.key;
          }
        };
        // Writes in bursts with reads between them: a reader only ever sees keys after its cursor.
        while (written < keys.length) {
          const burst = keys.slice(written, written + 250);
          for (const key of burst) await store.put(['grow'], key, written);
          written += burst.length;
          await read();
        }
        assert.deepEqual(seen, [...seen].sort(), 'keys came out of order');
        assert.equal(new Set(seen).size, seen.length, 'a key came twice');
        const all = (await store.list(['grow'])).map((i) => i.key);
        assert.deepEqual(all, [...keys].sort());
        for (const key of all.filter((_, i) => i % 3 === 0)) await store.delete(['grow'], key);
        const left = all.filter((_, i) => i % 3 !== 0);
        assert.deepEqual((await store.list(['grow'], { after: left[700] as string, limit: 3 })).map((i) => i.key), left.slice(701, 704));
        assert.equal((await store.list(['grow'])).length, left.length);
      },
    },
    {
      name: 'a recursive listing with a cursor skips only the namespace\'s own keys up to it, and stops at limit',
      async run(store) {
        for (const key of ['a', 'b', 'c']) await store.put(['r'], key, key);
        await store.put(['r', 'x'], 'a', 'child a');
        await store.put(['r', 'x', 'y'], 'a', 'grandchild a');
        await store.put(['r2'], 'z', 'sibling');
        const listed = async (options: { after?: string; limit?: number }) =>
          (await store.list(['r'], { recursive: true, ...options })).map((i) => `${i.namespace.join('/')}:${i.key}`);
        assert.deepEqual(await listed({ after: 'b' }), ['r:c', 'r/x:a', 'r/x/y:a']);
        assert.deepEqual(await listed({ after: 'c' }), ['r/x:a', 'r/x/y:a']);
        assert.deepEqual(await listed({ after: 'b', limit: 2 }), ['r:c', 'r/x:a']);
        assert.deepEqual(await listed({ limit: 4 }), ['r:a', 'r:b', 'r:c', 'r/x:a']);
      },
    },
    {
      name: 'a transaction reads with a cursor through its own writes',
      async run(store) {
        for (const key of ['1', '2', '3']) await store.put(['t'], key, key);
        await store.transaction(async (tx) => {
          await tx.put(['t'], '4', 'new in tx');
          await tx.put(['t'], '0', 'before the cursor');
          await tx.delete(['t'], '3');
          assert.deepEqual((await tx.list(['t'], { after: '2' })).map((i) => i.key), ['4']);
          assert.deepEqual((await tx.list(['t'], { after: '1', limit: 1 })).map((i) => i.key), ['2']);
          // Namespace order holds inside a transaction too: the parent's keys (even 'z') before its children's.
          await tx.put(['t', 'sub'], 'a', 'child');
          await tx.put(['t'], 'z', 'last parent key');
          assert.deepEqual(
            (await tx.list(['t'], { recursive: true, after: '2' })).map((i) => `${i.namespace.join('/')}:${i.key}`),
            ['t:4', 't:z', 't/sub:a'],
          );
        });
        assert.deepEqual((await store.list(['t'], { after: '1' })).map((i) => i.key), ['2', '4', 'z']);
      },
    },
    {
      name: 'returns nothing for limit 0',
      async run(store) {
        await store.put(['ns'], 'a', 1);
        assert.deepEqual(await store.list(['ns'], { limit: 0 }), []);
      },
    },
    {
      name: 'copies values in and out, and round-trips JSON values',
      async run(store) {
        const value = { list: [1] };
        await store.put(['ns'], 'k', value);
        value.list.push(2);
        const read = await store.get<{ list: number[] }>(['ns'], 'k');
        read?.value.list.push(3);
        assert.deepEqual((await store.get(['ns'], 'k'))?.value, { list: [1] });
        const values: unknown[] = [null, 0, -1.5, '', 'héllo 世界 🎉', true, [], {}, { nested: { a: [1, { b: null }] } }];
        for (const [index, v] of values.entries()) await store.put(['values'], `k${index}`, v);
        assert.deepEqual((await store.list(['values'])).map((i) => i.value), values);
        await store.put(['values'], 'date', { at: new Date(0) });
        assert.deepEqual((await store.get(['values'], 'date'))?.value, { at: '1970-01-01T00:00:00.000Z' });
      },
    },
    {
      name: 'keeps namespaces and keys apart exactly (no separator collisions, unicode segments)',
      async run(store) {
        await store.put(['a', 'b'], 'k', 'two segments');
        await store.put(['a/b'], 'k', 'slash');
        await store.put(['a b'], 'k', 'space');
        await store.put(['ä', '日本'], 'ключ', 'unicode');
        assert.equal((await store.get(['a', 'b'], 'k'))?.value, 'two segments');
        assert.equal((await store.get(['a/b'], 'k'))?.value, 'slash');
        assert.equal((await store.get(['a b'], 'k'))?.value, 'space');
        assertItem(await store.get(['ä', '日本'], 'ключ'), { namespace: ['ä', '日本'], key: 'ключ', value: 'unicode' });
      },
    },
    {
      name: 'transactions apply all writes or none',
      async run(store) {
        await store.put(['s'], 'a', 1);
        await store.put(['s'], 'c', 1);
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.put(['s'], 'a', 2);
            await tx.put(['s'], 'b', 2);
            await tx.delete(['s'], 'c');
            throw new Error('crash mid-step');
          }),
          { message: /crash mid-step/ },
        );
        assert.deepEqual(
          (await store.list(['s'])).map((i) => [i.key, i.value]),
          [
            ['a', 1],
            ['c', 1],
          ],
        );
        const result = await store.transaction(async (tx) => {
          await tx.put(['s'], 'a', 3);
          await tx.delete(['s'], 'missing');
          return 'done';
        });
        assert.equal(result, 'done');
        assert.equal((await store.get(['s'], 'a'))?.value, 3);
      },
    },
    {
      name: 'reads inside a transaction see its own writes',
      async run(store) {
        await store.transaction(async (tx) => {
          await tx.put(['t'], 'k', 'inside');
          assert.equal((await tx.get(['t'], 'k'))?.value, 'inside');
          assert.deepEqual((await tx.list(['t'])).map((i) => i.key), ['k']);
          assert.equal(await tx.delete(['t'], 'k'), true);
          assert.equal(await tx.get(['t'], 'k'), undefined);
          await tx.put(['t'], 'k', 'kept');
        });
        assert.equal((await store.get(['t'], 'k'))?.value, 'kept');
      },
    },
    {
      name: 'a nested transaction sees the outer writes; one that fails rolls back only its own writes',
      async run(store) {
        await store.transaction(async (tx) => {
          await tx.put(['n'], 'outer', 1);
          await assert.rejects(
            tx.transaction(async (inner) => {
              await inner.put(['n'], 'inner', 2);
              throw new Error('inner failed');
            }),
            { message: /inner failed/ },
          );
          await tx.transaction(async (inner) => {
            assert.equal((await inner.get(['n'], 'outer'))?.value, 1);
            await inner.put(['n'], 'inner-ok', 3);
          });
        });
        assert.deepEqual((await store.list(['n'])).map((i) => i.key), ['inner-ok', 'outer']);
      },
    },
    {
      name: 'rejects bad namespaces, keys, values and options clearly',
      async run(store) {
        await assert.rejects(store.put([], 'k', 1), { message: /namespace/ });
        await assert.rejects(store.put(['a', ''], 'k', 1), { message: /segment/ });
        await assert.rejects(store.put(['a\u0000b'], 'k', 1), { message: /NUL/ });
        await assert.rejects(store.put(['a'], '', 1), { message: /key/ });
        await assert.rejects(store.put(['a'], 'k', undefined), { message: /delete/ });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await assert.rejects(store.put(['a'], 'k', cyclic), { message: /JSON-serializable/ });
        await assert.rejects(store.put(['a'], 'k', 10n), { message: /JSON-serializable/ });
        await assert.rejects(store.put(['a'], 'k', () => 1), { name: 'InvalidArgumentError', message: /JSON-serializable/ });
        await assert.rejects(store.list(['a'], { limit: -1 }), { message: /limit/ });
        await assert.rejects(store.list(['a'], { limit: 1.5 }), { message: /limit/ });
        await assert.rejects(store.list(['a'], { after: 5 as unknown as string }), { name: 'InvalidArgumentError', message: /after/ });
        await assert.rejects(store.list(['a'], { after: null as unknown as string }), { name: 'InvalidArgumentError', message: /after/ });
        assert.deepEqual(await store.list(['a']), []);
      },
    },
    {
      name: 'honours an aborted signal on every call',
      async run(store) {
        const signal = AbortSignal.abort();
        await assert.rejects(store.get(['a'], 'k', { signal }), aborted);
        await assert.rejects(store.put(['a'], 'k', 1, { signal }), aborted);
        await assert.rejects(store.delete(['a'], 'k', { signal }), aborted);
        await assert.rejects(store.list(['a'], { signal }), aborted);
        let ran = false;
        await assert.rejects(
          store.transaction(
            async () => {
              ran = true;
            },
            { signal },
          ),
          aborted,
        );
        assert.equal(ran, false);
        assert.equal(await store.get(['a'], 'k'), undefined);
      },
    },
  ];
}
