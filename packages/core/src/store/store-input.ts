import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { Namespace } from './store';

/** Joins namespace segments; no segment may contain it. */
export const NAMESPACE_SEPARATOR = '\u0000';

/**
 * Checks a {@link Store} call's namespace (and key) as every store must:
 * a non-empty array of non-empty strings without NUL, and a non-empty
 * string key. Returns the segments joined by NUL, which sorts a parent
 * before its children. For `Store` implementations.
 *
 * @example
 * ```ts
 * const nsKey = checkStoreNamespace(['looper', 'state'], 'current'); // 'looper\u0000state'
 * ```
 */
export function checkStoreNamespace(namespace: Namespace, key?: string): string {
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new InvalidArgumentError('namespace', 'expected a non-empty array of strings, e.g. ["looper", "state"]');
  }
  for (const segment of namespace) {
    if (typeof segment !== 'string' || segment === '' || segment.includes(NAMESPACE_SEPARATOR)) {
      throw new InvalidArgumentError('namespace', `each segment must be a non-empty string without NUL, got ${JSON.stringify(segment)}`);
    }
  }
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new InvalidArgumentError('key', `expected a non-empty string, got ${JSON.stringify(key)}`);
  }
  return namespace.join(NAMESPACE_SEPARATOR);
}

/**
 * Serializes a value to store as JSON text, rejecting what JSON cannot hold
 * (`undefined`, functions, cycles, BigInt) with an {@link InvalidArgumentError}.
 * For `Store` implementations.
 *
 * @example
 * ```ts
 * const text = storeValueToJson({ state: 'RUNNING' }); // '{"state":"RUNNING"}'
 * ```
 */
export function storeValueToJson(value: unknown, what = 'value'): string {
  if (value === undefined) throw new InvalidArgumentError(what, 'undefined cannot be stored; use delete()');
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(what, `must be JSON-serializable (${(error as Error).message})`, { cause: error });
  }
  if (text === undefined) throw new InvalidArgumentError(what, `must be JSON-serializable (got ${typeof value})`);
  return text;
}

/** Checks `Store.list`'s `limit`: a non-negative integer when given. For `Store` implementations. */
export function checkStoreLimit(limit: number | undefined): void {
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new InvalidArgumentError('limit', `expected a non-negative integer, got ${String(limit)}`);
  }
}

/**
 * Checks `Store.list`'s options: `limit` a non-negative integer and `after`
 * a string, when given. For `Store` implementations.
 *
 * @example
 * ```ts
 * checkStoreListOptions({ after: '00000041', limit: 100 }); // passes
 * checkStoreListOptions({ after: 41 as unknown as string }); // throws InvalidArgumentError naming `after`
 * ```
 */
export function checkStoreListOptions(options: { limit?: number; after?: string }): void {
  checkStoreLimit(options.limit);
  const { after } = options;
  if (after !== undefined && typeof after !== 'string') {
    throw new InvalidArgumentError('after', `expected the key to list after (a string), got ${after === null ? 'null' : typeof after}`);
  }
}
