import { defineTool, type ChatModelV1StreamPart } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAISdk } from './index';

// AI SDK 7 (specification v4), through that version's own mock model: v3's shapes plus parts Troupe leaves out.

/** A v4 stream part, as AI SDK 7's own types say. */
type V4StreamPart = Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

const usage = { inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 2, text: 2, reasoning: undefined } };

describe('fromAISdk (specification v4)', () => {
  it("reads a v4 result: custom content is left out, 'interrupted' is 'other'", async () => {
    const mock = new MockLanguageModelV4({
      provider: 'openai.responses',
      modelId: 'gpt-5.5',
      doGenerate: {
        content: [
          { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { id: 'c1' } } },
          { type: 'text', text: 'Half an answer' },
        ],
        finishReason: { unified: 'interrupted', raw: 'interrupted' },
        usage,
        warnings: [],
      },
    });
    const model = fromAISdk(mock);
    expect(model).toMatchObject({ provider: 'openai.responses', modelId: 'gpt-5.5' });
    expect(await model.doGenerate({ messages: [{ role: 'user', content: 'hi' }] })).toMatchObject({
      text: 'Half an answer',
      toolCalls: [],
      stopReason: 'other',
      rawStopReason: 'interrupted',
      usage: { inputTokens: 5, outputTokens: 2 },
    });
  });

  it('streams past ping parts, and runs a tool loop', async () => {
    const answers: V4StreamPart[][] = [
      [
        { type: 'ping' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'upper', input: '{"text":"hey"}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
      ],
      [
        { type: 'ping' },
        { type: 'text-delta', id: 't', delta: 'It is HEY.' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ],
    ];
    const mock = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(answers.shift() ?? []) }) });
    const upper = defineTool({ name: 'upper', description: 'Upper-cases', parameters: z.object({ text: z.string() }), execute: ({ text }) => text.toUpperCase() });
    const parts: string[] = [];
    const result = await runToolLoop({ model: fromAISdk(mock), prompt: 'shout hey', tools: [upper], onTextDelta: (text) => parts.push(text) });
    expect(result.text).toBe('It is HEY.');
    expect(parts).toEqual(['It is HEY.']);
    expect(mock.doStreamCalls[1]?.prompt.at(-1)).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'upper', output: { type: 'text', value: 'HEY' } }] });
  });

  it('its stream parts keep the v1 order', async () => {
    const mock = new MockLanguageModelV4({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'ping' },
          { type: 'text-delta', id: 't', delta: 'ok' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ]),
      },
    });
    const { stream } = await fromAISdk(mock).doStream({ messages: [{ role: 'user', content: 'hi' }] });
    const types: string[] = [];
    for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) types.push(part.type);
    expect(types).toEqual(['text-delta', 'usage', 'turn-end']);
  });
});
