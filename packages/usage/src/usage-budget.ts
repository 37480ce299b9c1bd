import { InvalidArgumentError } from '@troupe/core';
import type { EventBus, Unsubscribe } from '@troupe/core';
import type { EventScopeRun } from '@troupe/core';
import type { UsageLedger } from './usage-ledger';

/** Spending caps of one run. At least one is needed. */
export interface UsageBudgetLimits {
  /** US dollars (reported by CLIs, or priced from the ledger's price table). */
  maxCostUsd?: number;
  /** Input + output tokens. */
  maxTokens?: number;
}

/** Options for {@link UsageBudget}. */
export interface UsageBudgetOptions extends UsageBudgetLimits {
  /** The run the budget caps (its records are counted). */
  run: EventScopeRun;
  /** Counts this ledger's records of `run` (the ones already there too). Without it, feed the budget with `add`. */
  ledger?: UsageLedger;
  /** Receives `usage:budget-warning` and `usage:budget-exceeded`. */
  eventBus?: EventBus;
  /** Fraction of a cap at which the warning is emitted. Default 0.8. */
  warnAt?: number;
}

/** Spent so far. */
export interface UsageBudgetSpent {
  tokens: number;
  costUsd: number;
}

/**
 * Validates budget caps given to a runner (`budget: { maxCostUsd, maxTokens }`).
 * Returns undefined for `undefined`.
 *
 * @throws InvalidArgumentError naming the bad field.
 */
export function checkUsageBudgetLimits(value: unknown, what = 'budget'): UsageBudgetLimits | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') throw new InvalidArgumentError(what, 'expected { maxCostUsd?, maxTokens? }');
  const { maxCostUsd, maxTokens } = value as Record<string, unknown>;
  if (maxCostUsd === undefined && maxTokens === undefined) throw new InvalidArgumentError(what, 'give maxCostUsd, maxTokens or both');
  for (const [field, limit] of [['maxCostUsd', maxCostUsd], ['maxTokens', maxTokens]] as const) {
    if (limit !== undefined && !(typeof limit === 'number' && Number.isFinite(limit) && limit > 0)) {
      throw new InvalidArgumentError(`${what}.${field}`, `expected a number > 0, got ${JSON.stringify(limit)}`);
    }
  }
  return { ...(maxCostUsd !== undefined ? { maxCostUsd: maxCostUsd as number } : {}), ...(maxTokens !== undefined ? { maxTokens: maxTokens as number } : {}) };
}

/**
 * A cost and/or token cap on one run. It counts the run's usage (from the
 * ledger, or fed with {@link UsageBudget.add}), emits `usage:budget-warning`
 * once a cap is 80% used, and `usage:budget-exceeded` when one is reached;
 * then {@link UsageBudget.exceeded} is true, {@link UsageBudget.reason}
 * says why and {@link UsageBudget.signal} aborts. The runner stops the run
 * at its next safe point (the Looper after the current step).
 *
 * @example
 * ```ts
 * const budget = new UsageBudget({ run: { kind: 'looper', id: 'looper/run-1' }, ledger, eventBus: bus, maxCostUsd: 2 });
 * // … after each step:
 * if (budget.exceeded) return stop(budget.reason);
 * budget.dispose();
 * ```
 */
export class UsageBudget {
  readonly run: EventScopeRun;
  readonly limits: Readonly<UsageBudgetLimits>;
  private readonly spent: UsageBudgetSpent = { tokens: 0, costUsd: 0 };
  private readonly warned = new Set<'cost' | 'tokens'>();
  private readonly controller = new AbortController();
  private readonly warnAt: number;
  private exceededReason: string | undefined;
  private unsubscribe: Unsubscribe | undefined;

  /** @throws InvalidArgumentError for bad caps, run or `warnAt`. */
  constructor(private readonly options: UsageBudgetOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { run, maxCostUsd?, maxTokens?, … }');
    this.limits = checkUsageBudgetLimits({ maxCostUsd: options.maxCostUsd, maxTokens: options.maxTokens }) as UsageBudgetLimits;
    const run = options.run;
    if (!run || typeof run.kind !== 'string' || run.kind === '' || typeof run.id !== 'string' || run.id === '') {
      throw new InvalidArgumentError('run', 'expected { kind, id } of the run the budget caps');
    }
    this.run = { kind: run.kind, id: run.id };
    const warnAt = options.warnAt ?? 0.8;
    if (!(typeof warnAt === 'number' && warnAt > 0 && warnAt <= 1)) throw new InvalidArgumentError('warnAt', `expected a fraction in (0, 1], got ${String(warnAt)}`);
    this.warnAt = warnAt;
    const { ledger } = options;
    if (ledger) {
      const before = ledger.totals({ run: this.run });
      this.add({ tokens: before.totalTokens, costUsd: before.costUsd });
      this.unsubscribe = ledger.subscribe((record) => {
        if (record.runs[this.run.kind] === this.run.id) this.add({ tokens: record.inputTokens + record.outputTokens, costUsd: record.costUsd });
      });
    }
  }

  /** Spent so far by the run. */
  get used(): UsageBudgetSpent {
    return { ...this.spent };
  }

  /** True once a cap is reached. */
  get exceeded(): boolean {
    return this.exceededReason !== undefined;
  }

  /** Why the budget is exceeded (for people), once it is. */
  get reason(): string | undefined {
    return this.exceededReason;
  }

  /** Aborts (with the reason) when the budget is exceeded. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Counts usage the budget did not get from a ledger. */
  add(usage: Partial<UsageBudgetSpent>): void {
    this.spent.tokens += Math.max(0, usage.tokens ?? 0);
    this.spent.costUsd += Math.max(0, usage.costUsd ?? 0);
    this.check('cost', this.spent.costUsd, this.limits.maxCostUsd);
    this.check('tokens', this.spent.tokens, this.limits.maxTokens);
  }

  /** Stops counting. */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private check(limit: 'cost' | 'tokens', used: number, max: number | undefined): void {
    if (max === undefined || this.exceededReason !== undefined) return;
    const bus = this.options.eventBus;
    const timestamp = Date.now();
    if (used >= max * this.warnAt && !this.warned.has(limit)) {
      this.warned.add(limit);
      bus?.emit('usage:budget-warning', { run: this.run, limit, used, max, fraction: used / max, timestamp });
    }
    if (used < max) return;
    const reason =
      limit === 'cost'
        ? `cost budget reached: $${used.toFixed(4)} spent of $${max} (${this.run.kind} ${this.run.id})`
        : `token budget reached: ${used} tokens used of ${max} (${this.run.kind} ${this.run.id})`;
    this.exceededReason = reason;
    bus?.emit('usage:budget-exceeded', { run: this.run, limit, used, max, reason, timestamp });
    this.controller.abort(new Error(reason));
  }
}
