import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { defineAgent } from '@troupe/core/agent-runtime';
import { MemoryStore } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createLooperSystem, createModelJudge, type JudgeInput } from '@troupe/looper';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { createBatchPipeline, executorFromModel, plannerFromModel } from '@troupe/pipeline';
import { createFakeLlmServer, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fromAISdk } from './index';

// AI SDK models in Troupe's runners, end to end: JUDGE, DevHub, the orchestrator and the pipeline. The real
// @ai-sdk/openai and @ai-sdk/anthropic providers talk to the in-repo fake API server; DevHub's tool-calling
// conversation is scripted with the AI SDK's mock model.

let server: FakeLlmServer;
beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => server.close());
afterEach(() => server.reset());

const openai = () => createOpenAI({ apiKey: 'sk-test-runners-0000000000000000', baseURL: `${server.url}/v1` });
const anthropic = () => createAnthropic({ apiKey: 'sk-ant-test-runners-000000000000', baseURL: `${server.url}/v1` });

/** Iteration 2: the Coder failed, one task is queued. */
const judgeInput: JudgeInput = {
  currentTask: 'Fix the failing sum() test',
  iteration: 2,
  maxIterations: 3,
  coder: { status: 'FAILED', output: 'AssertionError: sum(1, 2) !== 3', durationMs: 12, timedOut: false, failureKind: 'fixable' },
  review: { status: 'FAILED', output: 'skipped', durationMs: 0, timedOut: false },
  pending: [{ id: 'p1', task: 'Document sum()', addedAt: 0 }],
};

describe('AI SDK models in the runners', () => {
  it('JUDGE decides through an AI SDK model with native structured output', async () => {
    server.enqueue('openai-responses', { text: '{"type":"continue","nextTask":"Fix sum() to add its arguments","reason":"The Coder failed but it is fixable."}' });
    const judge = createModelJudge({ model: fromAISdk(openai()('gpt-5.5')) });
    expect(await judge.decide(judgeInput)).toEqual({ type: 'continue', nextTask: 'Fix sum() to add its arguments', reason: 'The Coder failed but it is fixable.' });
    expect(JSON.stringify(server.requests[0]?.body)).toContain('1. Document sum()');
    const format = (server.requests[0]?.body as { text?: { format?: { type?: string; name?: string } } }).text?.format;
    expect(format).toMatchObject({ type: 'json_schema', name: 'judge_decision' });
  });

  it('DevHub calls its Looper tools through an AI SDK model', async () => {
    // DevHub streams its answers (doStream): ask for the Looper's state, then answer from the tool result.
    const mock = new MockLanguageModelV3({
      doStream: async (options) => {
        const last = options.prompt.at(-1);
        const output = last?.role === 'tool' && last.content[0]?.type === 'tool-result' ? last.content[0].output : undefined;
        const parts: LanguageModelV3StreamPart[] =
          output === undefined
            ? [
                { type: 'tool-call', toolCallId: 'q1', toolName: 'query_looper_state', input: '{}' },
                { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: emptyUsage },
              ]
            : [
                { type: 'text-delta', id: 't', delta: `The Looper says: ${output.type === 'text' ? output.value.split('\n')[0] : '?'}` },
                { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: emptyUsage },
              ];
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const idle = defineAgent({ id: 'coder', description: 'does nothing', run: async () => ({ text: 'ok' }) });
    const review = defineAgent({ id: 'review', description: 'does nothing', run: async () => ({ text: 'ok' }) });
    const system = createLooperSystem({ looper: { coder: idle, review }, devhub: { model: fromAISdk(mock) } });
    try {
      const reply = await system.executor.execute('devhub', 'devhub', 'How is it going?');
      expect(reply.text).toMatch(/^The Looper says: .*IDLE/);
      expect(mock.doStreamCalls[0]?.tools?.map((tool) => tool.name)).toEqual(['send_to_looper', 'query_looper_state']);
    } finally {
      await system.dispose();
    }
  });

  it('the orchestrator runs an agent on an AI SDK model (streamed)', async () => {
    const orchestrator = new AgentOrchestrator({ model: fromAISdk(anthropic()('claude-sonnet-4-5')) });
    const id = orchestrator.createAgent({ task: 'Say hello' }, { type: 'solo', systemPrompt: 'You answer briefly.' });
    const result = await orchestrator.runAgent(id);
    expect(result.text).toBe(FAKE_TEXT);
    expect(server.requests[0]).toMatchObject({ protocol: 'anthropic', stream: true });
  });

  it('the pipeline plans with generateObject and executes with runToolLoop on AI SDK models', async () => {
    server.enqueue('openai-chat', { text: '{"tasks":["check users","check posts"],"last":true}' });
    const model = fromAISdk(openai().chat('gpt-5.5'));
    const pipeline = createBatchPipeline({
      planner: plannerFromModel({ model, prompt: ({ batchIndex }) => `Plan batch ${batchIndex}` }),
      executor: executorFromModel({ model }),
      store: new MemoryStore(),
      threadId: 'ai-sdk',
      mode: 'serial',
    });
    const result = await pipeline.run();
    expect(result).toMatchObject({ status: 'completed', executedTasks: 2, failedTasks: 0 });
    expect((await pipeline.getTaskResults()).map((record) => (record.result as { text: string }).text)).toEqual([FAKE_TEXT, FAKE_TEXT]);
  });

  it('every runner refuses a bare AI SDK model and points to fromAISdk', async () => {
    const bare = openai()('gpt-5.5');
    const hint = /specificationVersion "v3": this is an AI SDK LanguageModel \(provider "openai.responses", model "gpt-5.5"\), not a Troupe ChatModel; wrap it with fromAISdk\(model\) from @troupe\/ai-sdk/;
    await expect(runToolLoop({ model: bare as never, prompt: 'hi' })).rejects.toThrow(hint);
    expect(() => createModelJudge({ model: bare as never })).toThrow(hint);
    expect(() => new AgentOrchestrator({ model: bare as never })).toThrow(hint);
    expect(() => plannerFromModel({ model: bare as never, prompt: () => 'plan' })).toThrow(hint);
    expect(server.requests).toHaveLength(0);
  });
});

const emptyUsage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
