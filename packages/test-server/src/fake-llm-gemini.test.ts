import { ApiError, GoogleGenAI, Type, type Content } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createFakeLlmServer,
  FAKE_ERROR_MESSAGES,
  FAKE_GEMINI_ROUTER_ANSWER,
  FAKE_SLOW_CHUNKS,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  type FakeLlmServer,
} from './index';

const writeFile = {
  functionDeclarations: [
    {
      name: 'write_file',
      description: 'Write a file',
      parameters: { type: Type.OBJECT, properties: { file_path: { type: Type.STRING }, content: { type: Type.STRING } } },
    },
  ],
};

describe('fake LLM server: Gemini generateContent through @google/genai', () => {
  let server: FakeLlmServer;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    server = await createFakeLlmServer({ slowChunkDelayMs: 20 });
    ai = new GoogleGenAI({ apiKey: 'gemini-test-secret', httpOptions: { baseUrl: server.url } });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    server.setScenario('text');
  });

  it('answers generateContent with text and usageMetadata', async () => {
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hello' });
    expect(response.text).toBe(FAKE_TEXT);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 });
    expect(server.requests[0]).toMatchObject({
      protocol: 'gemini',
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      model: 'gemini-2.5-flash',
      stream: false,
      status: 200,
    });
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('<redacted len=18>');
  });

  it('streams SSE chunks from streamGenerateContent?alt=sse', async () => {
    server.setScenario('slow');
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Say hello' });
    const texts: string[] = [];
    let finishReason: string | undefined;
    for await (const chunk of stream) {
      texts.push(chunk.text ?? '');
      finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
    }
    expect(texts).toEqual(FAKE_SLOW_CHUNKS);
    expect(finishReason).toBe('STOP');
    expect(server.requests[0]?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('runs the tool scenario: functionCall first, final text after the functionResponse', async () => {
    server.setScenario('tool');
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Create hello.txt' }] }];
    const first = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config: { tools: [writeFile] } });
    expect(first.functionCalls).toEqual([{ name: 'write_file', args: { file_path: 'hello.txt', content: FAKE_TOOL_FILE_CONTENT } }]);

    contents.push(first.candidates?.[0]?.content ?? {}, {
      role: 'user',
      parts: [{ functionResponse: { name: 'write_file', response: { output: 'ok' } } }],
    });
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents, config: { tools: [writeFile] } });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe(FAKE_TOOL_DONE_TEXT);
  });

  it('fails with a provider-shaped 401 that the SDK surfaces as ApiError', async () => {
    server.setScenario('error401');
    const error = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect(JSON.parse((error as ApiError).message)).toEqual({
      error: { code: 401, message: FAKE_ERROR_MESSAGES.gemini[401], status: 'UNAUTHENTICATED' },
    });
  });

  it('fails with a provider-shaped 500 on a stream', async () => {
    server.setScenario('error500');
    const error = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect((error as ApiError).message).toContain('"status":"INTERNAL"');
  });

  it('answers the Gemini CLI model router with a schema-valid JSON object, outside the queue', async () => {
    server.enqueue('gemini', { text: 'queued' });
    const router = await ai.models.generateContent({
      model: 'gemini-3.5-flash-lite',
      contents: 'route this',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'object',
          properties: { complexity_reasoning: { type: 'string' }, complexity_score: { type: 'integer', minimum: 1 } },
        },
      },
    });
    expect(JSON.parse(router.text ?? '')).toEqual(FAKE_GEMINI_ROUTER_ANSWER);
    const next = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(next.text).toBe('queued');
  });

  it('sends scripted function calls with their ids and custom usage', async () => {
    server.enqueue('gemini', { toolCalls: [{ id: 'fc-1', name: 'lookup', arguments: { q: 1 } }], usage: { inputTokens: 5, outputTokens: 6 } });
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(response.functionCalls).toEqual([{ id: 'fc-1', name: 'lookup', args: { q: 1 } }]);
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11 });
  });

  it('sends Gemini-only extras: thoughts, thought signatures, finishReason, usage counts and error details', async () => {
    server.enqueue('gemini', {
      text: ['Hi', ' there'],
      gemini: { thoughts: ['Planning.'], thoughtSignature: 'sig-text', finishReason: 'MAX_TOKENS', usageMetadata: { thoughtsTokenCount: 7 } },
    });
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.candidates?.[0]?.content?.parts)).toEqual([
      [{ text: 'Planning.', thought: true }],
      [{ text: 'Hi' }],
      [{ text: ' there', thoughtSignature: 'sig-text' }],
    ]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ thoughtsTokenCount: 7, candidatesTokenCount: 8 });

    server.enqueue('gemini', { toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }], gemini: { thoughtSignature: 'sig-call' } });
    const calls = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(calls.candidates?.[0]?.content?.parts).toEqual([
      { functionCall: { name: 'a', args: {} }, thoughtSignature: 'sig-call' },
      { functionCall: { name: 'b', args: {} } },
    ]);

    const retryInfo = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' };
    server.enqueue('gemini', { status: 429, gemini: { errorDetails: [retryInfo] } });
    const error = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }).catch((caught: unknown) => caught);
    expect(JSON.parse((error as ApiError).message).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', details: [retryInfo] });
    expect(() => server.enqueue('gemini', { text: 'x', gemini: { thoughts: 'no' as unknown as string[] } })).toThrow(
      'enqueue: gemini.thoughts must be an array of strings',
    );
  });
});
