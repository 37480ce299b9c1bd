import { InvalidArgumentError } from '@troupe/core/errors';

/** z for a two-sided 95% interval: the 0.975 quantile of the standard normal distribution. */
export const Z_95 = 1.959963984540054;

/** A proportion with its confidence interval. */
export interface ProportionInterval {
  /** successes / trials; 0 when there are no trials. */
  rate: number;
  /** Lower bound of the interval. */
  low: number;
  /** Upper bound of the interval. */
  high: number;
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(name, `expected a whole number ≥ 0, got ${String(value)}`);
}

/**
 * The Wilson score interval of `successes` out of `trials` (95% by default). Unlike the normal ("Wald") interval
 * it stays inside [0, 1] and is not zero-width at 0 or n successes, which is exactly where small evals land (3/3
 * solved is not 100% ± 0). With no trials it is the whole [0, 1].
 *
 * @throws InvalidArgumentError for counts that are not whole numbers, or more successes than trials.
 * @example
 * ```ts
 * wilsonInterval(7, 10); // { rate: 0.7, low: 0.3968…, high: 0.8922… }
 * ```
 */
export function wilsonInterval(successes: number, trials: number, z: number = Z_95): ProportionInterval {
  checkCount('successes', successes);
  checkCount('trials', trials);
  if (successes > trials) throw new InvalidArgumentError('successes', `${successes} successes out of ${trials} trials`);
  if (trials === 0) return { rate: 0, low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  // At 0 or n successes the bound is exactly 0 or 1 (the formula gives it up to rounding).
  return { rate: p, low: successes === 0 ? 0 : Math.max(0, center - half), high: successes === trials ? 1 : Math.min(1, center + half) };
}

/**
 * The unbiased estimator of pass@k for one task from `trials` samples of which `passes` passed:
 * 1 − C(n−c, k) / C(n, k), the chance that at least one of k samples drawn without replacement passes (Chen et
 * al. 2021). Computed as a product, so it stays exact for large n.
 *
 * @throws InvalidArgumentError when k is not in 1..trials or the counts are wrong.
 */
export function passAtK(trials: number, passes: number, k: number): number {
  checkCount('trials', trials);
  checkCount('passes', passes);
  if (passes > trials) throw new InvalidArgumentError('passes', `${passes} passes out of ${trials} trials`);
  if (!Number.isSafeInteger(k) || k < 1 || k > trials) throw new InvalidArgumentError('k', `expected 1 ≤ k ≤ ${trials} (the trials of the task), got ${String(k)}`);
  if (trials - passes < k) return 1;
  // C(n−c, k) / C(n, k) = Π_{i = n−c+1}^{n} (1 − k / i)
  let ratio = 1;
  for (let i = trials - passes + 1; i <= trials; i += 1) ratio *= 1 - k / i;
  return 1 - ratio;
}

/** The exact binomial coefficient. */
function binomial(n: number, k: number): bigint {
  let result = 1n;
  for (let i = 1; i <= k; i += 1) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/** The result of {@link exactMcNemar}. */
export interface PairedComparison {
  /** Pairs where both passed. */
  bothPass: number;
  /** Pairs where only the first configuration passed. */
  onlyFirst: number;
  /** Pairs where only the second configuration passed. */
  onlySecond: number;
  /** Pairs where both failed. */
  bothFail: number;
  /** Two-sided exact p-value (sign test on the discordant pairs); 1 when there are none. */
  pValue: number;
}

/**
 * The exact McNemar test of two configurations run on the same items: only the discordant pairs count, and under
 * "no difference" each one is a fair coin, so the two-sided p-value is 2 · P(X ≤ min(b, c)) for X ~ Bin(b + c, ½),
 * capped at 1. Exact (big-integer sums), so it is right for the small counts of an eval, where the χ²
 * approximation is not.
 *
 * @example
 * ```ts
 * exactMcNemar([[true, false], [true, false], [false, false], [true, true]]).pValue; // 0.5
 * ```
 */
export function exactMcNemar(pairs: Iterable<readonly [boolean, boolean]>): PairedComparison {
  const counts = { bothPass: 0, onlyFirst: 0, onlySecond: 0, bothFail: 0 };
  for (const [first, second] of pairs) {
    if (first && second) counts.bothPass += 1;
    else if (first) counts.onlyFirst += 1;
    else if (second) counts.onlySecond += 1;
    else counts.bothFail += 1;
  }
  return { ...counts, pValue: signTestPValue(counts.onlyFirst, counts.onlySecond) };
}

/** Two-sided exact sign-test p-value for `b` and `c` discordant outcomes. */
export function signTestPValue(b: number, c: number): number {
  checkCount('b', b);
  checkCount('c', c);
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0n;
  for (let i = 0; i <= Math.min(b, c); i += 1) tail += binomial(n, i);
  const scale = 10n ** 18n;
  const p = Number((2n * tail * scale) / 2n ** BigInt(n)) / 1e18;
  return Math.min(1, p);
}

/** A cost or time divided by the tasks solved; undefined when none was solved (it is not a number then, not 0 or ∞). */
export function perSolved(total: number, solved: number): number | undefined {
  return solved > 0 ? total / solved : undefined;
}
