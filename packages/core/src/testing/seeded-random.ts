// A small seeded PRNG for property and fuzz tests: a failure is reproduced by running again with its seed.

/**
 * A seeded pseudo-random source (mulberry32): `next()` in [0, 1), as
 * `Math.random` but repeatable, so a property or fuzz test that prints its
 * seed can be rerun on exactly the inputs that failed. Not for secrets.
 *
 * @example
 * ```ts
 * const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
 * console.log(`fuzz seed ${seed}`);
 * const random = seededRandom(seed);
 * const length = random.int(100);
 * ```
 */
export interface SeededRandom {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [0, max). */
  int(max: number): number;
  /** One of `items` (which must not be empty). */
  pick<T>(items: readonly T[]): T;
  /** `length` random bytes. */
  bytes(length: number): Buffer;
}

/** Creates a {@link SeededRandom} from a 32-bit seed. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]) => items[int(items.length)] as T,
    bytes: (length: number) => Buffer.from(Array.from({ length }, () => int(256))),
  };
}
