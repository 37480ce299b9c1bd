import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createFakeLlmServer,
  FAKE_ERROR_MESSAGES,
  FAKE_SLOW_CHUNKS,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  type FakeLlmServer,
} from './index';

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'write_file', parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } } },
  },
];

describe('fake LLM server: OpenAI Chat Completions through openai', () => {
  let server: FakeLlmServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await createFakeLlmServer({ slowChunkDelayMs: 20 });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-test-secret', maxRetries: 0 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    server.setScenario('text');
  });

  it('answers a non-streaming completion', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: FAKE_TEXT });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 });
    expect(server.requests[0]).toMatchObject({ protocol: 'openai-chat', path: '/v1/chat/completions', status: 200 });
  });

  it('streams chunks, ends with [DONE] and adds a usage chunk when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishReasons: Array<string | null | undefined> = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finishReasons.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(FAKE_TEXT);
    expect(finishReasons.at(-1)).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 });
  });

  it('omits the usage chunk unless stream_options.include_usage is set', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-secret' },
      body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await response.text();
    expect(body).not.toContain('"usage"');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('streams tool call arguments and answers the final text after the tool message', async () => {
    server.setScenario('tool');
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Create hello.txt' }];
    const runner = client.chat.completions.stream({ model: 'gpt-test', messages, tools });
    const argumentDeltas: string[] = [];
    runner.on('tool_calls.function.arguments.delta', (event) => argumentDeltas.push(event.arguments_delta));
    const first = await runner.finalChatCompletion();
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(argumentDeltas.length).toBeGreaterThan(1);
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('write_file');
    expect(JSON.parse(call.function.arguments)).toEqual({ file_path: 'hello.txt', content: FAKE_TOOL_FILE_CONTENT });

    messages.push({ role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'ok' });
    const second = await client.chat.completions.create({ model: 'gpt-test', messages, tools });
    expect(second.choices[0]?.message.content).toBe(FAKE_TOOL_DONE_TEXT);
  });

  it('fails with provider-shaped 401 and 500 errors', async () => {
    server.setScenario('error401');
    const unauthorized = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as Error).message).toContain(FAKE_ERROR_MESSAGES.openai[401]);

    server.setScenario('error500');
    const failed = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('uses scripted responses, including a pause before the answer', async () => {
    server.enqueue('openai-chat', { text: 'scripted', delayMs: 30, toolCalls: [{ id: 'call_x', name: 'lookup', arguments: { q: 1 } }] });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message).toMatchObject({
      content: 'scripted',
      tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
    });
    expect(server.requests[0]?.scripted).toBe(true);
  });

  it('streams the slow scenario in three deltas', async () => {
    server.setScenario('slow');
    const stream = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const deltas: string[] = [];
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) deltas.push(content);
    }
    expect(deltas).toEqual(FAKE_SLOW_CHUNKS);
  });
});
