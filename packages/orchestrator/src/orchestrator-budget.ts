import { checkUsageBudgetLimits, UsageBudget, UsageLedger, type UsageBudgetLimits } from '@troupe/usage';
import { type EventBus } from '@troupe/core';

/**
 * @internal One budget per agent tree (a root agent and everything it
 * forks): counts the tree's spending from the ledger and, once a cap is
 * reached, terminates the root (which ends the whole tree) with the reason.
 */
export class TreeBudgets {
  private readonly budgets = new Map<string, UsageBudget>();

  constructor(
    private readonly limits: UsageBudgetLimits,
    private readonly bus: EventBus,
    private readonly ledger: UsageLedger | undefined,
    private readonly terminate: (rootId: string, reason: string) => void,
  ) {}

  /** Validates the orchestrator's `budget` option. */
  static create(budget: unknown, bus: EventBus, ledger: UsageLedger | undefined, terminate: (rootId: string, reason: string) => void): TreeBudgets | undefined {
    const limits = checkUsageBudgetLimits(budget);
    return limits ? new TreeBudgets(limits, bus, ledger, terminate) : undefined;
  }

  /** A root agent was created: its tree gets a budget. */
  start(rootId: string): void {
    if (this.budgets.has(rootId)) return;
    const budget = new UsageBudget({ run: { kind: 'orchestrator', id: rootId }, ledger: this.ledger ?? UsageLedger.forBus(this.bus), eventBus: this.bus, ...this.limits });
    budget.signal.addEventListener('abort', () => this.terminate(rootId, budget.reason ?? 'budget reached'), { once: true });
    this.budgets.set(rootId, budget);
  }

  /** The root ended: stop counting. */
  end(rootId: string): void {
    this.budgets.get(rootId)?.dispose();
    this.budgets.delete(rootId);
  }
}
