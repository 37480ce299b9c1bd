import { describe, expect, it } from 'vitest';
import { EventBus, MemoryStore } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { UsageLedger } from '@troupe/usage';
import { createScriptedChatModel } from '@troupe/core/testing';
import { createBatchPipeline } from '@troupe/pipeline';

describe('pipeline budgets', () => {
  it('warns at 80% of the token cap, then stops the run with the reason once a task crosses it', async () => {
    const bus = new EventBus();
    const ledger = new UsageLedger({ eventBus: bus });
    const alerts: string[] = [];
    bus.on('usage:budget-warning', (event) => void alerts.push(`warning ${event.payload.used}`));
    bus.on('usage:budget-exceeded', (event) => void alerts.push(`exceeded ${event.payload.used}`));
    // Each task makes one model call of 10 input + 5 output tokens.
    const model = createScriptedChatModel({ responses: Array.from({ length: 20 }, () => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 5 } })) });
    const executed: string[] = [];
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: ['a', 'b', 'c', 'd', 'e'], totalBatches: 1 }),
      executor: async (task: string) => {
        executed.push(task);
        return (await runToolLoop({ model, prompt: task })).text;
      },
      store: new MemoryStore(),
      mode: 'serial',
      namespace: ['budget'],
      threadId: 'capped',
      eventBus: bus,
      budget: { maxTokens: 35 },
    });
    const result = await pipeline.run();
    expect(alerts).toEqual(['warning 30', 'exceeded 45']);
    expect(result.status).toBe('stopped');
    expect(result.reason).toMatch(/^token budget reached: 45 tokens used of 35 \(pipeline capped-run-\d+\)$/);
    expect(executed).toEqual(['a', 'b', 'c']);
    expect(ledger.totalsBy({ run: 'pipeline' })).toEqual({ [result.reason?.match(/\((pipeline) (.+)\)/)?.[2] as string]: expect.objectContaining({ totalTokens: 45 }) });
    ledger.dispose();
  });

  it('refuses a bad budget', () => {
    expect(() =>
      createBatchPipeline({ planner: () => ({ tasks: [] }), executor: () => null, store: new MemoryStore(), threadId: 't', budget: { maxCostUsd: 0 } }),
    ).toThrow(/budget\.maxCostUsd/);
  });
});
