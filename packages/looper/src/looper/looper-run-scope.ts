import { checkUsageBudgetLimits, UsageBudget, UsageLedger, type UsageBudgetLimits } from '@troupe/usage';
import { InvalidArgumentError, type EventBus, type EventScopeRun } from '@troupe/core';

/** The usage run of a Looper run: its tokens and cost are totalled (and capped) under it. */
export function looperUsageRun(looperId: string, runId: string): EventScopeRun {
  return { kind: 'looper', id: `${looperId}/${runId}` };
}

/**
 * @internal Validates the Looper's `budget` option (a budget needs the bus
 * its members report usage on).
 */
export function checkLooperBudget(budget: unknown, bus: EventBus | undefined): UsageBudgetLimits | undefined {
  const limits = checkUsageBudgetLimits(budget);
  if (limits && !bus) throw new InvalidArgumentError('budget', 'a budget counts the usage reported on the event bus: give the Looper an eventBus');
  return limits;
}

/** @internal Starts counting a run's spending against its caps (the bus's ledger, or the given one). */
export function startLooperBudget(
  limits: UsageBudgetLimits | undefined,
  bus: EventBus | undefined,
  ledger: UsageLedger | undefined,
  run: EventScopeRun,
): UsageBudget | undefined {
  if (!limits || !bus) return undefined;
  return new UsageBudget({ run, ledger: ledger ?? UsageLedger.forBus(bus), eventBus: bus, ...limits });
}
