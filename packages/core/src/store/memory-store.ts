import { AbortError } from '../errors/abort-error';
import { SortedKeys } from './sorted-keys';
import type { Namespace, Store, StoreCallOptions, StoreItem, StoreListOptions } from './store';
import { checkStoreListOptions, checkStoreNamespace, NAMESPACE_SEPARATOR, storeValueToJson } from './store-input';

/** An item as kept: its value as JSON text, so every read parses a fresh copy. */
interface StoredItem {
  namespace: readonly string[];
  key: string;
  json: string;
  createdAt: number;
  updatedAt: number;
}

/** One namespace's items, with its keys in order. */
interface Space {
  items: Map<string, StoredItem>;
  keys: SortedKeys;
}

function toItem(stored: StoredItem): StoreItem {
  return { namespace: [...stored.namespace], key: stored.key, value: JSON.parse(stored.json) as unknown, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
}

/**
 * The in-memory {@link Store}: values are copied in and out (kept as JSON
 * text), so callers never share objects with the store. Namespaces and keys
 * are kept in sorted indexes, so `list` costs O(log n) plus the items it
 * returns: a reader that pages with `after` reads only what is new.
 * Transactions work on a log of writes that applies only when the work
 * succeeds.
 */
export class MemoryStore implements Store {
  private readonly spaces = new Map<string, Space>();
  /** Every namespace that holds items, by joined key: a namespace's children follow it. */
  private readonly spaceKeys = new SortedKeys();
  private readonly now: () => number;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    AbortError.throwIfAborted(options?.signal, 'Store.get');
    const stored = this.spaces.get(checkStoreNamespace(namespace, key))?.items.get(key);
    return stored ? (toItem(stored) as StoreItem<V>) : undefined;
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const json = storeValueToJson(value);
    const now = this.now();
    this.write(nsKey, { namespace: [...namespace], key, json, createdAt: now, updatedAt: now });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    return this.remove(checkStoreNamespace(namespace, key), key);
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    AbortError.throwIfAborted(options.signal, 'Store.list');
    const nsKey = checkStoreNamespace(namespace);
    checkStoreListOptions(options);
    const { after, recursive } = options;
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: StoreItem[] = [];
    if (limit === 0) return out as StoreItem<V>[];
    const own = this.spaces.get(nsKey);
    if (own !== undefined && !collect(own, after, limit, out)) return out as StoreItem<V>[];
    if (recursive) {
      const prefix = nsKey + NAMESPACE_SEPARATOR;
      for (const space of this.spaceKeys.from(prefix, true)) {
        if (!space.startsWith(prefix)) break;
        if (!collect(this.spaces.get(space) as Space, undefined, limit, out)) break;
      }
    }
    return out as StoreItem<V>[];
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    // Transactions run one at a time; writes made outside them go straight through and are never lost.
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      const draft = new TransactionDraft(this);
      const result = await work(draft);
      draft.commit();
      return result;
    } finally {
      release();
    }
  }

  /** @internal Applies a committed write (a draft's log entry); `undefined` deletes. */
  applyCommitted(nsKey: string, key: string, stored: StoredItem | undefined): void {
    if (stored === undefined) this.remove(nsKey, key);
    else this.write(nsKey, stored);
  }

  /** @internal The item as kept (not copied), for drafts that only need to know it exists or when it was created. */
  stored(nsKey: string, key: string): StoredItem | undefined {
    return this.spaces.get(nsKey)?.items.get(key);
  }

  /** @internal The clock, for drafts. */
  clock(): number {
    return this.now();
  }

  /** Puts `stored`, keeping the creation time of the item it replaces. */
  private write(nsKey: string, stored: StoredItem): void {
    let space = this.spaces.get(nsKey);
    if (space === undefined) {
      space = { items: new Map(), keys: new SortedKeys() };
      this.spaces.set(nsKey, space);
      this.spaceKeys.add(nsKey);
    }
    const previous = space.items.get(stored.key);
    if (previous === undefined) space.keys.add(stored.key);
    space.items.set(stored.key, previous === undefined ? stored : { ...stored, createdAt: previous.createdAt });
  }

  private remove(nsKey: string, key: string): boolean {
    const space = this.spaces.get(nsKey);
    if (space === undefined || !space.items.delete(key)) return false;
    space.keys.delete(key);
    if (space.items.size === 0) {
      this.spaces.delete(nsKey);
      this.spaceKeys.delete(nsKey);
    }
    return true;
  }
}

/** Appends copies of `space`'s items after `after` to `out` until it holds `limit`; false once it does. */
function collect(space: Space, after: string | undefined, limit: number, out: StoreItem[]): boolean {
  for (const key of space.keys.from(after)) {
    if (out.length >= limit) return false;
    out.push(toItem(space.items.get(key) as StoredItem));
  }
  return out.length < limit;
}

/** Namespace order (a parent before its children), then key order. */
function compareItems(a: StoreItem, b: StoreItem): number {
  const left = a.namespace.join(NAMESPACE_SEPARATOR);
  const right = b.namespace.join(NAMESPACE_SEPARATOR);
  if (left !== right) return left < right ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * A transaction's view: reads see the base store plus the transaction's own
 * writes; the writes are kept in a log and applied to the base only on commit.
 */
class TransactionDraft implements Store {
  /** nsKey → key → item, or `undefined` for a delete. */
  private readonly log = new Map<string, Map<string, StoredItem | undefined>>();

  /**
   * @param base the store the outermost draft commits into
   * @param parent the enclosing draft, for a nested transaction (a savepoint)
   */
  constructor(
    private readonly base: MemoryStore,
    private readonly parent?: TransactionDraft,
  ) {}

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    const nsKey = checkStoreNamespace(namespace, key);
    const writes = this.log.get(nsKey);
    if (writes?.has(key)) {
      const stored = writes.get(key);
      return stored ? (toItem(stored) as StoreItem<V>) : undefined;
    }
    return (this.parent ?? this.base).get<V>(namespace, key, options);
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const json = storeValueToJson(value);
    const now = this.base.clock();
    this.entry(nsKey).set(key, { namespace: [...namespace], key, json, createdAt: this.stored(nsKey, key)?.createdAt ?? now, updatedAt: now });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    const nsKey = checkStoreNamespace(namespace, key);
    const existed = this.stored(nsKey, key) !== undefined;
    this.entry(nsKey).set(key, undefined);
    return existed;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    const { limit, ...rest } = options;
    const nsKey = checkStoreNamespace(namespace);
    checkStoreListOptions(options);
    const base = await (this.parent ?? this.base).list<V>(namespace, rest);
    const merged = new Map(base.map((item) => [`${item.namespace.join(NAMESPACE_SEPARATOR)}${NAMESPACE_SEPARATOR}${item.key}`, item as StoreItem]));
    for (const [space, writes] of this.log) {
      if (space !== nsKey && !(rest.recursive && space.startsWith(nsKey + NAMESPACE_SEPARATOR))) continue;
      for (const [key, stored] of writes) {
        if (rest.after !== undefined && space === nsKey && key <= rest.after) continue;
        const id = `${space}${NAMESPACE_SEPARATOR}${key}`;
        if (stored === undefined) merged.delete(id);
        else merged.set(id, toItem(stored));
      }
    }
    const sorted = [...merged.values()].sort(compareItems);
    return (limit === undefined ? sorted : sorted.slice(0, limit)) as StoreItem<V>[];
  }

  /** Nested: a savepoint — its writes join this transaction only if `work` succeeds. */
  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    const nested = new TransactionDraft(this.base, this);
    const result = await work(nested);
    nested.commit();
    return result;
  }

  /** Applies the log to the enclosing draft, or to the base store for the outermost one. */
  commit(): void {
    for (const [nsKey, writes] of this.log) {
      for (const [key, stored] of writes) {
        if (this.parent) this.parent.entry(nsKey).set(key, stored);
        else this.base.applyCommitted(nsKey, key, stored);
      }
    }
  }

  /** @internal The item as this transaction sees it (its own writes first), not copied. */
  stored(nsKey: string, key: string): StoredItem | undefined {
    const writes = this.log.get(nsKey);
    if (writes?.has(key)) return writes.get(key);
    return (this.parent ?? this.base).stored(nsKey, key);
  }

  /** @internal */
  entry(nsKey: string): Map<string, StoredItem | undefined> {
    let writes = this.log.get(nsKey);
    if (!writes) {
      writes = new Map();
      this.log.set(nsKey, writes);
    }
    return writes;
  }
}
