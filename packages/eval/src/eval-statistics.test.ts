import { describe, expect, it } from 'vitest';
import { exactMcNemar, passAtK, perSolved, signTestPValue, wilsonInterval } from './index';

// Every expected value below was computed by hand (z = 1.959964, z² = 3.841459) and agrees with published tables.
describe('wilsonInterval', () => {
  it('7 of 10: [0.3968, 0.8922]', () => {
    const { rate, low, high } = wilsonInterval(7, 10);
    expect(rate).toBe(0.7);
    expect(low).toBeCloseTo(0.39678, 4);
    expect(high).toBeCloseTo(0.89221, 4);
  });
  it('5 of 10: [0.2366, 0.7634], symmetric around one half', () => {
    const { low, high } = wilsonInterval(5, 10);
    expect(low).toBeCloseTo(0.23659, 4);
    expect(high).toBeCloseTo(0.76341, 4);
  });
  it('0 and 10 of 10: exactly 0 (or 1) at the edge, 0.2775 wide', () => {
    expect(wilsonInterval(0, 10)).toEqual({ rate: 0, low: 0, high: expect.closeTo(0.27753, 4) });
    expect(wilsonInterval(10, 10)).toEqual({ rate: 1, low: expect.closeTo(0.72247, 4), high: 1 });
  });
  it('no trials: the whole interval; bad counts are refused', () => {
    expect(wilsonInterval(0, 0)).toEqual({ rate: 0, low: 0, high: 1 });
    expect(() => wilsonInterval(3, 2)).toThrow(/3 successes out of 2 trials/);
    expect(() => wilsonInterval(1.5, 2)).toThrow(/successes.*whole number/);
  });
});

describe('passAtK', () => {
  it('is 1 − C(n−c,k)/C(n,k)', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12);
    expect(passAtK(3, 1, 1)).toBeCloseTo(1 / 3, 12);
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    expect(passAtK(4, 0, 2)).toBe(0);
    expect(passAtK(3, 2, 2)).toBe(1);
  });
  it('refuses k outside 1..n', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(/1 ≤ k ≤ 3/);
    expect(() => passAtK(3, 1, 0)).toThrow(/k/);
  });
});

describe('exactMcNemar / signTestPValue', () => {
  it('counts the four kinds of pairs and gives the exact two-sided p-value', () => {
    const pairs: [boolean, boolean][] = [
      ...Array.from({ length: 5 }, () => [true, false] as [boolean, boolean]),
      [false, true],
      [true, true],
      [false, false],
      [false, false],
    ];
    // b = 5, c = 1: 2 · (C(6,0) + C(6,1)) / 2⁶ = 14 / 64
    expect(exactMcNemar(pairs)).toEqual({ bothPass: 1, onlyFirst: 5, onlySecond: 1, bothFail: 2, pValue: 14 / 64 });
  });
  it('hand values: 3–0 is 0.25, 6–0 is 1/32, 2–2 is capped at 1, no discordant pair is 1', () => {
    expect(signTestPValue(3, 0)).toBe(0.25);
    expect(signTestPValue(0, 6)).toBe(1 / 32);
    expect(signTestPValue(2, 2)).toBe(1);
    expect(signTestPValue(0, 0)).toBe(1);
  });
  it('stays exact far past where floating binomials overflow', () => {
    // b = c: the two tails cover everything and more, so the p-value is 1; 0 vs 1100 is 2 / 2¹¹⁰⁰, which is 0 in a double.
    expect(signTestPValue(600, 600)).toBe(1);
    expect(signTestPValue(0, 1100)).toBe(0);
    // 2 · Σ_{i≤10} C(40,i) / 2⁴⁰, from Python's exact math.comb.
    expect(signTestPValue(10, 30)).toBeCloseTo(0.00222143377, 10);
  });
});

describe('perSolved', () => {
  it('divides by the solved tasks, and is undefined when none was solved', () => {
    expect(perSolved(3, 2)).toBe(1.5);
    expect(perSolved(3, 0)).toBeUndefined();
  });
});
