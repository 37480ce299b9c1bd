import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { Namespace, Store, StoreCallOptions, StoreItem, StoreListOptions } from './store';

const SEPARATOR = '\u0000';

/** Checks a namespace and key; returns the namespace's map key. */
export function namespaceKey(namespace: Namespace, key?: string): string {
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new InvalidArgumentError('namespace', 'expected a non-empty array of strings, e.g. ["looper", "state"]');
  }
  for (const segment of namespace) {
    if (typeof segment !== 'string' || segment === '' || segment.includes(SEPARATOR)) {
      throw new InvalidArgumentError('namespace', `each segment must be a non-empty string without NUL, got ${JSON.stringify(segment)}`);
    }
  }
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new InvalidArgumentError('key', `expected a non-empty string, got ${JSON.stringify(key)}`);
  }
  return namespace.join(SEPARATOR);
}

/** Deep-copies a JSON value, rejecting what JSON cannot hold. */
export function cloneJson(value: unknown, what = 'value'): unknown {
  if (value === undefined) throw new InvalidArgumentError(what, 'undefined cannot be stored; use delete()');
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(what, `must be JSON-serializable (${(error as Error).message})`, { cause: error });
  }
  return JSON.parse(text);
}

/**
 * The in-memory {@link Store}: values are deep-copied in and out, so callers
 * never share objects with the store. Transactions work on a copy that
 * replaces the data only when the work succeeds.
 */
export class MemoryStore implements Store {
  private data = new Map<string, Map<string, StoreItem>>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    AbortError.throwIfAborted(options?.signal, 'Store.get');
    const item = this.data.get(namespaceKey(namespace, key))?.get(key);
    return item ? (copy(item) as StoreItem<V>) : undefined;
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = namespaceKey(namespace, key);
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
    const nsKey = namespaceKey(namespace, key);
    const items = this.data.get(nsKey);
    const existed = items?.delete(key) ?? false;
    if (items && items.size === 0) this.data.delete(nsKey);
    return existed;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    AbortError.throwIfAborted(options.signal, 'Store.list');
    const nsKey = namespaceKey(namespace);
    const { limit, after, recursive } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
      throw new InvalidArgumentError('limit', `expected a non-negative integer, got ${String(limit)}`);
    }
    const out: StoreItem[] = [];
    const spaces = [...this.data.keys()].filter((k) => k === nsKey || (recursive && k.startsWith(nsKey + SEPARATOR))).sort();
    for (const space of spaces) {
      const items = [...(this.data.get(space) as Map<string, StoreItem>).values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const item of items) {
        if (after !== undefined && space === nsKey && item.key <= after) continue;
        out.push(copy(item));
        if (limit !== undefined && out.length >= limit) return out as StoreItem<V>[];
      }
    }
    return out as StoreItem<V>[];
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    const draft = new MemoryStore({ now: this.now });
    draft.data = new Map([...this.data].map(([k, items]) => [k, new Map([...items].map(([key, item]) => [key, copy(item)]))]));
    const result = await work(draft);
    this.data = draft.data;
    return result;
  }
}

function copy(item: StoreItem): StoreItem {
  return { ...item, namespace: [...item.namespace], value: structuredClone(item.value) };
}
