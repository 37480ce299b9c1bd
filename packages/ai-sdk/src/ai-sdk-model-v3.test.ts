import { APICallError, LoadAPIKeyError, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { AbortError, ConfigError, defineTool, InvalidArgumentError, ModelError, type ChatModelV1StreamPart } from '@troupe/core';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAISdk } from './index';

// AI SDK 6 (specification v3), through the AI SDK's own mock model: what fromAISdk sends and how it reads answers.

const usage = (input: number, output: number, extra: { cacheRead?: number; reasoning?: number } = {}) => ({
  inputTokens: { total: input, noCache: input - (extra.cacheRead ?? 0), cacheRead: extra.cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: output - (extra.reasoning ?? 0), reasoning: extra.reasoning },
});

function textResult(text: string) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: 'end_turn' },
    usage: usage(10, 4),
    warnings: [],
  };
}

function streamOf(parts: LanguageModelV3StreamPart[]) {
  return { stream: convertArrayToReadableStream(parts) };
}

async function readAll(stream: ReadableStream<ChatModelV1StreamPart>): Promise<ChatModelV1StreamPart[]> {
  const parts: ChatModelV1StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) parts.push(part);
  return parts;
}

/** The call options without the abort signal (a live object). */
function sent(options: LanguageModelV3CallOptions | undefined): Omit<LanguageModelV3CallOptions, 'abortSignal'> {
  const { abortSignal: _signal, ...rest } = options ?? ({} as LanguageModelV3CallOptions);
  return rest;
}

describe('fromAISdk (specification v3)', () => {
  it('is a v1 ChatModel named after the AI SDK model', () => {
    const model = fromAISdk(new MockLanguageModelV3({ provider: 'openai.responses', modelId: 'gpt-5.5' }));
    expect(model).toMatchObject({ specificationVersion: 'v1', provider: 'openai.responses', modelId: 'gpt-5.5', capabilities: { structuredOutput: 'json-schema' }, maxRetries: 2 });
  });

  it('doGenerate sends system, messages, tools, tool choice, JSON format, limits, headers and provider options', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: textResult('ok') });
    const model = fromAISdk(mock, { providerOptions: { openai: { reasoningEffort: 'low' } } });
    await model.doGenerate({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Add 1 and 2' },
        { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 }, providerMetadata: { google: { thoughtSignature: 'sig' } } }] },
        { role: 'tool', results: [{ toolCallId: 'c1', toolName: 'add', content: '3', isError: false }] },
        { role: 'assistant', content: 'Also dividing by zero:', toolCalls: [{ toolCallId: 'c2', toolName: 'div', input: { a: 1, b: 0 } }] },
        { role: 'tool', results: [{ toolCallId: 'c2', toolName: 'div', content: 'division by zero', isError: true }] },
      ],
      tools: [{ name: 'add', description: 'Adds', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } }],
      toolChoice: { type: 'tool', toolName: 'add' },
      responseFormat: { type: 'json', name: 'sum', schema: { type: 'object' } },
      maxOutputTokens: 100,
      temperature: 0,
      headers: { 'x-trace': 't1' },
    });
    expect(sent(mock.doGenerateCalls[0])).toMatchInlineSnapshot(`
      {
        "headers": {
          "x-trace": "t1",
        },
        "maxOutputTokens": 100,
        "prompt": [
          {
            "content": "Be brief.",
            "role": "system",
          },
          {
            "content": [
              {
                "text": "Add 1 and 2",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "input": {
                  "a": 1,
                  "b": 2,
                },
                "providerOptions": {
                  "google": {
                    "thoughtSignature": "sig",
                  },
                },
                "toolCallId": "c1",
                "toolName": "add",
                "type": "tool-call",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "output": {
                  "type": "text",
                  "value": "3",
                },
                "toolCallId": "c1",
                "toolName": "add",
                "type": "tool-result",
              },
            ],
            "role": "tool",
          },
          {
            "content": [
              {
                "text": "Also dividing by zero:",
                "type": "text",
              },
              {
                "input": {
                  "a": 1,
                  "b": 0,
                },
                "toolCallId": "c2",
                "toolName": "div",
                "type": "tool-call",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "output": {
                  "type": "error-text",
                  "value": "division by zero",
                },
                "toolCallId": "c2",
                "toolName": "div",
                "type": "tool-result",
              },
            ],
            "role": "tool",
          },
        ],
        "providerOptions": {
          "openai": {
            "reasoningEffort": "low",
          },
        },
        "responseFormat": {
          "name": "sum",
          "schema": {
            "type": "object",
          },
          "type": "json",
        },
        "temperature": 0,
        "toolChoice": {
          "toolName": "add",
          "type": "tool",
        },
        "tools": [
          {
            "description": "Adds",
            "inputSchema": {
              "properties": {
                "a": {
                  "type": "number",
                },
              },
              "type": "object",
            },
            "name": "add",
            "type": "function",
          },
        ],
      }
    `);
  });

  it('doGenerate reads text, client tool calls, usage, finish reason, ids and provider metadata', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: {
        content: [
          { type: 'reasoning', text: 'thinking…' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'add.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":1,"b":2}', providerMetadata: { google: { thoughtSignature: 'sig' } } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'broken', input: '{"a":' },
          { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{}', providerExecuted: true },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: usage(100, 20, { cacheRead: 60, reasoning: 5 }),
        providerMetadata: { anthropic: { cacheCreationInputTokens: 0 } },
        response: { id: 'resp_1', modelId: 'gpt-5.5-2026', body: { raw: true } },
        warnings: [],
      },
    });
    const response = await fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response).toEqual({
      text: 'Let me add.',
      toolCalls: [
        { toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 }, rawInput: '{"a":1,"b":2}', providerMetadata: { google: { thoughtSignature: 'sig' } } },
        { toolCallId: 'c2', toolName: 'broken', input: '{"a":', rawInput: '{"a":' },
      ],
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 60, reasoningTokens: 5 },
      stopReason: 'tool-calls',
      rawStopReason: 'tool_use',
      responseId: 'resp_1',
      modelId: 'gpt-5.5-2026',
      providerMetadata: { anthropic: { cacheCreationInputTokens: 0 } },
      rawResponse: { raw: true },
    });
  });

  it('doStream maps deltas, tool calls, usage and the finish to Troupe parts in order', async () => {
    const mock = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'resp_2', modelId: 'gpt-5.5' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hel' },
        { type: 'text-delta', id: 't', delta: 'lo' },
        { type: 'text-end', id: 't' },
        { type: 'tool-input-start', id: 'c1', toolName: 'add' },
        { type: 'tool-input-delta', id: 'c1', delta: '{"a":1}' },
        { type: 'tool-input-end', id: 'c1' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":1}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(7, 3), providerMetadata: { openai: { responseId: 'resp_2' } } },
      ]),
    });
    const { stream } = await fromAISdk(mock).doStream({ messages: [{ role: 'user', content: 'hi' }] });
    expect(await readAll(stream)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 1 }, rawInput: '{"a":1}' },
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: undefined, reasoningTokens: undefined } },
      { type: 'turn-end', stopReason: 'tool-calls', rawStopReason: 'tool_calls', responseId: 'resp_2', modelId: 'gpt-5.5', providerMetadata: { openai: { responseId: 'resp_2' } } },
    ]);
  });

  it('runs a tool loop: the tool result reaches the next call, streamed or not', async () => {
    for (const stream of [false, true]) {
      const answers = [
        { content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' }], finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage: usage(5, 5), warnings: [] },
        { ...textResult('The sum is 5.'), usage: usage(5, 5) },
      ];
      const mock = new MockLanguageModelV3({
        doGenerate: async () => answers.shift() as ReturnType<typeof textResult>,
        doStream: async () => {
          const next = answers.shift() as { content: Array<{ type: string; text?: string; toolCallId?: string; toolName?: string; input?: string }>; finishReason: { unified: 'stop' | 'tool-calls'; raw: string | undefined } };
          return streamOf([
            ...next.content.map((part): LanguageModelV3StreamPart =>
              part.type === 'text' ? { type: 'text-delta', id: 't', delta: part.text ?? '' } : { type: 'tool-call', toolCallId: part.toolCallId ?? '', toolName: part.toolName ?? '', input: part.input ?? '' },
            ),
            { type: 'finish', finishReason: next.finishReason, usage: usage(5, 5) },
          ]);
        },
      });
      const add = defineTool({ name: 'add', description: 'Adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
      const result = await runToolLoop({ model: fromAISdk(mock), prompt: 'What is 2 + 3?', tools: [add], stream });
      expect(result.text).toBe('The sum is 5.');
      expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 10 });
      const calls = stream ? mock.doStreamCalls : mock.doGenerateCalls;
      expect(calls).toHaveLength(2);
      expect(calls[1]?.prompt.at(-1)).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'text', value: '5' } }] });
    }
  });

  it('generateObject sends the schema as the JSON response format and validates the answer', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: textResult('{"action":"terminate","reason":"done"}') });
    const schema = z.object({ action: z.enum(['continue', 'terminate']), reason: z.string() });
    const { object } = await generateObject({ model: fromAISdk(mock), schema, schemaName: 'decision', prompt: 'decide' });
    expect(object).toEqual({ action: 'terminate', reason: 'done' });
    expect(mock.doGenerateCalls[0]?.responseFormat).toMatchObject({ type: 'json', name: 'decision', schema: { type: 'object', required: ['action', 'reason'] } });
    // With json-object the schema also goes in the system prompt, for providers that ignore it.
    const loose = new MockLanguageModelV3({ doGenerate: textResult('{"action":"continue","reason":"more"}') });
    await generateObject({ model: fromAISdk(loose, { structuredOutput: 'json-object' }), schema, prompt: 'decide' });
    expect(loose.doGenerateCalls[0]?.prompt[0]).toMatchObject({ role: 'system', content: expect.stringContaining('JSON Schema') });
    expect(loose.doGenerateCalls[0]?.responseFormat).toEqual({ type: 'json', name: 'response' });
  });

  it('abort: the signal reaches the AI SDK model and the call rejects with AbortError', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: (options) =>
        new Promise((_resolve, reject) => {
          options.abortSignal?.addEventListener('abort', () => reject(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })));
        }),
    });
    const controller = new AbortController();
    const pending = fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }], abortSignal: controller.signal });
    controller.abort('user');
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toBe('user');
    await expect(fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }], abortSignal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });

  it('canceling the stream early aborts the request the AI SDK model made', async () => {
    let signal: AbortSignal | undefined;
    const mock = new MockLanguageModelV3({
      doStream: async (options) => {
        signal = options.abortSignal;
        return { stream: new ReadableStream<LanguageModelV3StreamPart>({ start: (c) => c.enqueue({ type: 'text-delta', id: 't', delta: 'one' }) }) };
      },
    });
    const { stream } = await fromAISdk(mock).doStream({ messages: [{ role: 'user', content: 'hi' }] });
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: 'text-delta', text: 'one' } });
    expect(signal?.aborted).toBe(false);
    await reader.cancel();
    expect(signal?.aborted).toBe(true);
  });

  it('HTTP errors become ModelErrors with status, retryable, provider message, type and request id', async () => {
    const unauthorized = new APICallError({
      message: 'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz',
      url: 'https://api.openai.com/v1/responses',
      requestBodyValues: {},
      statusCode: 401,
      responseHeaders: { 'x-request-id': 'req_9' },
      responseBody: '{"error":{"message":"Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz","type":"invalid_request_error","code":"invalid_api_key"}}',
      isRetryable: false,
      data: { error: { message: 'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz', type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const mock = new MockLanguageModelV3({
      provider: 'openai.responses',
      doGenerate: async () => {
        throw unauthorized;
      },
    });
    const error = await fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      provider: 'openai.responses',
      kind: 'authentication',
      status: 401,
      retryable: false,
      providerErrorType: 'invalid_request_error',
      providerMessage: 'Incorrect API key provided: [REDACTED]',
      requestId: 'req_9',
      message: 'openai.responses API error 401 invalid_request_error: Incorrect API key provided: [REDACTED]',
    });
    expect(mock.doGenerateCalls).toHaveLength(1);
  });

  it('429 and 5xx are retried, honouring retry-after; the last error carries retryAfterMs', async () => {
    const rateLimited = () =>
      new APICallError({ message: 'Rate limit', url: 'u', requestBodyValues: {}, statusCode: 429, responseHeaders: { 'retry-after': '0' }, isRetryable: true });
    const failures = [rateLimited(), new APICallError({ message: 'boom', url: 'u', requestBodyValues: {}, statusCode: 500, isRetryable: true, responseHeaders: { 'retry-after-ms': '1' } })];
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return textResult('finally');
      },
    });
    expect((await fromAISdk(mock).doGenerate({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('finally');
    expect(mock.doGenerateCalls).toHaveLength(3);

    const always = new MockLanguageModelV3({
      doStream: async () => {
        throw rateLimited();
      },
    });
    const error = await fromAISdk(always, { maxRetries: 1 }).doStream({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 0 });
    expect(always.doStreamCalls).toHaveLength(2);
  });

  it('a connection failure, a missing API key and an error event in the stream are ModelErrors too', async () => {
    const offline = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({ message: 'Cannot connect to API: connect ECONNREFUSED', url: 'u', requestBodyValues: {}, isRetryable: true });
      },
    });
    expect(await fromAISdk(offline, { maxRetries: 0 }).doGenerate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)).toMatchObject({
      kind: 'connection',
      retryable: true,
    });
    const noKey = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new LoadAPIKeyError({ message: 'OpenAI API key is missing. Pass it using the apiKey parameter or the OPENAI_API_KEY environment variable.' });
      },
    });
    expect(await fromAISdk(noKey).doGenerate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)).toMatchObject({
      kind: 'authentication',
      retryable: false,
    });
    expect(noKey.doGenerateCalls).toHaveLength(1);

    const overloaded = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'text-delta', id: 't', delta: 'Hi' },
        { type: 'error', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      ]),
    });
    const { stream } = await fromAISdk(overloaded).doStream({ messages: [{ role: 'user', content: 'hi' }] });
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: 'text-delta', text: 'Hi' } });
    const errorPart = await reader.read();
    expect(errorPart.value).toMatchObject({ type: 'error', error: { name: 'ModelError', kind: 'overloaded', providerErrorType: 'overloaded_error', providerMessage: 'Overloaded' } });
    await expect(reader.read()).rejects.toMatchObject({ kind: 'overloaded' });
  });

  it('rejects what it cannot wrap, naming the problem', () => {
    expect(() => fromAISdk(undefined as never)).toThrow(InvalidArgumentError);
    expect(() => fromAISdk(createScriptedChatModel() as never)).toThrow('already a Troupe ChatModel');
    expect(() => fromAISdk({ specificationVersion: 'v1', provider: 'openai.chat', modelId: 'gpt-4', defaultObjectGenerationMode: 'json', doGenerate() {}, doStream() {} } as never)).toThrow(
      'unsupported AI SDK specificationVersion "v1"; fromAISdk speaks "v2", "v3", "v4" (the providers of AI SDK 5, 6 and 7)',
    );
    expect(() => fromAISdk(new MockLanguageModelV3(), { maxRetries: -1 })).toThrow(ConfigError);
    expect(() => fromAISdk(new MockLanguageModelV3(), { bogus: true } as never)).toThrow(/bogus/);
  });
});
