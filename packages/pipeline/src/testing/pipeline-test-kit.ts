// Test helpers for @troupe/pipeline's own tests (not exported from the package).
import { MemoryStore, type Namespace, type Store, type StoreCallOptions, type StoreItem, type StoreListOptions } from '@troupe/core';

/** Which store calls a {@link TestStore} should fail. */
export type FailRule = (call: { method: 'get' | 'put' | 'delete' | 'list' | 'transaction'; namespace: Namespace | undefined; key: string | undefined; value: unknown }) => boolean;

/** Counters and rule a {@link TestStore} shares with the `tx` of its transactions. */
interface TestStoreShared {
  reads: number;
  writes: number;
  log: string[];
  failRule: FailRule | undefined;
}

/**
 * A store wrapper for tests: counts reads and writes, and fails the calls a
 * rule picks (calls inside transactions included) with a store-like error.
 * Wrap the same `MemoryStore` in a new TestStore to simulate a restart with
 * a durable store.
 */
export class TestStore implements Store {
  private readonly shared: TestStoreShared;

  constructor(
    readonly inner: Store = new MemoryStore(),
    shared?: TestStoreShared,
  ) {
    this.shared = shared ?? { reads: 0, writes: 0, log: [], failRule: undefined };
  }

  get reads(): number {
    return this.shared.reads;
  }

  get writes(): number {
    return this.shared.writes;
  }

  /** Every call, as `method [namespace] key`. */
  get log(): readonly string[] {
    return this.shared.log;
  }

  /** Fails matching calls from now on (until {@link heal}). */
  failWhen(rule: FailRule): void {
    this.shared.failRule = rule;
  }

  heal(): void {
    this.shared.failRule = undefined;
  }

  private check(method: 'get' | 'put' | 'delete' | 'list' | 'transaction', namespace?: Namespace, key?: string, value?: unknown): void {
    if (method === 'get' || method === 'list') this.shared.reads++;
    else if (method !== 'transaction') this.shared.writes++;
    this.shared.log.push(`${method}${namespace ? ` [${namespace.join(',')}]` : ''}${key ? ` ${key}` : ''}`);
    if (this.shared.failRule?.({ method, namespace, key, value })) throw new Error(`disk I/O error (SQLITE_IOERR) on ${method}`);
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    this.check('get', namespace, key);
    return this.inner.get<V>(namespace, key, options);
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    this.check('put', namespace, key, value);
    return this.inner.put(namespace, key, value, options);
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    this.check('delete', namespace, key);
    return this.inner.delete(namespace, key, options);
  }

  async list<V = unknown>(namespace: Namespace, options?: StoreListOptions): Promise<StoreItem<V>[]> {
    this.check('list', namespace);
    return this.inner.list<V>(namespace, options);
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    this.check('transaction');
    return this.inner.transaction((tx) => work(new TestStore(tx, this.shared)), options);
  }
}

/** A promise you resolve from outside. */
export interface Gate<T = void> {
  promise: Promise<T>;
  open(value: T): void;
  opened: boolean;
}

export function gate<T = void>(): Gate<T> {
  let open!: (value: T) => void;
  const g: Gate<T> = {
    promise: new Promise<T>((resolve) => {
      open = resolve;
    }),
    open: (value: T) => {
      g.opened = true;
      open(value);
    },
    opened: false,
  };
  return g;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Waits until `predicate` holds, checking after each macrotask (test helper only). */
export async function until(predicate: () => boolean, what: string, maxTicks = 2_000): Promise<void> {
  for (let i = 0; i < maxTicks; i++) {
    if (predicate()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}
