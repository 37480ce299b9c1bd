import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortError, ConfigError, defineTool, ModelError, ModelOutputError, type ChatModelV1StreamPart } from '@troupe/core';
import { createWorkspaceTools } from '@troupe/workspace-tools';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { createFakeLlmServer, FAKE_ERROR_MESSAGES, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { createOpenAIModel, OPENAI_DEFAULT_MODEL, type OpenAIModelSettings } from './index';

const API_KEY = 'sk-proj-test-key-never-shown-0123456789abcdef';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => server.close());
afterEach(() => server.reset());

type Body = Record<string, unknown>;

interface ApiCase {
  api: 'responses' | 'chat';
  protocol: 'openai-responses' | 'openai-chat';
  provider: string;
  /** Tool results the request feeds back, as [id, content]. */
  toolResults(body: Body): Array<[string, string]>;
  /** Names of the tools offered. */
  toolNames(body: Body): string[];
  /** The structured-output field of the body. */
  format(body: Body): unknown;
  /** The last user text of the body. */
  lastUserText(body: Body): string | undefined;
}

const cases: ApiCase[] = [
  {
    api: 'responses',
    protocol: 'openai-responses',
    provider: 'openai.responses',
    toolResults: (body) =>
      (body.input as Array<{ type?: string; call_id?: string; output?: string }>)
        .filter((item) => item.type === 'function_call_output')
        .map((item) => [item.call_id as string, item.output as string]),
    toolNames: (body) => ((body.tools as Array<{ name: string }> | undefined) ?? []).map((tool) => tool.name),
    format: (body) => (body.text as { format?: unknown } | undefined)?.format,
    lastUserText: (body) => (body.input as Array<{ role?: string; content?: string }>).filter((item) => item.role === 'user').at(-1)?.content,
  },
  {
    api: 'chat',
    protocol: 'openai-chat',
    provider: 'openai.chat',
    toolResults: (body) =>
      (body.messages as Array<{ role: string; tool_call_id?: string; content?: string }>)
        .filter((message) => message.role === 'tool')
        .map((message) => [message.tool_call_id as string, message.content as string]),
    toolNames: (body) => ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((tool) => tool.function.name),
    format: (body) => body.response_format,
    lastUserText: (body) => (body.messages as Array<{ role: string; content?: string }>).filter((message) => message.role === 'user').at(-1)?.content,
  },
];

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

describe.each(cases)('createOpenAIModel({ api: "$api" }) over the openai SDK', (apiCase) => {
  const { api, protocol } = apiCase;
  const model = (settings: OpenAIModelSettings = {}) =>
    createOpenAIModel({ api, apiKey: API_KEY, baseURL: `${server.url}/v1`, model: 'gpt-5.5', maxRetries: 0, ...settings });
  const bodies = () => server.requests.filter((request) => request.protocol === protocol).map((request) => request.body as Body);

  it('generates text', async () => {
    const result = await runToolLoop({ model: model(), system: 'Be brief.', prompt: 'Say hello', maxOutputTokens: 50 });
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.stopReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    expect(model().provider).toBe(apiCase.provider);
    const body = bodies()[0] as Body;
    if (api === 'responses') {
      expect(body).toEqual({ model: 'gpt-5.5', instructions: 'Be brief.', input: [{ role: 'user', content: 'Say hello' }], max_output_tokens: 50 });
    } else {
      expect(body).toEqual({
        model: 'gpt-5.5',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
        max_completion_tokens: 50,
      });
    }
  });

  it('streams text deltas and the documented part order', async () => {
    server.enqueue(protocol, { text: ['Hel', 'lo ', 'world'] });
    const deltas: string[] = [];
    const result = await runToolLoop({ model: model(), prompt: 'Hi', onTextDelta: (text) => deltas.push(text) });
    expect(deltas).toEqual(['Hel', 'lo ', 'world']);
    expect(result.text).toBe('Hello world');
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    expect(server.requests[0]?.stream).toBe(true);
    if (api === 'chat') expect(bodies()[0]?.stream_options).toEqual({ include_usage: true });

    server.enqueue(protocol, { text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const { stream } = await model().doStream({ messages: [{ role: 'user', content: 'Weather?' }], tools: [{ name: 'get_weather', inputSchema: weather.inputSchema }] });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'tool-call', 'usage', 'turn-end']);
    expect(parts[1]).toEqual({ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: { city: 'Paris' } });
    expect(parts[3]).toMatchObject({ type: 'turn-end', stopReason: 'tool-calls' });
  });

  it.each([false, true])('runs one tool round trip through runToolLoop (stream: %s)', async (stream) => {
    server.enqueue(protocol, { toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    server.enqueue(protocol, { text: 'It is sunny in Oslo.' });
    const result = await runToolLoop({ model: model(), prompt: 'Weather in Oslo?', tools: [weather], stream });
    expect(result.text).toBe('It is sunny in Oslo.');
    expect(result.steps.map((step) => step.stopReason)).toEqual(['tool-calls', 'stop']);
    expect(result.usage.inputTokens).toBe(24);
    const [first, second] = bodies() as [Body, Body];
    expect(apiCase.toolNames(first)).toEqual(['get_weather']);
    expect(apiCase.toolResults(second)).toEqual([['call_w', 'Sunny in Oslo']]);
    if (api === 'responses') {
      expect(first.tools).toEqual([
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: false,
        },
      ]);
      expect(second.input).toEqual([
        { role: 'user', content: 'Weather in Oslo?' },
        { type: 'function_call', call_id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_w', output: 'Sunny in Oslo' },
      ]);
    } else {
      expect(second.messages).toEqual([
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_w', content: 'Sunny in Oslo' },
      ]);
    }
  });

  it('runs two parallel tool calls', async () => {
    server.enqueue(protocol, {
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Lima' } },
      ],
    });
    server.enqueue(protocol, { text: 'Both sunny.' });
    const result = await runToolLoop({ model: model({ parallelToolCalls: true }), prompt: 'Rome and Lima?', tools: [weather], toolChoice: { type: 'required' } });
    expect(result.text).toBe('Both sunny.');
    const [first, second] = bodies() as [Body, Body];
    expect(first.tool_choice).toBe('required');
    expect(first.parallel_tool_calls).toBe(true);
    expect(apiCase.toolResults(second)).toEqual([
      ['call_a', 'Sunny in Rome'],
      ['call_b', 'Sunny in Lima'],
    ]);
  });

  it('feeds a throwing tool back as an error result', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Always throws',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    server.enqueue(protocol, { toolCalls: [{ id: 'call_x', name: 'broken', arguments: {} }] });
    server.enqueue(protocol, { text: 'The tool failed.' });
    const result = await runToolLoop({ model: model(), prompt: 'Use it', tools: [broken] });
    expect(result.text).toBe('The tool failed.');
    expect(result.steps[0]?.toolResults[0]?.result.success).toBe(false);
    expect(apiCase.toolResults(bodies()[1] as Body)).toEqual([['call_x', 'Error: disk on fire']]);
  });

  describe('workspace tools refuse path escapes', () => {
    let base: string;
    beforeAll(() => {
      base = realpathSync(mkdtempSync(join(tmpdir(), `troupe-openai-${api}-ws-`)));
      mkdirSync(join(base, 'ws'));
      mkdirSync(join(base, 'outside'));
      symlinkSync(join(base, 'outside'), join(base, 'ws', 'escape'));
    });
    afterAll(() => rmSync(base, { recursive: true, force: true }));

    it('the model sees an error result for .., an absolute path outside and an escaping symlink on every tool', async () => {
      server.enqueue(protocol, {
        toolCalls: [
          { id: 'r', name: 'read_file', arguments: { path: '../outside/secret.txt' } },
          { id: 'w', name: 'write_file', arguments: { path: join(base, 'outside', 'pwned.txt'), content: 'x' } },
          { id: 'l', name: 'list_files', arguments: { path: 'escape' } },
          { id: 's', name: 'shell_exec', arguments: { command: ['pwd'], cwd: 'escape' } },
          { id: 's2', name: 'shell_exec', arguments: { command: ['ls'], cwd: '..' } },
        ],
      });
      server.enqueue(protocol, { text: 'I cannot leave the workspace.' });
      const result = await runToolLoop({ model: model(), prompt: 'Escape!', tools: createWorkspaceTools({ root: join(base, 'ws'), shellExec: true }) });
      expect(result.text).toBe('I cannot leave the workspace.');
      expect(apiCase.toolResults(bodies()[1] as Body)).toEqual([
        ['r', 'Path "../outside/secret.txt" is outside the workspace'],
        ['w', `Path "${join(base, 'outside', 'pwned.txt')}" is outside the workspace`],
        ['l', 'Path "escape" leads outside the workspace through a symlink'],
        ['s', 'Path "escape" leads outside the workspace through a symlink'],
        ['s2', 'Path ".." is outside the workspace'],
      ]);
    });
  });

  describe('structured output (generateObject)', () => {
    const Decision = z.object({ action: z.enum(['continue', 'terminate']), reason: z.string() });
    const schema = {
      type: 'object',
      properties: { action: { type: 'string', enum: ['continue', 'terminate'] }, reason: { type: 'string' } },
      required: ['action', 'reason'],
    };

    it('sends a json_schema format and validates the answer', async () => {
      server.enqueue(protocol, { text: '{"action":"terminate","reason":"all tests pass"}' });
      const { object } = await generateObject({ model: model(), schema: Decision, schemaName: 'judge_decision', prompt: 'Decide' });
      expect(object).toEqual({ action: 'terminate', reason: 'all tests pass' });
      const format = apiCase.format(bodies()[0] as Body);
      if (api === 'responses') expect(format).toEqual({ type: 'json_schema', name: 'judge_decision', schema, strict: false });
      else expect(format).toEqual({ type: 'json_schema', json_schema: { name: 'judge_decision', schema, strict: false } });
    });

    it('closes objects and sets strict with strictJsonSchema', async () => {
      server.enqueue(protocol, { text: '{"action":"terminate","reason":"r"}' });
      await generateObject({ model: model({ strictJsonSchema: true }), schema: Decision, prompt: 'Decide' });
      expect(JSON.stringify(apiCase.format(bodies()[0] as Body))).toContain('"additionalProperties":false');
      expect(JSON.stringify(apiCase.format(bodies()[0] as Body))).toContain('"strict":true');
    });

    it('uses JSON mode with the schema in the prompt for json-object servers', async () => {
      server.enqueue(protocol, { text: '{"action":"continue","reason":"r"}' });
      await generateObject({ model: model({ structuredOutput: 'json-object' }), schema: Decision, prompt: 'Decide' });
      expect(apiCase.format(bodies()[0] as Body)).toEqual({ type: 'json_object' });
    });

    it('repairs an invalid answer once, giving the model the validation error', async () => {
      server.enqueue(protocol, { text: '{"action":"pause"}' });
      server.enqueue(protocol, { text: '{"action":"continue","reason":"fix lint"}' });
      const result = await generateObject({ model: model(), schema: Decision, prompt: 'Decide' });
      expect(result).toMatchObject({ object: { action: 'continue', reason: 'fix lint' }, attempts: 2 });
      expect(apiCase.lastUserText(bodies()[1] as Body)).toContain('- action: Invalid option');
    });

    it('throws ModelOutputError with the raw text when the answer is invalid twice', async () => {
      server.enqueue(protocol, { text: 'maybe continue?' });
      server.enqueue(protocol, { text: '{"reason":"no action"}' });
      const error = await generateObject({ model: model(), schema: Decision, prompt: 'Decide' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelOutputError);
      expect(error).toMatchObject({ text: '{"reason":"no action"}', attempts: 2 });
    });
  });

  describe('errors', () => {
    it('maps 401 to a non-retryable authentication ModelError without the key', async () => {
      server.enqueue(protocol, { status: 401 });
      const error = await runToolLoop({ model: model(), prompt: 'x' }).catch((e: unknown) => e);
      expect(ModelError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'MODEL_ERROR',
        provider: apiCase.provider,
        status: 401,
        kind: 'authentication',
        retryable: false,
        providerMessage: FAKE_ERROR_MESSAGES.openai[401],
        providerErrorType: 'invalid_api_key',
      });
      expect((error as Error).message).toBe(`OpenAI API error 401 invalid_api_key: ${FAKE_ERROR_MESSAGES.openai[401]}`);
      expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(API_KEY);
    });

    it('retries a 429 after retry-after, then succeeds', async () => {
      server.enqueue(protocol, { status: 429, headers: { 'retry-after-ms': '20' } });
      const result = await runToolLoop({ model: model({ maxRetries: 1 }), prompt: 'x', stream: true });
      expect(result.text).toBe(FAKE_TEXT);
      expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
    });

    it('reports a 429 that outlasts the retries as retryable with retryAfterMs', async () => {
      server.enqueue(protocol, { status: 429, headers: { 'retry-after': '3' } });
      const error = await runToolLoop({ model: model(), prompt: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429, kind: 'rate-limit', retryable: true, retryAfterMs: 3000 });
    });

    it('maps 500 to a retryable server error', async () => {
      server.enqueue(protocol, { status: 500 });
      await expect(runToolLoop({ model: model(), prompt: 'x' })).rejects.toMatchObject({ status: 500, kind: 'server', retryable: true });
      server.enqueue(protocol, { status: 500 });
      await expect(runToolLoop({ model: model(), prompt: 'x', stream: true })).rejects.toMatchObject({ status: 500, kind: 'server' });
    });

    it('aborts mid-stream with AbortError', async () => {
      server.enqueue(protocol, { text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 150 });
      const controller = new AbortController();
      const deltas: string[] = [];
      const error = await runToolLoop({
        model: model(),
        prompt: 'count',
        signal: controller.signal,
        onTextDelta: (text) => {
          deltas.push(text);
          controller.abort();
        },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AbortError);
      expect(deltas).toEqual(['one ']);
    });

    it('a raw doStream consumer reads an error part, then the read rejects, when aborted', async () => {
      server.enqueue(protocol, { text: ['one ', 'two '], chunkDelayMs: 150 });
      const controller = new AbortController();
      const { stream } = await model().doStream({ messages: [{ role: 'user', content: 'x' }], abortSignal: controller.signal });
      const reader = stream.getReader();
      expect(await reader.read()).toEqual({ done: false, value: { type: 'text-delta', text: 'one ' } });
      controller.abort();
      const part = await reader.read();
      expect(part.value).toMatchObject({ type: 'error', error: expect.any(AbortError) });
      await expect(reader.read()).rejects.toBeInstanceOf(AbortError);
    });
  });
});

describe('createOpenAIModel settings', () => {
  it('defaults and validation', () => {
    const model = createOpenAIModel({ apiKey: 'k' });
    expect(model).toMatchObject({ modelId: OPENAI_DEFAULT_MODEL, provider: 'openai.responses', capabilities: { structuredOutput: 'json-schema' } });
    expect(() => createOpenAIModel({ api: 'soap' as never })).toThrow(ConfigError);
    expect(() => createOpenAIModel({ baseURL: 'localhost:11434' })).toThrow('baseURL');
  });

  it('reaches an OpenAI-compatible server with api chat, a baseURL and no key, using max_tokens when asked', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const local = createOpenAIModel({ api: 'chat', baseURL: `${server.url}/v1`, model: 'llama3.2', maxTokensField: 'max_tokens', maxOutputTokens: 64 });
      const result = await runToolLoop({ model: local, prompt: 'Hi' });
      expect(result.text).toBe(FAKE_TEXT);
      expect(server.requests[0]?.body).toMatchObject({ model: 'llama3.2', max_tokens: 64 });
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe('createOpenAIModel settings', () => {
  it('rejects an unknown setting by name instead of ignoring a typo', () => {
    expect(() => createOpenAIModel({ maxRetry: 2 } as never)).toThrow(/maxRetry/);
  });
});
