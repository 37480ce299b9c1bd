import { InvalidArgumentError, type Namespace } from '@troupe/core';

/**
 * Checks a namespace (and key) the way core's `MemoryStore` does and encodes
 * the namespace as NUL-terminated UTF-8 segments: byte order is then
 * namespace order (a parent before its children), and a namespace with its
 * children is the key range `[encoded, upperBound(encoded))`.
 */
export function encodeNamespace(namespace: Namespace, key?: string): Buffer {
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new InvalidArgumentError('namespace', 'expected a non-empty array of strings, e.g. ["looper", "state"]');
  }
  for (const segment of namespace) {
    if (typeof segment !== 'string' || segment === '' || segment.includes('\u0000')) {
      throw new InvalidArgumentError('namespace', `each segment must be a non-empty string without NUL, got ${JSON.stringify(segment)}`);
    }
  }
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new InvalidArgumentError('key', `expected a non-empty string, got ${JSON.stringify(key)}`);
  }
  return Buffer.from(`${namespace.join('\u0000')}\u0000`, 'utf8');
}

/** The first encoded namespace after `encoded` and all its children. */
export function namespaceUpperBound(encoded: Buffer): Buffer {
  const bound = Buffer.from(encoded);
  bound[bound.length - 1] = 0x01;
  return bound;
}

/** The segments of an encoded namespace. */
export function decodeNamespace(encoded: Uint8Array): string[] {
  const text = Buffer.from(encoded).toString('utf8');
  return text.slice(0, -1).split('\u0000');
}

/** Serializes a value as JSON, rejecting what JSON cannot hold (as `MemoryStore` does). */
export function encodeValue(value: unknown): string {
  if (value === undefined) throw new InvalidArgumentError('value', 'undefined cannot be stored; use delete()');
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError('value', `must be JSON-serializable (${(error as Error).message})`, { cause: error });
  }
  if (text === undefined) throw new InvalidArgumentError('value', `must be JSON-serializable (got ${typeof value})`);
  return text;
}
