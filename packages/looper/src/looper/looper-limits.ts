import { InvalidArgumentError } from '@troupe/core';
import type { LooperOptions, LooperStepTimeouts } from './looper-options';

const DEFAULT_TIMEOUTS: Required<LooperStepTimeouts> = { coder: 15 * 60_000, review: 10 * 60_000, judge: 2 * 60_000 };

/** A Looper's numeric limits, checked, with their defaults. */
export interface LooperLimits {
  timeouts: Required<LooperStepTimeouts>;
  maxIterations: number;
  maxOutputChars: number;
}

/**
 * Reads `stepTimeoutMs` (one number for every step, or per step),
 * `maxIterations` (default 5) and `maxOutputChars` (default 4,000).
 *
 * @throws InvalidArgumentError naming the option that is not a positive integer.
 */
export function resolveLooperLimits(options: Pick<LooperOptions, 'stepTimeoutMs' | 'maxIterations' | 'maxOutputChars'>): LooperLimits {
  const timeouts = typeof options.stepTimeoutMs === 'number' ? { coder: options.stepTimeoutMs, review: options.stepTimeoutMs, judge: options.stepTimeoutMs } : (options.stepTimeoutMs ?? {});
  return {
    timeouts: {
      coder: positiveInteger(timeouts.coder, 'stepTimeoutMs.coder') ?? DEFAULT_TIMEOUTS.coder,
      review: positiveInteger(timeouts.review, 'stepTimeoutMs.review') ?? DEFAULT_TIMEOUTS.review,
      judge: positiveInteger(timeouts.judge, 'stepTimeoutMs.judge') ?? DEFAULT_TIMEOUTS.judge,
    },
    maxIterations: positiveInteger(options.maxIterations, 'maxIterations') ?? 5,
    maxOutputChars: positiveInteger(options.maxOutputChars, 'maxOutputChars') ?? 4000,
  };
}

function positiveInteger(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(typeof value === 'number' && Number.isInteger(value) && value > 0)) {
    throw new InvalidArgumentError(what, `expected a positive integer, got ${String(value)}`);
  }
  return value;
}
