import { AbortError } from '../errors/abort-error';
import type { Namespace, Store, StoreCallOptions, StoreItem, StoreListOptions } from './store';
import { checkStoreLimit, checkStoreNamespace, NAMESPACE_SEPARATOR, storeValueToJson } from './store-input';

/** Deep-copies a JSON value, rejecting what JSON cannot hold. */
function cloneJson(value: unknown): unknown {
  return JSON.parse(storeValueToJson(value));
}

/**
 * The in-memory {@link Store}: values are deep-copied in and out, so callers
 * never share objects with the store. Transactions work on a copy that
 * replaces the data only when the work succeeds.
 */
export class MemoryStore implements Store {
  private readonly data = new Map<string, Map<string, StoreItem>>();
  private readonly now: () => number;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    AbortError.throwIfAborted(options?.signal, 'Store.get');
    const item = this.data.get(checkStoreNamespace(namespace, key))?.get(key);
    return item ? (copy(item) as StoreItem<V>) : undefined;
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const stored = cloneJson(value);
    let items = this.data.get(nsKey);
    if (!items) {
      items = new Map();
      this.data.set(nsKey, items);
    }
    const now = this.now();
    const previous = items.get(key);
    items.set(key, { namespace: [...namespace], key, value: stored, createdAt: previous?.createdAt ?? now, updatedAt: now });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    const nsKey = checkStoreNamespace(namespace, key);
    const items = this.data.get(nsKey);
    const existed = items?.delete(key) ?? false;
    if (items && items.size === 0) this.data.delete(nsKey);
    return existed;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    AbortError.throwIfAborted(options.signal, 'Store.list');
    const nsKey = checkStoreNamespace(namespace);
    const { limit, after, recursive } = options;
    checkStoreLimit(limit);
    const out: StoreItem[] = [];
    const spaces = [...this.data.keys()].filter((k) => k === nsKey || (recursive && k.startsWith(nsKey + NAMESPACE_SEPARATOR))).sort();
    for (const space of spaces) {
      const items = [...(this.data.get(space) as Map<string, StoreItem>).values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const item of items) {
        if (after !== undefined && space === nsKey && item.key <= after) continue;
        if (limit !== undefined && out.length >= limit) return out as StoreItem<V>[];
        out.push(copy(item));
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

  /** @internal Applies a committed write (the draft's log) without copying. */
  applyCommitted(nsKey: string, namespace: Namespace, key: string, item: StoreItem | undefined): void {
    let items = this.data.get(nsKey);
    if (item === undefined) {
      items?.delete(key);
      if (items && items.size === 0) this.data.delete(nsKey);
      return;
    }
    if (!items) {
      items = new Map();
      this.data.set(nsKey, items);
    }
    const previous = items.get(key);
    items.set(key, { ...item, namespace: [...namespace], createdAt: previous?.createdAt ?? item.createdAt });
  }

  /** @internal The clock, for drafts. */
  clock(): number {
    return this.now();
  }
}

/**
 * A transaction's view: reads see the base store plus the transaction's own
 * writes; the writes are kept in a log and applied to the base only on commit.
 */
class TransactionDraft implements Store {
  /** nsKey → key → item, or `undefined` for a delete. */
  private readonly log = new Map<string, { namespace: Namespace; writes: Map<string, StoreItem | undefined> }>();

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
    const writes = this.log.get(nsKey)?.writes;
    if (writes?.has(key)) {
      const item = writes.get(key);
      return item ? (copy(item) as StoreItem<V>) : undefined;
    }
    return (this.parent ?? this.base).get<V>(namespace, key, options);
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const stored = cloneJson(value);
    const existing = await this.get(namespace, key);
    const now = this.base.clock();
    this.entry(nsKey, namespace).set(key, {
      namespace: [...namespace],
      key,
      value: stored,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    const nsKey = checkStoreNamespace(namespace, key);
    const existed = (await this.get(namespace, key)) !== undefined;
    this.entry(nsKey, namespace).set(key, undefined);
    return existed;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    const { limit, ...rest } = options;
    const nsKey = checkStoreNamespace(namespace);
    const base = await (this.parent ?? this.base).list<V>(namespace, rest);
    const merged = new Map(base.map((item) => [`${item.namespace.join('\u0000')}\u0000${item.key}`, item as StoreItem]));
    for (const [space, { writes }] of this.log) {
      if (space !== nsKey && !(rest.recursive && space.startsWith(nsKey + NAMESPACE_SEPARATOR))) continue;
      for (const [key, item] of writes) {
        if (rest.after !== undefined && space === nsKey && key <= rest.after) continue;
        const id = `${space}\u0000${key}`;
        if (item === undefined) merged.delete(id);
        else merged.set(id, copy(item));
      }
    }
    const sorted = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item);
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
    for (const [nsKey, { namespace, writes }] of this.log) {
      for (const [key, item] of writes) {
        if (this.parent) this.parent.entry(nsKey, namespace).set(key, item);
        else this.base.applyCommitted(nsKey, namespace, key, item);
      }
    }
  }

  /** @internal */
  entry(nsKey: string, namespace: Namespace): Map<string, StoreItem | undefined> {
    let entry = this.log.get(nsKey);
    if (!entry) {
      entry = { namespace: [...namespace], writes: new Map() };
      this.log.set(nsKey, entry);
    }
    return entry.writes;
  }
}

function copy(item: StoreItem): StoreItem {
  return { ...item, namespace: [...item.namespace], value: structuredClone(item.value) };
}
