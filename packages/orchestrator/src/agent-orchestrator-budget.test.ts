import { EventBus } from '@troupe/core';
import { UsageLedger } from '@troupe/usage';
import { describe, expect, it } from 'vitest';
import { AgentOrchestrator, AgentTerminatedError, type AgentStrategy } from './index';
import { firstUserText, modelAnswering } from './orchestrator-test-helpers';

/** Every model call reports 10 input + 5 output tokens. */
const usage = { inputTokens: 10, outputTokens: 5 };

/** A main agent that forks `tasks` (serially: maxConcurrency 1), then answers. */
function forkingMain(tasks: readonly string[]): AgentStrategy {
  return {
    type: 'main',
    systemPrompt: 'Lead.',
    model: modelAnswering((_request, call) =>
      call === 0 ? { toolCalls: [{ name: 'fork_agents', input: { tasks: tasks.map((task) => ({ task })) } }], usage } : { text: 'merged', usage },
    ),
  };
}

/** Sub-agents finish their task in one call. */
const subModel = () => modelAnswering((request) => ({ toolCalls: [{ name: 'task_finish', input: { result: `did ${firstUserText(request)}` } }], usage }));

describe('AgentOrchestrator budgets', () => {
  it('counts a root and its forks together: warns at 80%, then terminates the whole tree with the reason', async () => {
    const bus = new EventBus();
    const ledger = new UsageLedger({ eventBus: bus });
    const alerts: string[] = [];
    bus.on('usage:budget-warning', (event) => void alerts.push(`warning ${event.payload.used}`));
    bus.on('usage:budget-exceeded', (event) => void alerts.push(`exceeded ${event.payload.used}`));
    const orchestrator = new AgentOrchestrator({ model: subModel(), bus, maxConcurrency: 1, budget: { maxTokens: 50 } });
    const root = orchestrator.createAgent({ task: 'fan out' }, forkingMain(['a', 'b', 'c', 'd', 'e']));

    const error = await orchestrator.runAgent(root).catch((caught: unknown) => caught);

    // main's fork call (15) + a (30) + b (45: warning at 40) + c (60: exceeded at 50).
    expect(alerts).toEqual(['warning 45', 'exceeded 60']);
    expect(error).toBeInstanceOf(AgentTerminatedError);
    expect((error as Error).message).toContain(`token budget reached: 60 tokens used of 50 (orchestrator ${root})`);
    const tree = orchestrator.getAgentTree();
    expect(tree.counts.completed).toBe(2); // a and b
    expect(tree.counts.terminated).toBe(4); // the root, c (whose call crossed the cap), d and e (queued)
    expect(orchestrator.getAgent(root)?.error?.message).toMatch(/^token budget reached/);
    expect(ledger.totalsBy({ run: 'orchestrator' })).toEqual({ [root]: expect.objectContaining({ totalTokens: 60, records: 4 }) });
    ledger.dispose();
  });

  it('gives each root agent its own budget', async () => {
    const bus = new EventBus();
    const ledger = new UsageLedger({ eventBus: bus });
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'done', usage })), bus, budget: { maxTokens: 20 } });
    const first = await orchestrator.runAgent(orchestrator.createAgent({ task: 'one' }, { type: 'main', systemPrompt: 'Do.' }));
    const second = await orchestrator.runAgent(orchestrator.createAgent({ task: 'two' }, { type: 'main', systemPrompt: 'Do.' }));
    expect([first.status, second.status]).toEqual(['completed', 'completed']);
    expect(Object.values(ledger.totalsBy({ run: 'orchestrator' })).map((totals) => totals.totalTokens)).toEqual([15, 15]);
    ledger.dispose();
  });

  it('refuses a bad budget, naming the field', () => {
    expect(() => new AgentOrchestrator({ budget: { maxTokens: -1 } })).toThrow(/budget\.maxTokens/);
    expect(() => new AgentOrchestrator({ budget: {} })).toThrow(/budget/);
  });
});
