import { defineTool, type ChatModelV1StreamPart } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import {
  createFakeLlmServer,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  FAKE_TOOL_FILE_NAME,
  type FakeLlmServer,
} from '@troupe/test-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGeminiModel } from './index';

const API_KEY = 'AIzaSyFAKE-gemini-tools-test-key-000000';

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
  return createGeminiModel({ apiKey: API_KEY, baseURL: server.url, model: 'gemini-2.5-flash' });
}

/** The `contents` of the n-th recorded request. */
function contentsOf(index: number): Array<{ role: string; parts: Array<Record<string, unknown>> }> {
  return (server.requests[index]?.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
}

const weatherTool = (log: string[]) =>
  defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      log.push(city);
      return { city, sky: city === 'Paris' ? 'sunny' : 'rainy' };
    },
  });

describe('createGeminiModel with runToolLoop', () => {
  it('one tool round trip: functionCall → the tool runs → functionResponse → final answer', async () => {
    server.setScenario('tool');
    const written: Array<{ file_path: string; content: string }> = [];
    const writeFile = defineTool({
      name: 'write_file',
      description: 'Write a file',
      parameters: z.object({ file_path: z.string(), content: z.string() }),
      execute: async (args) => {
        written.push(args);
        return `Wrote ${args.content.length} bytes to ${args.file_path}`;
      },
    });
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Create hello.txt', tools: [writeFile] });

    expect(written).toEqual([{ file_path: FAKE_TOOL_FILE_NAME, content: FAKE_TOOL_FILE_CONTENT }]);
    expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
    expect(result.steps.map((step) => step.stopReason)).toEqual(['tool-calls', 'stop']);
    expect(result.usage).toMatchObject({ inputTokens: 24, outputTokens: 16 });
    expect(server.requests).toHaveLength(2);
    const callId = result.steps[0]?.toolCalls[0]?.toolCallId;
    expect(callId).toMatch(/^gemini-call-/);
    expect(contentsOf(1)).toEqual([
      { role: 'user', parts: [{ text: 'Create hello.txt' }] },
      { role: 'model', parts: [{ functionCall: { name: 'write_file', args: { file_path: FAKE_TOOL_FILE_NAME, content: FAKE_TOOL_FILE_CONTENT } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: 'Wrote 20 bytes to hello.txt' } } }] },
    ]);
  });

  it('streams the steps through doStream when onTextDelta is given', async () => {
    server.enqueue('gemini', { text: 'Checking. ', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    server.enqueue('gemini', { text: ['It is ', 'sunny.'] });
    const deltas: string[] = [];
    const cities: string[] = [];
    const result = await runToolLoop({
      model: geminiModel(),
      prompt: 'Weather in Paris?',
      tools: [weatherTool(cities)],
      onTextDelta: (text) => deltas.push(text),
    });
    expect(deltas).toEqual(['Checking. ', 'It is ', 'sunny.']);
    expect(cities).toEqual(['Paris']);
    expect(result.text).toBe('It is sunny.');
    expect(server.requests.map((request) => request.stream)).toEqual([true, true]);
    expect(contentsOf(1)[1]).toEqual({
      role: 'model',
      parts: [{ text: 'Checking. ' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
    });
  });

  it('two parallel tool calls run, and both results go back in one user turn, in call order', async () => {
    server.enqueue('gemini', {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Tokyo' } },
      ],
    });
    server.enqueue('gemini', { text: 'Paris is sunny, Tokyo is rainy.' });
    const cities: string[] = [];
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Weather in Paris and Tokyo?', tools: [weatherTool(cities)] });

    expect(cities.sort()).toEqual(['Paris', 'Tokyo']);
    expect(result.text).toBe('Paris is sunny, Tokyo is rainy.');
    const [first, second] = result.steps[0]?.toolCalls ?? [];
    expect(first?.toolCallId).not.toBe(second?.toolCallId);
    expect(contentsOf(1).slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: '{"city":"Paris","sky":"sunny"}' } } },
          { functionResponse: { name: 'get_weather', response: { output: '{"city":"Tokyo","sky":"rainy"}' } } },
        ],
      },
    ]);
  });

  it('keeps Gemini 3 call ids: the functionCall and its functionResponse carry the id back', async () => {
    server.enqueue('gemini', { toolCalls: [{ id: 'fc_abc123', name: 'get_weather', arguments: { city: 'Paris' } }] });
    server.enqueue('gemini', { text: 'Sunny.' });
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Weather?', tools: [weatherTool([])] });
    expect(result.steps[0]?.toolCalls[0]).toEqual({
      toolCallId: 'fc_abc123',
      toolName: 'get_weather',
      input: { city: 'Paris' },
      providerMetadata: { google: { functionCallId: 'fc_abc123' } },
    });
    expect(contentsOf(1).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 'fc_abc123', name: 'get_weather', args: { city: 'Paris' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'fc_abc123', name: 'get_weather', response: { output: '{"city":"Paris","sky":"sunny"}' } } }],
      },
    ]);
  });

  it('a tool that throws: the model gets the error as a functionResponse error and the run goes on', async () => {
    server.enqueue('gemini', { toolCalls: [{ name: 'read_config', arguments: { path: '/etc/app.json' } }] });
    server.enqueue('gemini', { text: 'The config file could not be read.' });
    const readConfig = defineTool({
      name: 'read_config',
      description: 'Read a config file',
      parameters: z.object({ path: z.string() }),
      execute: () => {
        throw new Error('disk unavailable');
      },
    });
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Read the config', tools: [readConfig] });
    expect(result.text).toBe('The config file could not be read.');
    expect(result.steps[0]?.toolResults[0]?.result).toEqual({ success: false, content: 'Error: disk unavailable', error: 'Error: disk unavailable' });
    expect(contentsOf(1)[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'read_config', response: { error: 'Error: disk unavailable' } } }],
    });
  });

  it('invalid arguments from the model become an error result, not a crash', async () => {
    server.enqueue('gemini', { toolCalls: [{ name: 'get_weather', arguments: { town: 'Paris' } }] });
    server.enqueue('gemini', { text: 'Sorry.' });
    const cities: string[] = [];
    const result = await runToolLoop({ model: geminiModel(), prompt: 'Weather?', tools: [weatherTool(cities)] });
    expect(cities).toEqual([]);
    const response = (contentsOf(1)[2]?.parts[0]?.functionResponse as { response: { error?: string } }).response;
    expect(response.error).toMatch(/^Invalid arguments for tool "get_weather": city: /);
    expect(result.text).toBe('Sorry.');
  });

  it('aborting the run mid-stream rejects with AbortError', async () => {
    server.enqueue('gemini', { text: ['one ', 'two ', 'three'], chunkDelayMs: 300 });
    const controller = new AbortController();
    const parts: string[] = [];
    const run = runToolLoop({
      model: geminiModel(),
      prompt: 'Count',
      signal: controller.signal,
      onTextDelta: (text) => {
        parts.push(text);
        controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError', code: 'ABORTED' });
    expect(parts).toEqual(['one ']);
  });
});

describe('createGeminiModel: tool calls in doGenerate', () => {
  it('returns parsed tool calls and the tool-calls stop reason', async () => {
    server.enqueue('gemini', { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const response = await geminiModel().doGenerate({
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'required' },
    });
    expect(response.stopReason).toBe('tool-calls');
    expect(response.toolCalls).toEqual([
      { toolCallId: `gemini-call-${response.responseId}-1`, toolName: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect((server.requests[0]?.body as { toolConfig: unknown }).toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('streams nothing but a tool call when the model answers with a call only', async () => {
    server.enqueue('gemini', { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const { stream } = await geminiModel().doStream({
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }],
    });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['tool-call', 'usage', 'turn-end']);
  });
});
