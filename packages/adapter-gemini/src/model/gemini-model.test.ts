import { AbortError, ConfigError, ModelError, TroupeError, type ChatModelV1StreamPart } from '@troupe/core';
import { createFakeLlmServer, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGeminiModel, GEMINI_MODEL_DEFAULT_MODEL, type GeminiModelSettings } from './index';

const API_KEY = 'AIzaSyFAKE-gemini-model-test-key-000000';
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

/** A user's own fetch (as a gateway user gives): the model then sees error responses and their `retry-after` headers. */
const gatewayFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

function geminiModel(settings: GeminiModelSettings = {}) {
  return createGeminiModel({ apiKey: API_KEY, baseURL: server.url, model: 'gemini-2.5-flash', ...settings });
}

async function readParts(stream: ReadableStream<ChatModelV1StreamPart>): Promise<{ parts: ChatModelV1StreamPart[]; error?: unknown }> {
  const parts: ChatModelV1StreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  return { parts };
}

async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('createGeminiModel: contract and settings', () => {
  it('is a v1 ChatModel with native JSON-schema output and a current default model', () => {
    const model = createGeminiModel({ apiKey: API_KEY });
    expect(model).toMatchObject({
      specificationVersion: 'v1',
      provider: 'google.generative-ai',
      modelId: GEMINI_MODEL_DEFAULT_MODEL,
      maxRetries: 2,
      capabilities: { structuredOutput: 'json-schema' },
    });
    expect(GEMINI_MODEL_DEFAULT_MODEL).toBe('gemini-3.8-flash');
  });

  it('reads the API key from GEMINI_API_KEY at the first call; without any key the call rejects naming the variables', async () => {
    const saved = { gemini: process.env.GEMINI_API_KEY, google: process.env.GOOGLE_API_KEY };
    try {
      delete process.env.GEMINI_API_KEY;
      delete process.env.GOOGLE_API_KEY;
      const model = createGeminiModel({ baseURL: server.url });
      const error = await rejection(model.doGenerate({ messages: hello }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('apiKey: no API key: pass apiKey or set GEMINI_API_KEY or GOOGLE_API_KEY');
      expect(server.requests).toHaveLength(0);
      process.env.GEMINI_API_KEY = API_KEY;
      await model.doGenerate({ messages: hello });
      expect(server.requests[0]?.headers['x-goog-api-key']).toBe(`<redacted len=${API_KEY.length}>`);
    } finally {
      for (const [name, value] of [
        ['GEMINI_API_KEY', saved.gemini],
        ['GOOGLE_API_KEY', saved.google],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('rejects bad settings with one issue per field', () => {
    const bad = { apiKey: API_KEY, baseURL: 'ftp://example.com', maxRetries: -1, modle: 'x' } as GeminiModelSettings;
    expect(() => createGeminiModel(bad)).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration in createGeminiModel settings:
        - baseURL: baseURL must use http:// or https://
        - maxRetries: maxRetries must be 0 or more
        - (root): Unrecognized key: "modle"]
    `);
  });

  it('rejects a request without messages before calling the API', async () => {
    const error = await rejection(geminiModel().doGenerate({ messages: [] }));
    expect(error).toMatchObject({ name: 'InvalidArgumentError', argument: 'request.messages' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('createGeminiModel: doGenerate', () => {
  it('returns the text, usage, stop reason and ids of generateContent', async () => {
    const response = await geminiModel().doGenerate({ messages: hello });
    expect(response).toMatchObject({
      text: FAKE_TEXT,
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 8 },
      stopReason: 'stop',
      rawStopReason: 'STOP',
      responseId: expect.stringMatching(/^resp_fake_\d+$/),
      modelId: 'gemini-2.5-flash',
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash:generateContent', stream: false, status: 200 });
  });

  it('maps system, history, tools, tool choice, limits and headers into the request', async () => {
    await geminiModel({ headers: { 'x-app': 'troupe' } }).doGenerate({
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Checking.', toolCalls: [{ toolCallId: 'gemini-call-a-1', toolName: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'tool', results: [{ toolCallId: 'gemini-call-a-1', toolName: 'get_weather', content: 'Sunny', isError: false }] },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        },
      ],
      toolChoice: { type: 'tool', toolName: 'get_weather' },
      maxOutputTokens: 256,
      temperature: 0.2,
      headers: { 'x-call': 'one' },
    });
    const request = server.requests[0];
    expect(request?.headers['x-app']).toBe('troupe');
    expect(request?.headers['x-call']).toBe('one');
    expect(request?.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Weather in Paris?",
              },
            ],
            "role": "user",
          },
          {
            "parts": [
              {
                "text": "Checking.",
              },
              {
                "functionCall": {
                  "args": {
                    "city": "Paris",
                  },
                  "name": "get_weather",
                },
              },
            ],
            "role": "model",
          },
          {
            "parts": [
              {
                "functionResponse": {
                  "name": "get_weather",
                  "response": {
                    "output": "Sunny",
                  },
                },
              },
              {
                "text": "And tomorrow?",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 256,
          "temperature": 0.2,
        },
        "systemInstruction": {
          "parts": [
            {
              "text": "You are terse.",
            },
          ],
        },
        "toolConfig": {
          "functionCallingConfig": {
            "allowedFunctionNames": [
              "get_weather",
            ],
            "mode": "ANY",
          },
        },
        "tools": [
          {
            "functionDeclarations": [
              {
                "description": "Weather for a city",
                "name": "get_weather",
                "parametersJsonSchema": {
                  "additionalProperties": false,
                  "properties": {
                    "city": {
                      "type": "string",
                    },
                  },
                  "required": [
                    "city",
                  ],
                  "type": "object",
                },
              },
            ],
          },
        ],
      }
    `);
  });

  it('asks for JSON with responseMimeType and responseJsonSchema', async () => {
    server.enqueue('gemini', { text: '{"ok":true}' });
    const response = await geminiModel().doGenerate({
      messages: hello,
      responseFormat: { type: 'json', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
    });
    expect(response.text).toBe('{"ok":true}');
    expect((server.requests[0]?.body as { generationConfig: unknown }).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
  });
});

describe('createGeminiModel: model-level request defaults', () => {
  it('structuredOutput json-object sends the JSON mime type without the schema; none sends neither', async () => {
    const format = { type: 'json' as const, schema: { type: 'object' } };
    const jsonObject = geminiModel({ structuredOutput: 'json-object' });
    expect(jsonObject.capabilities).toEqual({ structuredOutput: 'json-object' });
    await jsonObject.doGenerate({ messages: hello, responseFormat: format });
    await geminiModel({ structuredOutput: 'none' }).doGenerate({ messages: hello, responseFormat: format });
    expect(server.requests.map((request) => (request.body as { generationConfig: unknown }).generationConfig)).toEqual([
      { responseMimeType: 'application/json' },
      {},
    ]);
  });

  it('maxOutputTokens applies when the request gives none', async () => {
    const model = geminiModel({ maxOutputTokens: 64 });
    await model.doGenerate({ messages: hello });
    await model.doGenerate({ messages: hello, maxOutputTokens: 8 });
    expect(server.requests.map((request) => (request.body as { generationConfig: unknown }).generationConfig)).toEqual([
      { maxOutputTokens: 64 },
      { maxOutputTokens: 8 },
    ]);
  });
});

describe('createGeminiModel: doStream', () => {
  it('streams text deltas, then usage, then turn-end', async () => {
    server.enqueue('gemini', { text: ['Hello ', 'from ', 'Gemini.'], usage: { inputTokens: 30, outputTokens: 3 } });
    const { stream } = await geminiModel().doStream({ messages: hello });
    const { parts, error } = await readParts(stream);
    expect(error).toBeUndefined();
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hello ' },
      { type: 'text-delta', text: 'from ' },
      { type: 'text-delta', text: 'Gemini.' },
      { type: 'usage', usage: { inputTokens: 30, outputTokens: 3, cachedInputTokens: undefined, reasoningTokens: undefined } },
      { type: 'turn-end', stopReason: 'stop', rawStopReason: 'STOP', responseId: expect.stringMatching(/^resp_fake_\d+$/), modelId: 'gemini-2.5-flash' },
    ]);
    expect(server.requests[0]?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('streams tool calls whole, with parsed arguments, and ends with tool-calls', async () => {
    server.enqueue('gemini', { text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const { stream } = await geminiModel().doStream({
      messages: hello,
      tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    const { parts } = await readParts(stream);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'tool-call', 'usage', 'turn-end']);
    const end = parts[3] as Extract<ChatModelV1StreamPart, { type: 'turn-end' }>;
    expect(end).toMatchObject({ type: 'turn-end', stopReason: 'tool-calls', rawStopReason: 'STOP' });
    // Gemini 2.x sends no call ids: one is made up from the response id.
    expect(parts[1]).toEqual({ type: 'tool-call', toolCallId: `gemini-call-${end.responseId}-1`, toolName: 'get_weather', input: { city: 'Paris' } });
  });

  it('abort mid-stream: an error part, then the stream rejects with AbortError', async () => {
    server.enqueue('gemini', { text: ['one ', 'two ', 'three'], chunkDelayMs: 300 });
    const controller = new AbortController();
    const { stream } = await geminiModel().doStream({ messages: hello, abortSignal: controller.signal });
    const parts: ChatModelV1StreamPart[] = [];
    let failure: unknown;
    try {
      for await (const part of stream) {
        parts.push(part);
        if (part.type === 'text-delta') controller.abort(new Error('user pressed stop'));
      }
    } catch (error) {
      failure = error;
    }
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'error']);
    expect(parts[0]).toEqual({ type: 'text-delta', text: 'one ' });
    expect(failure).toBeInstanceOf(AbortError);
    expect((parts[1] as { error: unknown }).error).toBe(failure);
  });

  it('an aborted signal rejects at once, without a request', async () => {
    const error = await rejection(geminiModel().doStream({ messages: hello, abortSignal: AbortSignal.abort() }));
    expect(TroupeError.hasCode(error, 'ABORTED')).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('abort while waiting for the first byte rejects doStream with AbortError', async () => {
    server.enqueue('gemini', { text: FAKE_TEXT, delayMs: 5_000 });
    const controller = new AbortController();
    const pending = geminiModel().doStream({ messages: hello, abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await rejection(pending)).toBeInstanceOf(AbortError);
  });

  it('abort during doGenerate rejects with AbortError', async () => {
    server.enqueue('gemini', { text: FAKE_TEXT, delayMs: 5_000 });
    const controller = new AbortController();
    const pending = geminiModel().doGenerate({ messages: hello, abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('canceling the stream early aborts the HTTP request', async () => {
    server.enqueue('gemini', { text: ['one ', 'two ', 'three'], chunkDelayMs: 200 });
    const signals: (AbortSignal | null | undefined)[] = [];
    const model = geminiModel({
      fetch: (input, init) => {
        signals.push(init?.signal);
        return globalThis.fetch(input, init);
      },
    });
    const { stream } = await model.doStream({ messages: hello });
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: 'text-delta', text: 'one ' } });
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    await reader.cancel();
    expect(await reader.closed).toBeUndefined();
    expect(signals[0]?.aborted).toBe(true);
  });
});

describe('createGeminiModel: errors and retries', () => {
  it('401 → ModelError of kind authentication, not retried, API key redacted', async () => {
    server.enqueue('gemini', { status: 401, errorMessage: `API key not valid: ${API_KEY}` });
    const error = await rejection(geminiModel().doGenerate({ messages: hello }));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'ModelError',
      code: 'MODEL_ERROR',
      provider: 'google.generative-ai',
      kind: 'authentication',
      status: 401,
      retryable: false,
      providerErrorType: 'UNAUTHENTICATED',
      providerMessage: 'API key not valid: [REDACTED]',
      message: 'Gemini API error 401 UNAUTHENTICATED: API key not valid: [REDACTED]',
    });
    expect(JSON.stringify({ ...(error as object) })).not.toContain(API_KEY);
    expect(String((error as Error).cause)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('401 on doStream rejects doStream itself', async () => {
    server.setScenario('error401');
    const error = await rejection(geminiModel().doStream({ messages: hello }));
    expect(error).toMatchObject({ name: 'ModelError', status: 401, kind: 'authentication' });
  });

  it('429 with retry-after is retried, then succeeds', async () => {
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '0' } });
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '0' } });
    const response = await geminiModel({ fetch: gatewayFetch }).doGenerate({ messages: hello });
    expect(response.text).toBe(FAKE_TEXT);
    expect(server.requests.map((request) => request.status)).toEqual([429, 429, 200]);
  });

  it('429 on doStream is retried before the stream starts', async () => {
    server.enqueue('gemini', { status: 429, headers: { 'retry-after-ms': '10' } });
    const { stream } = await geminiModel({ fetch: gatewayFetch }).doStream({ messages: hello });
    const { parts } = await readParts(stream);
    expect(parts[0]).toEqual({ type: 'text-delta', text: FAKE_TEXT });
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('429 beyond maxRetries → rate-limit ModelError carrying retryAfterMs', async () => {
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '0' } });
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '0' } });
    const error = await rejection(geminiModel({ maxRetries: 1, fetch: gatewayFetch }).doGenerate({ messages: hello }));
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 0, providerErrorType: 'RESOURCE_EXHAUSTED' });
    expect(server.requests).toHaveLength(2);
  });

  it('a retry-after longer than maxRetryDelayMs is not waited for', async () => {
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '120' } });
    const error = await rejection(geminiModel({ fetch: gatewayFetch }).doGenerate({ messages: hello }));
    expect(error).toMatchObject({ kind: 'rate-limit', retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(1);
  });

  it("without a fetch of yours, HTTP is the SDK's own: headers are not seen, the retry backs off", async () => {
    // With a fetch, this 120 s retry-after would fail at once (previous test); the SDK's fetch hides it.
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '120' } });
    const response = await geminiModel().doGenerate({ messages: hello });
    expect(response.text).toBe(FAKE_TEXT);
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('aborting during the wait before a retry rejects with AbortError', async () => {
    server.enqueue('gemini', { status: 429, headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    const pending = geminiModel({ fetch: gatewayFetch }).doGenerate({ messages: hello, abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await rejection(pending)).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('500 → retried, then a server ModelError once retries run out', async () => {
    server.setScenario('error500');
    const error = await rejection(geminiModel({ maxRetries: 1 }).doGenerate({ messages: hello }));
    expect(error).toMatchObject({ name: 'ModelError', kind: 'server', status: 500, retryable: true, providerErrorType: 'INTERNAL' });
    expect((error as Error).message).toMatch(/^Gemini API error 500 INTERNAL: /);
    expect(server.requests).toHaveLength(2);
  });

  it('500 with maxRetries 0 fails after one request', async () => {
    server.enqueue('gemini', { status: 500, errorMessage: 'boom' });
    const error = await rejection(geminiModel({ maxRetries: 0 }).doStream({ messages: hello }));
    expect(error).toMatchObject({ kind: 'server', status: 500, providerMessage: 'boom' });
    expect(server.requests).toHaveLength(1);
  });

  it('timeoutMs bounds each attempt → timeout ModelError', async () => {
    server.enqueue('gemini', { text: FAKE_TEXT, delayMs: 5_000 });
    const error = await rejection(geminiModel({ timeoutMs: 100, maxRetries: 0 }).doGenerate({ messages: hello }));
    expect(error).toMatchObject({ name: 'ModelError', kind: 'timeout', retryable: true });
  });

  it('an unreachable server → connection ModelError', async () => {
    const closed = await createFakeLlmServer();
    const url = closed.url;
    await closed.close();
    const error = await rejection(createGeminiModel({ apiKey: API_KEY, baseURL: url, maxRetries: 0 }).doGenerate({ messages: hello }));
    expect(error).toMatchObject({ name: 'ModelError', kind: 'connection', retryable: true });
    expect((error as Error).message).toMatch(/^Cannot reach the Gemini API/);
  });
});
