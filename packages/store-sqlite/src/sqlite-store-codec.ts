import { checkStoreNamespace, NAMESPACE_SEPARATOR, type Namespace } from '@troupe/core/store';

/**
 * Checks a namespace (and key) as every core `Store` does and encodes the
 * namespace as NUL-terminated UTF-8 segments: byte order is then namespace
 * order (a parent before its children), and a namespace with its children is
 * the key range `[encoded, upperBound(encoded))`.
 */
export function encodeNamespace(namespace: Namespace, key?: string): Buffer {
  return Buffer.from(`${checkStoreNamespace(namespace, key)}${NAMESPACE_SEPARATOR}`, 'utf8');
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
  return text.slice(0, -1).split(NAMESPACE_SEPARATOR);
}

