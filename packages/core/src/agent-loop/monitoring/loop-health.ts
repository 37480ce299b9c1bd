import { InvalidArgumentError } from '../../errors/invalid-argument-error';
import type { SerializedError } from '../../events/event-map';
import type { LoopLogger } from '../../loop/loop-logger';

/**
 * What the loop does when `maxConsecutiveFailures` iterations in a row fail
 * (after publishing a `loop:health` alert):
 * - `recover`: runs the `recover` hook (default: tear every stage down and
 *   set it up again), reports `recovered` or `recovery-failed`, and starts
 *   counting failures from zero;
 * - `backoff`: waits `initialMs`, then twice as long after each further
 *   failure (up to `maxMs`), until an iteration succeeds;
 * - `stop`: stops the loop (state saved).
 */
export type LoopHealthAction = 'recover' | 'backoff' | 'stop';

/** What a `recover` hook receives. */
export interface LoopRecoverContext {
  readonly loopId: string;
  readonly consecutiveFailures: number;
  readonly lastError: SerializedError | undefined;
  readonly signal: AbortSignal;
  readonly logger: LoopLogger;
}

/** Health-check policy of an `AgentLoop`. */
export interface LoopHealthOptions {
  /** Failed iterations in a row that make the loop unhealthy. Default 5. */
  maxConsecutiveFailures?: number;
  /** What to do then. Default `recover`. */
  action?: LoopHealthAction;
  /** Recovery hook for the `recover` action. Default: re-initialise the stages (teardown, then setup). */
  recover?: (context: LoopRecoverContext) => void | Promise<void>;
  /** Back-off tuning for the `backoff` action. */
  backoff?: {
    /** First wait, in ms. Default 1000. */
    initialMs?: number;
    /** Longest wait, in ms. Default 60000. */
    maxMs?: number;
    /** Growth per further failure. Default 2. */
    factor?: number;
  };
}

/** A validated health policy. */
export interface ResolvedLoopHealth {
  maxConsecutiveFailures: number;
  action: LoopHealthAction;
  recover: LoopHealthOptions['recover'];
  initialMs: number;
  maxMs: number;
  factor: number;
}

/** Validates health options. @throws InvalidArgumentError naming the bad field. */
export function resolveLoopHealth(options: LoopHealthOptions = {}): ResolvedLoopHealth {
  const max = options.maxConsecutiveFailures ?? 5;
  if (!Number.isInteger(max) || max < 1) {
    throw new InvalidArgumentError('health.maxConsecutiveFailures', `expected a whole number >= 1, got ${String(max)}`);
  }
  const action = options.action ?? 'recover';
  if (action !== 'recover' && action !== 'backoff' && action !== 'stop') {
    throw new InvalidArgumentError('health.action', `expected "recover", "backoff" or "stop", got ${JSON.stringify(action)}`);
  }
  if (options.recover !== undefined && typeof options.recover !== 'function') {
    throw new InvalidArgumentError('health.recover', 'expected a function');
  }
  const initialMs = options.backoff?.initialMs ?? 1000;
  const maxMs = options.backoff?.maxMs ?? 60_000;
  const factor = options.backoff?.factor ?? 2;
  for (const [name, value] of [['initialMs', initialMs], ['maxMs', maxMs], ['factor', factor]] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < (name === 'factor' ? 1 : 0)) {
      throw new InvalidArgumentError(`health.backoff.${name}`, `expected a number >= ${name === 'factor' ? 1 : 0}, got ${String(value)}`);
    }
  }
  return { maxConsecutiveFailures: max, action, recover: options.recover, initialMs, maxMs: Math.max(maxMs, initialMs), factor };
}

/** The back-off wait after `failuresBeyond` failures past the threshold (0 = the alert itself). */
export function loopBackoffMs(health: ResolvedLoopHealth, failuresBeyond: number): number {
  return Math.min(health.maxMs, health.initialMs * health.factor ** failuresBeyond);
}
