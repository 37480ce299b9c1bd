import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MessageStore, type AnyTroupeEvent } from '@troupe/core';
import { UsageLedger } from '@troupe/usage';
import { withFakeAgentCli } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Looper } from './looper';
import { critical, scriptedReviewer } from './looper-test-helpers';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A Looper whose Coder is Claude Code replaying its recorded `text` turn (it reports $0.000208 a turn), on a bus with a ledger. */
function looperWithBudget(budget: { maxCostUsd?: number; maxTokens?: number }) {
  const bus = new EventBus();
  const ledger = new UsageLedger({ eventBus: bus });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/text.stdout.jsonl') }) });
  const manager = new AgentManager({ adapters, eventBus: bus });
  const looper = new Looper({
    coder: { configId: 'claude' },
    review: scriptedReviewer(critical()).agent, // JUDGE's rules keep going while the review is critical
    agentManager: manager,
    eventBus: bus,
    messages: new MessageStore(bus),
    maxIterations: 5,
    budget,
  });
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => {
    if (/^(looper|usage):/.test(event.type) && event.type !== 'usage:recorded') events.push(event);
  });
  cleanups.push(() => manager.cleanup(), () => ledger.dispose());
  return { looper, ledger, events };
}

describe('Looper budgets', () => {
  it('warns at 80% of the cost cap, then ends the run right after the step that reached it, with the reason', async () => {
    const { looper, ledger, events } = looperWithBudget({ maxCostUsd: 0.00045 });
    looper.command({ type: 'start', task: 'Say hello' });
    await looper.whenIdle();

    const status = looper.getStatus();
    expect(status.lastRun).toMatchObject({ outcome: 'budget-exceeded', iterations: 3 });
    expect(status.lastRun?.reason).toBe("Stopped: the run's budget is used up (cost budget reached: $0.0006 spent of $0.00045 (looper looper/run-1)).");
    const seen = events.map((event) =>
      event.type === 'looper:step-completed' || event.type === 'looper:step-started' ? `${event.type} ${event.payload.iteration}/${event.payload.step}` : event.type,
    );
    // Iteration 2's Coder turn brings it to 92% (warning); iteration 3's reaches it: no Review, no JUDGE after that step.
    const warning = seen.indexOf('usage:budget-warning');
    const exceeded = seen.indexOf('usage:budget-exceeded');
    expect(seen.slice(warning - 1, warning + 2)).toEqual(['looper:step-started 2/coder', 'usage:budget-warning', 'looper:step-completed 2/coder']);
    expect(seen.slice(exceeded - 1)).toEqual([
      'looper:step-started 3/coder',
      'usage:budget-exceeded',
      'looper:step-completed 3/coder',
      'looper:state-changed',
      'looper:run-finished',
    ]);
    expect(events.find((e) => e.type === 'usage:budget-warning')?.payload).toMatchObject({ limit: 'cost', max: 0.00045, used: expect.closeTo(0.000416, 9) });
    expect(events.find((e) => e.type === 'looper:run-finished')?.payload).toMatchObject({ outcome: 'budget-exceeded', iterations: 3 });

    // The ledger has the three Coder turns, charged to the Coder and the run.
    expect(ledger.totalsBy('agent')).toEqual({ 'looper-coder': expect.objectContaining({ records: 3, costUsd: expect.closeTo(0.000624, 9) }) });
    expect(ledger.totalsBy({ run: 'looper' })).toEqual({ 'looper/run-1': expect.objectContaining({ records: 3 }) });
    expect(ledger.records()[0]).toMatchObject({ source: 'claude', model: 'claude-opus-5-5', costSource: 'reported', costUsd: 0.000208 });
  });

  it('caps tokens too; a new run gets a fresh budget', async () => {
    const { looper, events } = looperWithBudget({ maxTokens: 1 });
    looper.command({ type: 'start', task: 'Say hello' });
    await looper.whenIdle();
    expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'budget-exceeded', iterations: 1 });
    expect(looper.getStatus().lastRun?.reason).toMatch(/token budget reached: \d+ tokens used of 1 \(looper looper\/run-1\)/);
    looper.command({ type: 'start', task: 'Again' });
    await looper.whenIdle();
    const secondRun = looper.getStatus().lastRun?.runId;
    expect(secondRun).not.toBe('run-1');
    expect(events.filter((e) => e.type === 'usage:budget-exceeded').map((e) => (e.payload as { run: { id: string } }).run.id)).toEqual(['looper/run-1', `looper/${secondRun}`]);
  });

  it('refuses a bad budget, or one without an event bus to count on', () => {
    const review = scriptedReviewer().agent;
    expect(() => new Looper({ coder: review, review, eventBus: new EventBus(), budget: { maxCostUsd: -1 } })).toThrow(/budget\.maxCostUsd/);
    expect(() => new Looper({ coder: review, review, budget: { maxTokens: 10 } })).toThrow(/give the Looper an eventBus/);
  });
});
