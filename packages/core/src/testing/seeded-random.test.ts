import { describe, expect, it } from 'vitest';
import { seededRandom } from '@troupe/core/testing';

describe('seededRandom', () => {
  it('repeats its sequence for a seed, differs for another, and stays in range', () => {
    const sequence = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => random.next());
    };
    expect(sequence(42)).toEqual(sequence(42));
    expect(sequence(43)).not.toEqual(sequence(42));
    const random = seededRandom(7);
    for (let index = 0; index < 1000; index++) {
      const value = random.next();
      expect(value >= 0 && value < 1).toBe(true);
      const whole = random.int(5);
      expect(Number.isInteger(whole) && whole >= 0 && whole < 5).toBe(true);
    }
    const seen = new Set(Array.from({ length: 200 }, () => random.pick(['a', 'b', 'c'])));
    expect([...seen].sort()).toEqual(['a', 'b', 'c']);
    expect(random.bytes(33)).toHaveLength(33);
    expect(seededRandom(1).bytes(16)).toEqual(seededRandom(1).bytes(16));
  });
});
