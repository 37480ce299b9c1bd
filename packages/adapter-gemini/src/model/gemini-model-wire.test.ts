import { defineTool, type ChatModelV1StreamPart } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGeminiModel, mapGeminiStopReason } from './index';

const API_KEY = 'AIzaSyFAKE-gemini-wire-test-key-0000000';
const hello = [{ role: 'user' as const, content: 'Say hello' }];

let server: FakeLlmServer;

beforeAll(async () => {
  server = await createFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setScenario('text');
});

function geminiModel() {
  return createGeminiModel({ apiKey: API_KEY, baseURL: server.url, model: 'gemini-3.8-flash' });
}

function contentsOf(index: number): Array<{ role: string; parts: Array<Record<string, unknown>> }> {
  return (server.requests[index]?.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
}

describe('mapGeminiStopReason', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool-calls'],
    ['MAX_TOKENS', false, 'length'],
    ['SAFETY', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['SPII', false, 'content-filter'],
    ['BLOCKLIST', false, 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'error'],
    ['UNEXPECTED_TOOL_CALL', false, 'error'],
    ['TOO_MANY_TOOL_CALLS', true, 'other'],
    ['OTHER', false, 'other'],
    ['FINISH_REASON_UNSPECIFIED', false, 'other'],
  ] as const)('%s (tool calls: %s) → %s', (raw, hasToolCalls, expected) => {
    expect(mapGeminiStopReason(raw, hasToolCalls)).toBe(expected);
  });
});

describe('createGeminiModel: Gemini wire details', () => {
  it('leaves thought summaries out of the text and counts thinking as output and reasoning tokens', async () => {
    server.enqueue('gemini', {
      text: ['Hel', 'lo.'],
      usage: { inputTokens: 40, outputTokens: 3 },
      gemini: { thoughts: ['The user wants a greeting.'], usageMetadata: { thoughtsTokenCount: 9, cachedContentTokenCount: 32 } },
    });
    const { stream } = await geminiModel().doStream({ messages: hello });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.slice(0, 3)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo.' },
      { type: 'usage', usage: { inputTokens: 40, outputTokens: 12, cachedInputTokens: 32, reasoningTokens: 9 } },
    ]);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
  ] as const)('finishReason %s → stopReason %s, in doGenerate and doStream', async (finishReason, stopReason) => {
    server.enqueue('gemini', { text: 'Partial', gemini: { finishReason } });
    server.enqueue('gemini', { text: 'Partial', gemini: { finishReason } });
    const generated = await geminiModel().doGenerate({ messages: hello });
    expect(generated).toMatchObject({ text: 'Partial', stopReason, rawStopReason: finishReason });
    const { stream } = await geminiModel().doStream({ messages: hello });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.at(-1)).toMatchObject({ type: 'turn-end', stopReason, rawStopReason: finishReason });
  });

  it('sends the thought signature of a function call back with that call (Gemini 3 requires it)', async () => {
    server.enqueue('gemini', {
      toolCalls: [
        { id: 'fc_1', name: 'lookup', arguments: { q: 'a' } },
        { id: 'fc_2', name: 'lookup', arguments: { q: 'b' } },
      ],
      gemini: { thoughtSignature: 'c2lnLWNhbGw=' },
    });
    server.enqueue('gemini', { text: 'Found both.' });
    const lookup = defineTool({ name: 'lookup', description: 'Look up', parameters: z.object({ q: z.string() }), execute: ({ q }) => q.toUpperCase() });
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Look up a and b', tools: [lookup] });

    expect(result.steps[0]?.toolCalls[0]?.providerMetadata).toEqual({ google: { functionCallId: 'fc_1', thoughtSignature: 'c2lnLWNhbGw=' } });
    expect(contentsOf(1).slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'fc_1', name: 'lookup', args: { q: 'a' } }, thoughtSignature: 'c2lnLWNhbGw=' },
          { functionCall: { id: 'fc_2', name: 'lookup', args: { q: 'b' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc_1', name: 'lookup', response: { output: 'A' } } },
          { functionResponse: { id: 'fc_2', name: 'lookup', response: { output: 'B' } } },
        ],
      },
    ]);
  });

  it('keeps the signature of a text answer in providerMetadata and sends it back with that text', async () => {
    server.enqueue('gemini', { text: ['Hi ', 'there.'], gemini: { thoughtSignature: 'c2lnLXRleHQ=' } });
    const { stream } = await geminiModel().doStream({ messages: hello });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    const end = parts.at(-1) as Extract<ChatModelV1StreamPart, { type: 'turn-end' }>;
    expect(end.providerMetadata).toEqual({ google: { thoughtSignature: 'c2lnLXRleHQ=' } });

    await geminiModel().doGenerate({
      messages: [...hello, { role: 'assistant', content: 'Hi there.', providerMetadata: end.providerMetadata ?? {} }, { role: 'user', content: 'Again' }],
    });
    expect(contentsOf(1)[1]).toEqual({ role: 'model', parts: [{ text: 'Hi there.', thoughtSignature: 'c2lnLXRleHQ=' }] });
  });

  it('honours Google RetryInfo in a 429 body as the retry delay', async () => {
    const retryInfo = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.02s' };
    server.enqueue('gemini', { status: 429, errorMessage: 'Quota exceeded', gemini: { errorDetails: [retryInfo] } });
    const response = await geminiModel().doGenerate({ messages: hello });
    expect(response.text).toBe('Hello from fake-llm.');
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);

    server.reset();
    server.enqueue('gemini', { status: 429, errorMessage: 'Quota exceeded', gemini: { errorDetails: [{ ...retryInfo, retryDelay: '3600s' }] } });
    const error = await geminiModel().doGenerate({ messages: hello }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: 'rate-limit', retryAfterMs: 3_600_000, providerMessage: 'Quota exceeded' });
    expect(server.requests).toHaveLength(1);
  });
});
