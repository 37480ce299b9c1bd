/** Keys per chunk before it splits in two: small enough that inserting into one is a short copy. */
const CHUNK_SIZE = 512;

/** Index of the first element of sorted `values` that is `> bound` (or `>= bound` when `inclusive`). */
function searchIn(values: readonly string[], bound: string, inclusive: boolean): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const value = values[middle] as string;
    if (value < bound || (!inclusive && value === bound)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A set of strings kept in JavaScript string order, in chunks of at most
 * 512: adding, deleting and finding where a range starts cost O(log n)
 * plus a copy within one chunk, and adding past the largest key (the usual
 * case: zero-padded indexes, timestamps) appends. Iterating from a bound
 * visits only the keys it returns.
 *
 * @internal
 */
export class SortedKeys {
  private readonly chunks: string[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `key`; it must not be in the set yet (the caller's map knows). */
  add(key: string): void {
    this.count++;
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined) {
      this.chunks.push([key]);
      return;
    }
    if (key > (last[last.length - 1] as string)) {
      if (last.length < CHUNK_SIZE) last.push(key);
      else this.chunks.push([key]);
      return;
    }
    const index = this.chunkFor(key);
    const chunk = this.chunks[index] as string[];
    chunk.splice(searchIn(chunk, key, true), 0, key);
    if (chunk.length > CHUNK_SIZE) this.chunks.splice(index + 1, 0, chunk.splice(CHUNK_SIZE >>> 1));
  }

  /** Removes `key`; it must be in the set. */
  delete(key: string): void {
    const index = this.chunkFor(key);
    const chunk = this.chunks[index];
    if (chunk === undefined) return;
    const at = searchIn(chunk, key, true);
    if (chunk[at] !== key) return;
    this.count--;
    chunk.splice(at, 1);
    if (chunk.length === 0) this.chunks.splice(index, 1);
  }

  /** Keys after `bound` (or from it, when `inclusive`), in order; all keys without a bound. */
  *from(bound?: string, inclusive = false): Generator<string, void, undefined> {
    let index = bound === undefined ? 0 : this.chunkFor(bound, inclusive);
    let at = bound === undefined || index >= this.chunks.length ? 0 : searchIn(this.chunks[index] as string[], bound, inclusive);
    for (; index < this.chunks.length; index++, at = 0) {
      const chunk = this.chunks[index] as string[];
      for (; at < chunk.length; at++) yield chunk[at] as string;
    }
  }

  /** Index of the first chunk whose last key is `>= key` (`> key` when not `inclusive`); `chunks.length` when none. */
  private chunkFor(key: string, inclusive = true): number {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = this.chunks[middle] as string[];
      const last = chunk[chunk.length - 1] as string;
      if (last < key || (!inclusive && last === key)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
