import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIV2 } from '@ai-sdk/openai-v2';
import { createOpenAI as createOpenAIV4 } from '@ai-sdk/openai-v4';
import { AbortError, defineTool, ModelError } from '@troupe/core';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { createFakeLlmServer, FAKE_TEXT, FAKE_TOOL_DONE_TEXT, FAKE_TOOL_FILE_CONTENT, FAKE_TOOL_FILE_NAME, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAISdk, type AISdkLanguageModel } from './index';

// Real AI SDK providers (@ai-sdk/openai 2, 3 and 4, @ai-sdk/anthropic 3) over HTTP against the in-repo fake API
// server, which speaks the OpenAI Responses, Chat Completions and Anthropic Messages wire protocols.

const API_KEY = 'sk-test-ai-sdk-key-never-shown-0123456789';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => server.close());
afterEach(() => {
  server.reset();
  server.setScenario('text');
});

interface ProviderCase {
  label: string;
  protocol: 'openai-responses' | 'openai-chat' | 'anthropic';
  specificationVersion: 'v2' | 'v3' | 'v4';
  provider: string;
  model(): AISdkLanguageModel;
}

const cases: ProviderCase[] = [
  {
    label: '@ai-sdk/openai 3 (Responses API)',
    protocol: 'openai-responses',
    specificationVersion: 'v3',
    provider: 'openai.responses',
    model: () => createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('gpt-5.5'),
  },
  {
    label: '@ai-sdk/openai 3 (Chat Completions)',
    protocol: 'openai-chat',
    specificationVersion: 'v3',
    provider: 'openai.chat',
    model: () => createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` }).chat('gpt-5.5'),
  },
  {
    label: '@ai-sdk/anthropic 3 (Messages API)',
    protocol: 'anthropic',
    specificationVersion: 'v3',
    provider: 'anthropic.messages',
    model: () => createAnthropic({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('claude-sonnet-4-5'),
  },
  {
    label: '@ai-sdk/openai 2 (Responses API, specification v2)',
    protocol: 'openai-responses',
    specificationVersion: 'v2',
    provider: 'openai.responses',
    model: () => createOpenAIV2({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('gpt-5'),
  },
  {
    label: '@ai-sdk/openai 4 (Responses API, specification v4)',
    protocol: 'openai-responses',
    specificationVersion: 'v4',
    provider: 'openai.responses',
    model: () => createOpenAIV4({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('gpt-5.5'),
  },
];

const written = new Map<string, string>();
const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  parameters: z.object({ file_path: z.string(), content: z.string() }),
  execute: ({ file_path, content }) => {
    written.set(file_path, content);
    return `wrote ${content.length} bytes to ${file_path}`;
  },
});

describe.each(cases)('fromAISdk with $label', (providerCase) => {
  const model = () => fromAISdk(providerCase.model());

  it('wraps the real provider model', () => {
    expect(providerCase.model().specificationVersion).toBe(providerCase.specificationVersion);
    expect(model()).toMatchObject({ specificationVersion: 'v1', provider: providerCase.provider });
  });

  it('generates text with usage and the stop reason', async () => {
    const response = await model().doGenerate({ system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(response).toMatchObject({ text: FAKE_TEXT, toolCalls: [], stopReason: 'stop', usage: { inputTokens: 12, outputTokens: 8 } });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ protocol: providerCase.protocol, status: 200 });
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Be brief.');
  });

  it('streams text deltas, usage and a turn-end', async () => {
    server.enqueue(providerCase.protocol, { text: ['Hello ', 'from ', 'the stream.'] });
    const texts: string[] = [];
    const result = await runToolLoop({ model: model(), prompt: 'Say hello', onTextDelta: (text) => texts.push(text) });
    expect(texts.join('')).toBe('Hello from the stream.');
    expect(texts.length).toBeGreaterThan(1);
    expect(result).toMatchObject({ text: 'Hello from the stream.', stopReason: 'stop', usage: { inputTokens: 12, outputTokens: 8 } });
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('runs a Troupe tool the model asks for, and the result reaches its next request', async () => {
    server.setScenario('tool');
    written.clear();
    for (const stream of [false, true]) {
      server.reset();
      const result = await runToolLoop({ model: model(), prompt: 'Create hello.txt', tools: [writeFile], stream });
      expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
      expect(result.steps.map((step) => step.stopReason)).toEqual(['tool-calls', 'stop']);
      expect(written.get(FAKE_TOOL_FILE_NAME)).toBe(FAKE_TOOL_FILE_CONTENT);
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]?.body)).toContain(`wrote ${FAKE_TOOL_FILE_CONTENT.length} bytes to ${FAKE_TOOL_FILE_NAME}`);
    }
  });

  it('generateObject sends the JSON schema and validates the answer', async () => {
    server.enqueue(providerCase.protocol, { text: '{"ok":true,"reason":"all tests pass"}' });
    const { object } = await generateObject({ model: model(), schema: z.object({ ok: z.boolean(), reason: z.string() }), schemaName: 'verdict', prompt: 'Verdict?' });
    expect(object).toEqual({ ok: true, reason: 'all tests pass' });
    expect(JSON.stringify(server.requests[0]?.body)).toContain('"reason"');
  });

  it('401 → ModelError of kind authentication, not retried, the API key redacted', async () => {
    server.setScenario('error401');
    const error = await model().doGenerate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: providerCase.provider, kind: 'authentication', status: 401, retryable: false });
    expect(JSON.stringify({ message: (error as Error).message, ...(error as object) })).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('429 with retry-after is retried, then succeeds; 500 beyond maxRetries is a server ModelError', async () => {
    server.enqueue(providerCase.protocol, { status: 429, headers: { 'retry-after': '0' } });
    expect((await model().doGenerate({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe(FAKE_TEXT);
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);

    server.reset();
    server.setScenario('error500');
    const error = await fromAISdk(providerCase.model(), { maxRetries: 1 }).doStream({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', kind: 'server', status: 500, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('aborting rejects with AbortError and stops the HTTP request', async () => {
    server.enqueue(providerCase.protocol, { text: FAKE_TEXT, delayMs: 10_000 });
    const controller = new AbortController();
    const pending = model().doGenerate({ messages: [{ role: 'user', content: 'hi' }], abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });
});
