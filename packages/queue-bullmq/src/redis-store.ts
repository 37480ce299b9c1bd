import {
  AbortError,
  checkStoreListOptions,
  checkStoreNamespace,
  NAMESPACE_SEPARATOR,
  storeValueToJson,
  type Namespace,
  type Store,
  type StoreCallOptions,
  type StoreItem,
  type StoreListOptions,
} from '@troupe/core';
import type { Redis } from 'ioredis';
import { DEFAULT_QUEUE_PREFIX } from './queue-connection';

/** Options for {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Key prefix. Default `troupe`: items live in hashes `troupe:store:<namespace>`. */
  prefix?: string;
  /** Clock for `createdAt` / `updatedAt`. Default `Date.now`. */
  now?: () => number;
}

interface StoredRecord {
  value: unknown;
  createdAt: number;
  updatedAt: number;
}

/**
 * A transaction's write of a key it has not read: the value as JSON, and the
 * `createdAt` to use when Redis has no record yet (else Redis' own is kept,
 * by {@link PUT_SCRIPT} at commit, without a read before).
 */
interface BlindPut {
  blind: true;
  json: string;
  createdAtIfNew: number;
  updatedAt: number;
}

/** Pending writes of a transaction: nsKey → key → record (`null` = deleted). */
type Overlay = Map<string, Map<string, StoredRecord | BlindPut | null>>;

/**
 * Writes one record and keeps the `createdAt` of the one it replaces, in one
 * round trip: KEYS = hash, namespace set; ARGV = field, value JSON,
 * createdAt if new, updatedAt, namespace key. Records are written
 * `createdAt` first so it is read without decoding the value.
 */
const PUT_SCRIPT = `local previous = redis.call('hget', KEYS[1], ARGV[1])
local createdAt = ARGV[3]
if previous then
  local kept = string.match(previous, '^{"createdAt":([^,]+),')
  if not kept then
    local ok, decoded = pcall(cjson.decode, previous)
    if ok and type(decoded) == 'table' and type(decoded.createdAt) == 'number' then kept = cjson.encode(decoded.createdAt) end
  end
  if kept then createdAt = kept end
end
redis.call('hset', KEYS[1], ARGV[1], '{"createdAt":' .. createdAt .. ',"updatedAt":' .. ARGV[4] .. ',"value":' .. ARGV[2] .. '}')
redis.call('sadd', KEYS[2], ARGV[5])
return 1`;

/** A record as stored (see {@link PUT_SCRIPT}): `createdAt` first. */
function recordJson(createdAt: number, updatedAt: number, valueJson: string): string {
  return `{"createdAt":${JSON.stringify(createdAt)},"updatedAt":${JSON.stringify(updatedAt)},"value":${valueJson}}`;
}

function splitNamespace(nsKey: string): string[] {
  return nsKey.split(NAMESPACE_SEPARATOR);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a store view reads through: Redis itself, or an outer transaction. */
interface StoreReader {
  read(nsKey: string, key: string): Promise<StoredRecord | undefined>;
  readAll(nsKey: string): Promise<Map<string, StoredRecord>>;
  namespaces(): Promise<string[]>;
  /** A transaction's own knowledge of a key (its pending write or delete); Redis has none. */
  known?(nsKey: string, key: string): StoredRecord | BlindPut | null | undefined;
}

/**
 * A durable core {@link Store} on Redis, so Looper checkpoints (and any other
 * state) survive the worker that wrote them: another worker on another
 * machine resumes from them. Each namespace is one Redis hash; a
 * transaction buffers its writes (its own reads see them) and applies them
 * in one `MULTI`/`EXEC`, so they land together or not at all. With Redis
 * persistence on (AOF), checkpoints also survive a Redis restart.
 *
 * @example
 * ```ts
 * const redis = new Redis('redis://127.0.0.1:6379');
 * const store = new RedisStore(redis);
 * await store.put(['looper', 'job-1'], 'state', { state: 'RUNNING' });
 * ```
 */
export class RedisStore implements Store {
  private readonly prefix: string;
  private readonly now: () => number;
  private readonly reader: StoreReader;

  constructor(
    private readonly redis: Redis,
    options: RedisStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
    this.now = options.now ?? Date.now;
    this.reader = {
      read: async (nsKey, key) => {
        const raw = await this.redis.hget(this.hashKey(nsKey), key);
        return raw === null ? undefined : (JSON.parse(raw) as StoredRecord);
      },
      readAll: async (nsKey) => {
        const all = await this.redis.hgetall(this.hashKey(nsKey));
        return new Map(Object.entries(all).map(([key, raw]) => [key, JSON.parse(raw) as StoredRecord]));
      },
      namespaces: () => this.redis.smembers(this.namespacesKey()),
    };
  }

  private hashKey(nsKey: string): string {
    return `${this.prefix}:store:${nsKey}`;
  }

  private namespacesKey(): string {
    return `${this.prefix}:store-namespaces`;
  }

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    AbortError.throwIfAborted(options?.signal, 'Store.get');
    return viewGet<V>(this.reader, namespace, key);
  }

  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const json = storeValueToJson(value);
    const at = this.now();
    await this.redis.eval(PUT_SCRIPT, 2, this.hashKey(nsKey), this.namespacesKey(), key, json, JSON.stringify(at), JSON.stringify(at), nsKey);
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    const nsKey = checkStoreNamespace(namespace, key);
    return (await this.redis.hdel(this.hashKey(nsKey), key)) > 0;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    AbortError.throwIfAborted(options.signal, 'Store.list');
    return viewList<V>(this.reader, namespace, options);
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    const overlay: Overlay = new Map();
    const result = await work(new RedisTransaction(overlayReader(this.reader, overlay), overlay, this.now));
    if (overlay.size === 0) return result;
    const multi = this.redis.multi();
    for (const [nsKey, items] of overlay) {
      for (const [key, record] of items) {
        if (record === null) multi.hdel(this.hashKey(nsKey), key);
        else if ('blind' in record) {
          const { json, createdAtIfNew, updatedAt } = record;
          multi.eval(PUT_SCRIPT, 2, this.hashKey(nsKey), this.namespacesKey(), key, json, JSON.stringify(createdAtIfNew), JSON.stringify(updatedAt), nsKey);
        } else multi.hset(this.hashKey(nsKey), key, recordJson(record.createdAt, record.updatedAt, JSON.stringify(record.value))).sadd(this.namespacesKey(), nsKey);
      }
    }
    const replies = await multi.exec();
    const failed = replies?.find(([error]) => error)?.[0];
    if (failed) throw failed;
    return result;
  }
}

/** What a transaction knows of a key without asking Redis: `undefined` when only Redis knows. */
type Known = StoredRecord | BlindPut | null | undefined;

function overlayReader(parent: StoreReader, overlay: Overlay): StoreReader {
  return {
    async read(nsKey, key) {
      const pending = overlay.get(nsKey)?.get(key);
      if (pending === null) return undefined;
      if (pending === undefined) return parent.read(nsKey, key);
      if (!('blind' in pending)) return pending;
      return settle(pending, await parent.read(nsKey, key));
    },
    async readAll(nsKey) {
      const all = await parent.readAll(nsKey);
      for (const [key, record] of overlay.get(nsKey) ?? []) {
        if (record === null) all.delete(key);
        else all.set(key, 'blind' in record ? settle(record, all.get(key)) : record);
      }
      return all;
    },
    async namespaces() {
      return [...new Set([...(await parent.namespaces()), ...overlay.keys()])];
    },
    known(nsKey, key) {
      const pending = overlay.get(nsKey)?.get(key);
      return pending !== undefined ? pending : parent.known?.(nsKey, key);
    },
  };
}

/** A blind write as a record, given the record it replaces. */
function settle(put: BlindPut, previous: StoredRecord | undefined): StoredRecord {
  return { value: JSON.parse(put.json) as unknown, createdAt: previous?.createdAt ?? put.createdAtIfNew, updatedAt: put.updatedAt };
}

/** A transaction's view: reads through its overlay, writes into it. Nested transactions merge on success. */
class RedisTransaction implements Store {
  constructor(
    private readonly reader: StoreReader,
    private readonly overlay: Overlay,
    private readonly now: () => number,
  ) {}

  async get<V = unknown>(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<StoreItem<V> | undefined> {
    AbortError.throwIfAborted(options?.signal, 'Store.get');
    return viewGet<V>(this.reader, namespace, key);
  }

  /**
   * Buffers the write without a round trip: for a key this transaction has
   * not touched, the commit keeps Redis' `createdAt` (see {@link PUT_SCRIPT}).
   */
  async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    AbortError.throwIfAborted(options?.signal, 'Store.put');
    const nsKey = checkStoreNamespace(namespace, key);
    const json = storeValueToJson(value);
    const at = this.now();
    const known: Known = this.reader.known?.(nsKey, key);
    if (known === undefined) this.items(nsKey).set(key, { blind: true, json, createdAtIfNew: at, updatedAt: at });
    else if (known !== null && 'blind' in known) this.items(nsKey).set(key, { ...known, json, updatedAt: at });
    else this.items(nsKey).set(key, { value: JSON.parse(json) as unknown, createdAt: known?.createdAt ?? at, updatedAt: at });
  }

  async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    AbortError.throwIfAborted(options?.signal, 'Store.delete');
    const nsKey = checkStoreNamespace(namespace, key);
    const existed = (await this.reader.read(nsKey, key)) !== undefined;
    this.items(nsKey).set(key, null);
    return existed;
  }

  async list<V = unknown>(namespace: Namespace, options: StoreListOptions = {}): Promise<StoreItem<V>[]> {
    AbortError.throwIfAborted(options.signal, 'Store.list');
    return viewList<V>(this.reader, namespace, options);
  }

  async transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    AbortError.throwIfAborted(options?.signal, 'Store.transaction');
    const inner: Overlay = new Map();
    const result = await work(new RedisTransaction(overlayReader(this.reader, inner), inner, this.now));
    for (const [nsKey, items] of inner) for (const [key, record] of items) this.items(nsKey).set(key, record);
    return result;
  }

  private items(nsKey: string): Map<string, StoredRecord | BlindPut | null> {
    let items = this.overlay.get(nsKey);
    if (!items) {
      items = new Map();
      this.overlay.set(nsKey, items);
    }
    return items;
  }
}

async function viewGet<V>(reader: StoreReader, namespace: Namespace, key: string): Promise<StoreItem<V> | undefined> {
  const nsKey = checkStoreNamespace(namespace, key);
  const record = await reader.read(nsKey, key);
  return record ? toItem<V>(nsKey, key, record) : undefined;
}

async function viewList<V>(reader: StoreReader, namespace: Namespace, options: StoreListOptions): Promise<StoreItem<V>[]> {
  const nsKey = checkStoreNamespace(namespace);
  checkStoreListOptions(options);
  const { limit, after, recursive } = options;
  const spaces = recursive ? (await reader.namespaces()).filter((k) => k === nsKey || k.startsWith(nsKey + NAMESPACE_SEPARATOR)).sort() : [nsKey];
  const out: StoreItem<V>[] = [];
  for (const space of spaces) {
    const items = [...(await reader.readAll(space))].sort(([a], [b]) => compareKeys(a, b));
    for (const [key, record] of items) {
      if (after !== undefined && space === nsKey && key <= after) continue;
      if (limit !== undefined && out.length >= limit) return out;
      out.push(toItem<V>(space, key, record));
    }
  }
  return out;
}

function toItem<V>(nsKey: string, key: string, record: StoredRecord): StoreItem<V> {
  return { namespace: splitNamespace(nsKey), key, value: structuredClone(record.value) as V, createdAt: record.createdAt, updatedAt: record.updatedAt };
}
