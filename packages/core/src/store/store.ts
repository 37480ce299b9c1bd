/** A namespace: a path of non-empty segments, e.g. `['looper', 'session-1', 'messages']`. */
export type Namespace = readonly string[];

/** A stored value with its address and times. */
export interface StoreItem<V = unknown> {
  namespace: string[];
  key: string;
  /** A JSON-serializable value. */
  value: V;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** Options every store call accepts. */
export interface StoreCallOptions {
  signal?: AbortSignal;
}

/** Options for {@link Store.list}. */
export interface StoreListOptions extends StoreCallOptions {
  /** Also list items in sub-namespaces (`['a']` matches `['a', 'b']`). Default false. */
  recursive?: boolean;
  /**
   * A cursor: only keys that sort after this one (it need not exist). It
   * applies to the listed namespace itself; a recursive listing still returns
   * every item of its sub-namespaces. A reader that passes the last key it
   * saw reads only what was added since: keys are kept in a sorted index, so
   * such a call costs in proportion to the items it returns, not to the
   * size of the namespace.
   */
  after?: string;
  /** At most this many items (a non-negative integer). */
  limit?: number;
}

/**
 * Namespaced key-value storage for durable state (loop memory, Looper
 * checkpoints, pipeline batches). Values are JSON. `MemoryStore` is the
 * in-process default; durable stores (e.g. `@troupe/store-sqlite`) implement
 * the same contract, and `transaction` makes a group of writes atomic.
 *
 * @example
 * ```ts
 * const store: Store = new MemoryStore();
 * await store.put(['memory', 'loop-1'], 'exp-1', { outcome: 'success' });
 * const items = await store.list(['memory', 'loop-1']);
 * ```
 */
export interface Store {
  get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined>;
  put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void>;
  /** Removes an item; returns whether it existed. */
  delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean>;
  /**
   * Items of a namespace, sorted by namespace (a parent before its children)
   * then key. Page or follow a growing namespace with `after` and `limit`.
   *
   * @throws InvalidArgumentError for a bad namespace, `limit` or `after`.
   */
  list<V = unknown>(namespace: Namespace, options?: StoreListOptions): Promise<StoreItem<V>[]>;
  /**
   * Runs `work` so that all its writes apply together or not at all: if it
   * throws, none of them is kept.
   */
  transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T>;
}
