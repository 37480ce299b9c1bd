import { InvalidArgumentError } from '../errors/invalid-argument-error';

/**
 * Tuning of the `"adaptive"` interval. The rule, applied after each
 * iteration to `n`, the number of perceptions its Sense phase produced
 * (after processing; 0 when Sense failed):
 *
 * - `n <= fewPerceptions`  → `maxSeconds` (quiet: look less often)
 * - `n >= manyPerceptions` → `minSeconds` (busy: look again soon)
 * - in between, linear: `maxSeconds - (n - few) / (many - few) * (maxSeconds - minSeconds)`
 *
 * With the defaults (0.5 s, 5 s, few 0, many 10): 0 → 5 s, 1 → 4.55 s,
 * 5 → 2.75 s, 10 or more → 0.5 s.
 */
export interface AdaptiveIntervalOptions {
  /** Shortest wait, when perceptions are many. Default 0.5 s. */
  minSeconds?: number;
  /** Longest wait, when perceptions are few. Default 5 s. */
  maxSeconds?: number;
  /** At or below this count the wait is `maxSeconds`. Default 0. */
  fewPerceptions?: number;
  /** At or above this count the wait is `minSeconds`. Default 10. */
  manyPerceptions?: number;
}

/**
 * How long the loop waits after an iteration: a fixed number of **seconds**
 * (as `agent.loop_interval` in the config file; `0` = no delay), `"adaptive"`,
 * or `{ mode: 'adaptive', ...tuning }`.
 */
export type LoopIntervalSetting = number | 'adaptive' | ({ mode: 'adaptive' } & AdaptiveIntervalOptions);

/** A resolved interval setting. */
export interface LoopIntervalPolicy {
  readonly mode: 'fixed' | 'adaptive';
  /** Milliseconds to wait after an iteration that produced `perceptionCount` perceptions. 0 = only yield to the event loop. */
  delayMs(perceptionCount: number): number;
  /** The setting, for display. */
  describe(): string;
}

/** Default adaptive tuning. */
export const defaultAdaptiveInterval: Required<AdaptiveIntervalOptions> = Object.freeze({
  minSeconds: 0.5,
  maxSeconds: 5,
  fewPerceptions: 0,
  manyPerceptions: 10,
});

/**
 * The adaptive wait, in seconds, after an iteration with `perceptionCount`
 * perceptions (see {@link AdaptiveIntervalOptions} for the rule).
 *
 * @example
 * ```ts
 * adaptiveIntervalSeconds(0);  // 5
 * adaptiveIntervalSeconds(5);  // 2.75
 * adaptiveIntervalSeconds(42); // 0.5
 * ```
 */
export function adaptiveIntervalSeconds(perceptionCount: number, options: AdaptiveIntervalOptions = {}): number {
  return adaptiveSeconds(perceptionCount, { ...defaultAdaptiveInterval, ...options });
}

function adaptiveSeconds(perceptionCount: number, { minSeconds, maxSeconds, fewPerceptions, manyPerceptions }: Required<AdaptiveIntervalOptions>): number {
  if (perceptionCount <= fewPerceptions) return maxSeconds;
  if (perceptionCount >= manyPerceptions) return minSeconds;
  const fraction = (perceptionCount - fewPerceptions) / (manyPerceptions - fewPerceptions);
  return maxSeconds - fraction * (maxSeconds - minSeconds);
}

function checkSeconds(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(what, `expected a number of seconds >= 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Validates an interval setting and returns its policy.
 *
 * @throws InvalidArgumentError naming the bad field.
 */
export function resolveLoopInterval(setting: LoopIntervalSetting): LoopIntervalPolicy {
  if (typeof setting === 'number') {
    const ms = checkSeconds(setting, 'interval') * 1000;
    return { mode: 'fixed', delayMs: () => ms, describe: () => `${setting}s` };
  }
  if (setting !== 'adaptive' && (typeof setting !== 'object' || setting === null || setting.mode !== 'adaptive')) {
    throw new InvalidArgumentError('interval', `expected seconds (a number >= 0), "adaptive" or { mode: "adaptive", … }, got ${JSON.stringify(setting)}`);
  }
  const tuning: AdaptiveIntervalOptions = setting === 'adaptive' ? {} : setting;
  const options: Required<AdaptiveIntervalOptions> = { ...defaultAdaptiveInterval };
  for (const key of ['minSeconds', 'maxSeconds', 'fewPerceptions', 'manyPerceptions'] as const) {
    if (tuning[key] !== undefined) options[key] = checkSeconds(tuning[key], `interval.${key}`);
  }
  if (options.minSeconds > options.maxSeconds) {
    throw new InvalidArgumentError('interval.minSeconds', `must not exceed maxSeconds (${options.minSeconds} > ${options.maxSeconds})`);
  }
  if (options.fewPerceptions >= options.manyPerceptions) {
    throw new InvalidArgumentError(
      'interval.fewPerceptions',
      `must be below manyPerceptions (${options.fewPerceptions} >= ${options.manyPerceptions})`,
    );
  }
  return {
    mode: 'adaptive',
    delayMs: (perceptionCount) => adaptiveSeconds(perceptionCount, options) * 1000,
    describe: () => `adaptive ${options.minSeconds}–${options.maxSeconds}s`,
  };
}
