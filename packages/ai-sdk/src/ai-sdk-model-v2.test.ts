import { defineTool, ModelError, type ChatModelV1StreamPart } from '@troupe/core';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { convertArrayToReadableStream, MockLanguageModelV2 } from 'ai-v5/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAISdk } from './index';

// AI SDK 5 (specification v2), through that version's own mock model: flat usage, string finish reasons.

async function readAll(stream: ReadableStream<ChatModelV1StreamPart>): Promise<ChatModelV1StreamPart[]> {
  const parts: ChatModelV1StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) parts.push(part);
  return parts;
}

describe('fromAISdk (specification v2)', () => {
  it('doGenerate reads text, tool calls, flat usage and a string finish reason', async () => {
    const mock = new MockLanguageModelV2({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: {
        content: [
          { type: 'text', text: 'Adding.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":1,"b":2}' },
        ],
        finishReason: 'tool-calls',
        usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38, reasoningTokens: 2, cachedInputTokens: 10 },
        response: { id: 'msg_1', modelId: 'claude-sonnet-4-5-20250929' },
        warnings: [],
      },
    });
    const model = fromAISdk(mock);
    expect(model).toMatchObject({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' });
    expect(await model.doGenerate({ system: 'sys', messages: [{ role: 'user', content: 'hi' }] })).toEqual({
      text: 'Adding.',
      toolCalls: [{ toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 }, rawInput: '{"a":1,"b":2}' }],
      usage: { inputTokens: 30, outputTokens: 8, cachedInputTokens: 10, reasoningTokens: 2 },
      stopReason: 'tool-calls',
      rawStopReason: 'tool-calls',
      responseId: 'msg_1',
      modelId: 'claude-sonnet-4-5-20250929',
    });
    expect(mock.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it("doStream maps a v2 stream; v2's 'unknown' finish reason is 'other'", async () => {
    const mock = new MockLanguageModelV2({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: '1' },
          { type: 'text-delta', id: '1', delta: 'Hello' },
          { type: 'text-end', id: '1' },
          { type: 'finish', finishReason: 'unknown', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
        ]),
      },
    });
    const { stream } = await fromAISdk(mock).doStream({ messages: [{ role: 'user', content: 'hi' }] });
    expect(await readAll(stream)).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 1, cachedInputTokens: undefined, reasoningTokens: undefined } },
      { type: 'turn-end', stopReason: 'other', rawStopReason: 'unknown' },
    ]);
  });

  it('runs a tool loop and generateObject', async () => {
    const answers = [
      { content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' }], finishReason: 'tool-calls' as const, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] },
      { content: [{ type: 'text' as const, text: 'It is 5.' }], finishReason: 'stop' as const, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] },
      { content: [{ type: 'text' as const, text: '{"sum":5}' }], finishReason: 'stop' as const, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] },
    ];
    // A function, not the array form: AI SDK 5's mock skips the first element of an array.
    const mock = new MockLanguageModelV2({ doGenerate: async () => answers.shift() as (typeof answers)[number] });
    const model = fromAISdk(mock);
    const add = defineTool({ name: 'add', description: 'Adds two numbers', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
    const { text } = await runToolLoop({ model, prompt: '2 + 3?', tools: [add] });
    expect(text).toBe('It is 5.');
    expect(mock.doGenerateCalls[1]?.prompt.at(-1)).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'text', value: '5' } }] });
    const { object } = await generateObject({ model, schema: z.object({ sum: z.number() }), prompt: 'sum?' });
    expect(object).toEqual({ sum: 5 });
    expect(mock.doGenerateCalls[2]?.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object' } });
  });

  it('errors thrown by a v2 model are ModelErrors', async () => {
    const mock = new MockLanguageModelV2({
      doGenerate: async () => {
        throw new Error('socket hang up');
      },
    });
    const error = await fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'unknown', retryable: false, message: 'mock-provider request failed: socket hang up' });
  });
});
