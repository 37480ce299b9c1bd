import { describe, expect, it } from 'vitest';
import { EventBus, withEventScope, type AnyTroupeEvent } from '@troupe/core';
import { UsageBudget, UsageLedger, checkUsageBudgetLimits, findModelPrice, defaultModelPrices } from './index';

describe('UsageBudget', () => {
  it('warns once at 80% of a cap, then reports it exceeded with a clear reason and aborts its signal', () => {
    const bus = new EventBus();
    const ledger = new UsageLedger({ eventBus: bus });
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => {
      if (event.type.startsWith('usage:budget')) events.push(event);
    });
    const run = { kind: 'looper', id: 'looper/run-1' };
    const budget = new UsageBudget({ run, ledger, eventBus: bus, maxCostUsd: 1, maxTokens: 10_000 });
    const spend = (costUsd: number, tokens: number) =>
      withEventScope({ bus, run }, () => ledger.record({ kind: 'agent-turn', source: 'claude', reportedCostUsd: costUsd, inputTokens: tokens }));
    spend(0.5, 100);
    // Another run's spending does not count.
    ledger.record({ kind: 'agent-turn', source: 'claude', reportedCostUsd: 5, inputTokens: 100 });
    expect(budget.exceeded).toBe(false);
    spend(0.3, 100);
    expect(events.map((e) => e.type)).toEqual(['usage:budget-warning']);
    expect(events[0]?.payload).toMatchObject({ run, limit: 'cost', max: 1 });
    spend(0.05, 100);
    expect(events).toHaveLength(1);
    spend(0.2, 100);
    expect(budget.exceeded).toBe(true);
    expect(budget.signal.aborted).toBe(true);
    expect(budget.reason).toBe('cost budget reached: $1.0500 spent of $1 (looper looper/run-1)');
    expect(events.map((e) => e.type)).toEqual(['usage:budget-warning', 'usage:budget-exceeded']);
    expect(budget.used).toEqual({ tokens: 400, costUsd: expect.closeTo(1.05, 10) });
    budget.dispose();
    ledger.dispose();
  });

  it('counts what the run spent before it was created, and usage fed directly', () => {
    const ledger = new UsageLedger();
    const run = { kind: 'team', id: 'c-1' };
    withEventScope({ run }, () => ledger.record({ kind: 'agent-turn', source: 'codex', inputTokens: 900 }));
    const budget = new UsageBudget({ run, ledger, maxTokens: 1000 });
    expect(budget.used.tokens).toBe(900);
    budget.add({ tokens: 100 });
    expect(budget.reason).toBe('token budget reached: 1000 tokens used of 1000 (team c-1)');
    ledger.dispose();
  });

  it('rejects caps that are not positive numbers, naming the field', () => {
    expect(() => checkUsageBudgetLimits({ maxCostUsd: 0 })).toThrow(/budget\.maxCostUsd/);
    expect(() => checkUsageBudgetLimits({ maxTokens: 'many' })).toThrow(/budget\.maxTokens/);
    expect(() => checkUsageBudgetLimits({})).toThrow(/maxCostUsd, maxTokens or both/);
    expect(() => new UsageBudget({ run: { kind: '', id: 'x' }, maxTokens: 1 })).toThrow(/run/);
    expect(checkUsageBudgetLimits(undefined)).toBeUndefined();
  });
});

describe('price table', () => {
  it('matches exact ids and dated or tagged variants, not other models sharing a prefix', () => {
    expect(findModelPrice(defaultModelPrices, 'claude-sonnet-4-5-20250929')).toBe(defaultModelPrices['claude-sonnet-4-5']);
    expect(findModelPrice(defaultModelPrices, 'anthropic/Claude-Haiku-4-5')).toBe(defaultModelPrices['claude-haiku-4-5']);
    expect(findModelPrice(defaultModelPrices, 'gpt-5-mini-2025-08-07')).toBe(defaultModelPrices['gpt-5-mini']);
    expect(findModelPrice(defaultModelPrices, 'gpt-5.5')).toBeUndefined();
    expect(findModelPrice(defaultModelPrices, undefined)).toBeUndefined();
  });
});
