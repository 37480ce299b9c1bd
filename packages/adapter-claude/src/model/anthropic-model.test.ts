import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortError, ConfigError, defineTool, ModelError, ModelOutputError, type ChatModelV1StreamPart } from '@troupe/core';
import { createWorkspaceTools } from '@troupe/workspace-tools';
import { generateObject, runToolLoop, streamToolLoop, type ToolLoopStreamPart } from '@troupe/core/model-runtime';
import { createFakeLlmServer, FAKE_ERROR_MESSAGES, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { ANTHROPIC_DEFAULT_MODEL, createAnthropicModel, type AnthropicModelSettings } from './index';

const API_KEY = 'sk-ant-api03-test-key-never-shown-0123456789';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => server.close());
afterEach(() => server.reset());

function model(settings: AnthropicModelSettings = {}) {
  return createAnthropicModel({ apiKey: API_KEY, baseURL: server.url, model: 'claude-sonnet-5-5', maxRetries: 0, ...settings });
}

function bodies() {
  return server.requests.filter((request) => request.protocol === 'anthropic').map((request) => request.body as Record<string, unknown>);
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

describe('createAnthropicModel over @anthropic-ai/sdk', () => {
  it('generates text and sends a Messages API body', async () => {
    const result = await runToolLoop({ model: model(), system: 'Be brief.', prompt: 'Say hello', maxOutputTokens: 100, temperature: 0.2 });
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 8, cachedInputTokens: 0, reasoningTokens: undefined, totalTokens: 20 });
    expect(result.stopReason).toBe('stop');
    expect(result.steps[0]?.response).toMatchObject({ rawStopReason: 'end_turn', modelId: 'claude-sonnet-5-5', providerMetadata: { anthropic: { requestId: expect.stringMatching(/^req_fake_\d+$/) } } });
    expect(bodies()[0]).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      system: 'Be brief.',
      temperature: 0.2,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(server.requests[0]?.headers.authorization ?? server.requests[0]?.headers['x-api-key']).toMatch(/^<redacted/);
  });

  it('streams text deltas', async () => {
    server.enqueue('anthropic', { text: ['Hel', 'lo ', 'world'] });
    const deltas: string[] = [];
    const result = await runToolLoop({ model: model(), prompt: 'Hi', onTextDelta: (text) => deltas.push(text) });
    expect(deltas).toEqual(['Hel', 'lo ', 'world']);
    expect(result.text).toBe('Hello world');
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('streams the documented part order, tool calls parsed from input_json_delta', async () => {
    server.enqueue('anthropic', { text: 'Checking.', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const { stream } = await model().doStream({ messages: [{ role: 'user', content: 'Weather?' }], tools: [{ name: 'get_weather', inputSchema: weather.inputSchema }] });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) parts.push(part);
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'get_weather', input: { city: 'Paris' } },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 8, cachedInputTokens: 0, reasoningTokens: undefined } },
      {
        type: 'turn-end',
        stopReason: 'tool-calls',
        rawStopReason: 'tool_use',
        responseId: expect.stringMatching(/^msg_fake_\d+$/),
        modelId: 'claude-sonnet-5-5',
        providerMetadata: { anthropic: { requestId: expect.stringMatching(/^req_fake_\d+$/) } },
      },
    ]);
  });

  it.each([false, true])('runs one tool round trip through runToolLoop (stream: %s)', async (stream) => {
    server.enqueue('anthropic', { toolCalls: [{ id: 'toolu_w', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    server.enqueue('anthropic', { text: 'It is sunny in Oslo.' });
    const result = await runToolLoop({ model: model(), prompt: 'Weather in Oslo?', tools: [weather], stream });
    expect(result.text).toBe('It is sunny in Oslo.');
    expect(result.steps.map((step) => step.stopReason)).toEqual(['tool-calls', 'stop']);
    expect(result.usage.inputTokens).toBe(24);
    const [first, second] = bodies();
    expect(first?.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    expect(second?.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_w', content: 'Sunny in Oslo' }] },
    ]);
  });

  it('streams a tool round trip as async iterables through streamToolLoop', async () => {
    server.enqueue('anthropic', { text: ['Let me ', 'check.'], toolCalls: [{ id: 'toolu_s', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    server.enqueue('anthropic', { text: ['It is ', 'sunny ', 'in Oslo.'] });
    const run = streamToolLoop({ model: model(), prompt: 'Weather in Oslo?', tools: [weather] });
    const parts: ToolLoopStreamPart[] = [];
    for await (const part of run.fullStream) parts.push(part);
    const result = await run.result;
    expect(parts.map((part) => part.type)).toEqual([
      'step-start',
      'text-delta',
      'text-delta',
      'tool-call',
      ...(parts[4]?.type === 'usage' ? ['usage', 'tool-result'] : ['tool-result', 'usage']),
      'step-end',
      'step-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'usage',
      'step-end',
      'loop-end',
    ]);
    expect(parts.find((part) => part.type === 'tool-result')).toMatchObject({ stepNumber: 1, toolCallId: 'toolu_s', result: { success: true, content: 'Sunny in Oslo' } });
    const lastStepText = parts.flatMap((part) => (part.type === 'text-delta' && part.stepNumber === 2 ? [part.text] : [])).join('');
    expect(lastStepText).toBe(result.text);
    expect(result.text).toBe('It is sunny in Oslo.');
    expect(result.usage).toMatchObject({ inputTokens: 24, outputTokens: 16, totalTokens: 40 });
    expect(parts.at(-1)).toMatchObject({ type: 'loop-end', text: 'It is sunny in Oslo.', usage: { totalTokens: 40 } });
    expect(server.requests.map((request) => request.stream)).toEqual([true, true]);
  });

  it('runs two parallel tool calls and returns both results in one user turn', async () => {
    server.enqueue('anthropic', {
      text: 'Let me check both.',
      toolCalls: [
        { id: 'toolu_a', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'toolu_b', name: 'get_weather', arguments: { city: 'Lima' } },
      ],
    });
    server.enqueue('anthropic', { text: 'Both sunny.' });
    const result = await runToolLoop({ model: model(), prompt: 'Rome and Lima?', tools: [weather], toolChoice: { type: 'auto' } });
    expect(result.text).toBe('Both sunny.');
    expect(result.steps[0]?.toolResults.map((r) => r.result.content)).toEqual(['Sunny in Rome', 'Sunny in Lima']);
    const [first, second] = bodies();
    expect(first?.tool_choice).toEqual({ type: 'auto' });
    expect(second?.messages).toEqual([
      { role: 'user', content: 'Rome and Lima?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check both.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Rome' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Lima' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Sunny in Rome' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Sunny in Lima' },
        ],
      },
    ]);
  });

  it('feeds a throwing tool back as an is_error tool_result', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Always throws',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    server.enqueue('anthropic', { toolCalls: [{ id: 'toolu_x', name: 'broken', arguments: {} }] });
    server.enqueue('anthropic', { text: 'The tool failed.' });
    const result = await runToolLoop({ model: model(), prompt: 'Use it', tools: [broken] });
    expect(result.text).toBe('The tool failed.');
    expect((bodies()[1]?.messages as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'Error: disk on fire', is_error: true }],
    });
  });

  describe('workspace tools refuse path escapes', () => {
    let base: string;
    beforeAll(() => {
      base = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-anthropic-ws-')));
      mkdirSync(join(base, 'ws'));
      mkdirSync(join(base, 'outside'));
      symlinkSync(join(base, 'outside'), join(base, 'ws', 'escape'));
    });
    afterAll(() => rmSync(base, { recursive: true, force: true }));

    it('the model sees an error result for .., an absolute path outside and an escaping symlink on every tool', async () => {
      const root = join(base, 'ws');
      server.enqueue('anthropic', {
        toolCalls: [
          { id: 'r', name: 'read_file', arguments: { path: '../outside/secret.txt' } },
          { id: 'w', name: 'write_file', arguments: { path: join(base, 'outside', 'pwned.txt'), content: 'x' } },
          { id: 'l', name: 'list_files', arguments: { path: 'escape' } },
          { id: 's', name: 'shell_exec', arguments: { command: ['pwd'], cwd: 'escape' } },
          { id: 's2', name: 'shell_exec', arguments: { command: ['ls'], cwd: '..' } },
        ],
      });
      server.enqueue('anthropic', { text: 'I cannot leave the workspace.' });
      const result = await runToolLoop({ model: model(), prompt: 'Escape!', tools: createWorkspaceTools({ root, shellExec: true }) });
      expect(result.text).toBe('I cannot leave the workspace.');
      const results = (bodies()[1]?.messages as Array<{ content: unknown }>).at(-1)?.content as Array<{ content: string; is_error?: boolean }>;
      expect(results.map((r) => [r.is_error, r.content])).toEqual([
        [true, 'Path "../outside/secret.txt" is outside the workspace'],
        [true, `Path "${join(base, 'outside', 'pwned.txt')}" is outside the workspace`],
        [true, 'Path "escape" leads outside the workspace through a symlink'],
        [true, 'Path "escape" leads outside the workspace through a symlink'],
        [true, 'Path ".." is outside the workspace'],
      ]);
    });
  });

  describe('structured output (generateObject)', () => {
    const Decision = z.object({ action: z.enum(['continue', 'terminate']), reason: z.string() });

    it('sends output_config.format with a closed JSON Schema and validates the answer', async () => {
      server.enqueue('anthropic', { text: '{"action":"terminate","reason":"all tests pass"}' });
      const { object } = await generateObject({ model: model(), schema: Decision, system: 'You judge.', prompt: 'Decide' });
      expect(object).toEqual({ action: 'terminate', reason: 'all tests pass' });
      expect(bodies()[0]).toMatchObject({
        system: 'You judge.',
        output_config: {
          format: {
            type: 'json_schema',
            schema: {
              type: 'object',
              properties: { action: { type: 'string', enum: ['continue', 'terminate'] }, reason: { type: 'string' } },
              required: ['action', 'reason'],
              additionalProperties: false,
            },
          },
        },
      });
    });

    it('repairs an invalid answer once, giving the model the validation error', async () => {
      server.enqueue('anthropic', { text: '{"action":"pause"}' });
      server.enqueue('anthropic', { text: '{"action":"continue","reason":"fix lint"}' });
      const result = await generateObject({ model: model(), schema: Decision, prompt: 'Decide' });
      expect(result).toMatchObject({ object: { action: 'continue', reason: 'fix lint' }, attempts: 2 });
      const retry = bodies()[1]?.messages as Array<{ role: string; content: string }>;
      expect(retry[1]).toEqual({ role: 'assistant', content: '{"action":"pause"}' });
      expect(retry[2]?.content).toContain('- action: Invalid option');
      expect(retry[2]?.content).toContain('- reason: Invalid input: expected string, received undefined');
    });

    it('throws ModelOutputError with the raw text when the answer is invalid twice', async () => {
      server.enqueue('anthropic', { text: 'I think we should continue.' });
      server.enqueue('anthropic', { text: '{"action":"continue"}' });
      const error = await generateObject({ model: model(), schema: Decision, prompt: 'Decide' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelOutputError);
      expect(error).toMatchObject({ text: '{"action":"continue"}', attempts: 2 });
    });

    it('prompts for JSON instead when structuredOutput is none', async () => {
      server.enqueue('anthropic', { text: '```json\n{"action":"continue","reason":"r"}\n```' });
      const { object } = await generateObject({ model: model({ structuredOutput: 'none' }), schema: Decision, prompt: 'Decide' });
      expect(object.action).toBe('continue');
      expect(bodies()[0]?.output_config).toBeUndefined();
      expect(bodies()[0]?.system).toContain('JSON Schema');
    });
  });

  describe('errors', () => {
    it('maps 401 to a non-retryable authentication ModelError without the key', async () => {
      server.enqueue('anthropic', { status: 401 });
      const error = await runToolLoop({ model: model(), prompt: 'x' }).catch((e: unknown) => e);
      expect(ModelError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'MODEL_ERROR',
        provider: 'anthropic.messages',
        status: 401,
        kind: 'authentication',
        retryable: false,
        providerMessage: FAKE_ERROR_MESSAGES.anthropic[401],
        providerErrorType: 'authentication_error',
        requestId: expect.stringMatching(/^req_fake_\d+$/),
      });
      expect((error as Error).message).toBe(`Anthropic API error 401 authentication_error: ${FAKE_ERROR_MESSAGES.anthropic[401]}`);
      expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(API_KEY);
    });

    it('retries a 429 after retry-after, then succeeds', async () => {
      server.enqueue('anthropic', { status: 429, headers: { 'retry-after-ms': '20' } });
      const result = await runToolLoop({ model: model({ maxRetries: 1 }), prompt: 'x' });
      expect(result.text).toBe(FAKE_TEXT);
      expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
    });

    it('reports a 429 that outlasts the retries as a retryable rate-limit error with retryAfterMs', async () => {
      server.enqueue('anthropic', { status: 429, headers: { 'retry-after': '7' } });
      const error = await runToolLoop({ model: model(), prompt: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429, kind: 'rate-limit', retryable: true, retryAfterMs: 7000, providerErrorType: 'rate_limit_error' });
    });

    it('maps 500 to a retryable server error (streaming too)', async () => {
      server.enqueue('anthropic', { status: 500 });
      await expect(runToolLoop({ model: model(), prompt: 'x' })).rejects.toMatchObject({ status: 500, kind: 'server', retryable: true });
      server.enqueue('anthropic', { status: 500 });
      await expect(runToolLoop({ model: model(), prompt: 'x', stream: true })).rejects.toMatchObject({ status: 500, kind: 'server' });
    });

    it('aborts mid-stream with AbortError', async () => {
      server.enqueue('anthropic', { text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 150 });
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

    it('rejects bad settings with a ConfigError naming the field', () => {
      expect(() => createAnthropicModel({ baseURL: 'not a url' })).toThrow(ConfigError);
      expect(() => createAnthropicModel({ maxRetries: -1 })).toThrow('maxRetries');
      expect(createAnthropicModel({ apiKey: 'k' }).modelId).toBe(ANTHROPIC_DEFAULT_MODEL);
    });
  });
});

describe('createAnthropicModel settings', () => {
  it('rejects an unknown setting by name instead of ignoring a typo', () => {
    expect(() => createAnthropicModel({ maxRetry: 2 } as never)).toThrow(/maxRetry/);
  });
});
