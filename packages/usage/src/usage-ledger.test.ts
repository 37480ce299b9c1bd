import { afterEach, describe, expect, it } from 'vitest';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MemoryStore, withEventScope, type AnyTroupeEvent } from '@troupe/core';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { readUsageRecords, UsageLedger } from './index';
import { createScriptedChatModel, MockAgentAdapter } from '@troupe/core/testing';
import { z } from 'zod';

const ledgers: UsageLedger[] = [];
function ledgerOn(bus: EventBus, options: ConstructorParameters<typeof UsageLedger>[0] = {}): UsageLedger {
  const ledger = new UsageLedger({ eventBus: bus, ...options });
  ledgers.push(ledger);
  return ledger;
}
afterEach(() => {
  for (const ledger of ledgers.splice(0)) ledger.dispose();
});

function cliTurn(usage: Record<string, number>, model = 'claude-sonnet-4-5') {
  return {
    lines: [
      JSON.stringify({ type: 'session', id: 's-1', model }),
      JSON.stringify({ type: 'text', text: 'done' }),
      JSON.stringify({ type: 'usage', ...usage }),
      JSON.stringify({ type: 'result', result: 'done' }),
    ],
  };
}

describe('UsageLedger', () => {
  it('records CLI turns (reported cost, else the price of the model the CLI named) charged to the role and run', async () => {
    const bus = new EventBus();
    const ledger = ledgerOn(bus);
    const turns = [cliTurn({ inputTokens: 1000, outputTokens: 200, costUsd: 0.5 }), cliTurn({ inputTokens: 1_000_000, outputTokens: 100_000 }, 'gpt-5')];
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'mock', create: () => new MockAgentAdapter({ cli: (turn) => turns[turn] ?? {} }) });
    const manager = new AgentManager({ adapters, eventBus: bus });
    await manager.ensureAgentStarted('coder', 'mock');
    const recorded: AnyTroupeEvent[] = [];
    bus.on('usage:recorded', (event) => void recorded.push(event));
    await withEventScope({ bus, run: { kind: 'looper', id: 'looper/run-1' } }, async () => {
      await manager.sendAndReceive('coder', 'first');
      await manager.sendAndReceive('coder', 'second');
    });
    await manager.cleanup();

    const records = ledger.records();
    expect(records.map(({ kind, source, model, agentId, costSource, runs }) => ({ kind, source, model, agentId, costSource, runs }))).toEqual([
      { kind: 'agent-turn', source: 'mock', model: 'claude-sonnet-4-5', agentId: 'coder', costSource: 'reported', runs: { looper: 'looper/run-1' } },
      { kind: 'agent-turn', source: 'mock', model: 'gpt-5', agentId: 'coder', costSource: 'price-table', runs: { looper: 'looper/run-1' } },
    ]);
    expect(records[0]?.costUsd).toBe(0.5);
    // gpt-5: $1.25 per million input, $10 per million output.
    expect(records[1]?.costUsd).toBeCloseTo(1.25 + 1, 10);
    expect(recorded).toHaveLength(2);
    const totals = ledger.totals({ run: { kind: 'looper', id: 'looper/run-1' } });
    expect(totals).toMatchObject({ inputTokens: 1_001_000, outputTokens: 100_200, totalTokens: 1_101_200, records: 2, unpricedRecords: 0 });
    expect(totals.costUsd).toBeCloseTo(2.75, 10);
    expect(Object.keys(ledger.totalsBy('agent'))).toEqual(['coder']);
  });

  it('records model calls of runToolLoop and generateObject, priced from a table users extend, charged to the scope\'s agent', async () => {
    const bus = new EventBus();
    const ledger = ledgerOn(bus, { prices: { 'scripted-model': { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 1 } } });
    const model = createScriptedChatModel({
      responses: [
        { text: 'hello', usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 } },
        { text: '{"ok":true}', usage: { inputTokens: 50, outputTokens: 10 } },
      ],
    });
    await withEventScope({ bus, agentId: 'devhub', run: { kind: 'team', id: 'conv-1' } }, () => runToolLoop({ model, prompt: 'hi' }));
    // An explicit bus works outside any scope too.
    await generateObject({ model, schema: z.object({ ok: z.boolean() }), prompt: 'json', eventBus: bus });

    const [first, second] = ledger.records();
    expect(first).toMatchObject({ kind: 'model-call', source: 'scripted', model: 'scripted-model', agentId: 'devhub', runs: { team: 'conv-1' }, costSource: 'price-table' });
    // 600 uncached × $2 + 400 cached × $1 + 100 output × $8, per million.
    expect(first?.costUsd).toBeCloseTo((600 * 2 + 400 * 1 + 100 * 8) / 1e6, 12);
    expect(second).toMatchObject({ kind: 'model-call', runs: {} });
    expect(second?.agentId).toBeUndefined();
    expect(ledger.totalsBy({ run: 'team' })).toMatchObject({ 'conv-1': { records: 1 }, '(none)': { records: 1 } });
  });

  it('counts a model without a price as unknown cost, and says so in the totals', () => {
    const ledger = new UsageLedger();
    ledgers.push(ledger);
    ledger.record({ kind: 'model-call', source: 'openai.responses', model: 'gpt-5.5', inputTokens: 10, outputTokens: 5 });
    expect(ledger.totals()).toMatchObject({ costUsd: 0, records: 1, unpricedRecords: 1, totalTokens: 15 });
  });

  it('persists records in the store, and a later process of the session loads them', async () => {
    const store = new MemoryStore();
    const namespace = ['sessions', 's-1', 'usage'];
    const first = new UsageLedger({ store, namespace, sessionId: 's-1' });
    ledgers.push(first);
    first.record({ kind: 'agent-turn', source: 'claude', model: 'claude-opus-4', inputTokens: 100, outputTokens: 10, reportedCostUsd: 0.01, agentId: 'coder' });
    first.record({ kind: 'model-call', source: 'anthropic.messages', model: 'claude-haiku-4-5', inputTokens: 1000, outputTokens: 100, agentId: 'judge' });
    await first.flush();
    const stored = await readUsageRecords(store, namespace);
    expect(stored).toEqual(first.records());
    expect(stored.every((record) => record.sessionId === 's-1')).toBe(true);

    const second = new UsageLedger({ store, namespace, sessionId: 's-1' });
    ledgers.push(second);
    expect(await second.load()).toBe(2);
    expect(await second.load()).toBe(0);
    expect(second.totals()).toEqual(first.totals());
  });

  it('subscribers see each new record; one ledger per bus', () => {
    const bus = new EventBus();
    const ledger = ledgerOn(bus);
    expect(UsageLedger.forBus(bus)).toBe(ledger);
    expect(() => new UsageLedger({ eventBus: bus })).toThrow(/already has a usage ledger/);
    const seen: string[] = [];
    const off = ledger.subscribe((record) => seen.push(record.agentId ?? ''));
    ledger.record({ kind: 'agent-turn', source: 'codex', agentId: 'a', inputTokens: 1 });
    off();
    ledger.record({ kind: 'agent-turn', source: 'codex', agentId: 'b', inputTokens: 1 });
    expect(seen).toEqual(['a']);
  });

  it('rejects bad input with errors naming the field', () => {
    expect(() => new UsageLedger({ prices: { 'm-1': { inputPerMillion: -1, outputPerMillion: 1 } } })).toThrow(/prices\["m-1"\]\.inputPerMillion/);
    expect(() => new UsageLedger({ namespace: [] })).toThrow(/namespace/);
    const ledger = new UsageLedger();
    ledgers.push(ledger);
    expect(() => ledger.record({ kind: 'agent-turn', source: 'x', inputTokens: Number.NaN })).toThrow(/inputTokens/);
    expect(() => ledger.record({ kind: 'bogus' as never, source: 'x' })).toThrow(/kind/);
  });
});
