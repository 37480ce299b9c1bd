import Anthropic from '@anthropic-ai/sdk';
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

const writeTool: Anthropic.Tool = {
  name: 'write_file',
  description: 'Write a file',
  input_schema: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] },
};

describe('fake LLM server: Anthropic Messages through @anthropic-ai/sdk', () => {
  let server: FakeLlmServer;
  let client: Anthropic;

  beforeAll(async () => {
    server = await createFakeLlmServer({ slowChunkDelayMs: 20 });
    client = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test-secret', maxRetries: 0 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    server.setScenario('text');
  });

  it('answers a non-streaming message with the scenario text and usage', async () => {
    const message = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: FAKE_TEXT }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 8 });
    expect(message.model).toBe('claude-test');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ protocol: 'anthropic', method: 'POST', path: '/v1/messages', status: 200, model: 'claude-test', stream: false });
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization ?? headers['x-api-key']).toMatch(/^<redacted len=\d+>$/);
    expect(JSON.stringify(server.requests)).not.toContain('sk-ant-test-secret');
  });

  it('streams text with the real SSE event sequence', async () => {
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
    const eventTypes: string[] = [];
    for await (const event of stream) eventTypes.push(event.type);
    const message = await stream.finalMessage();
    expect(eventTypes).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(message.content).toEqual([{ type: 'text', text: FAKE_TEXT }]);
    expect(message.usage.output_tokens).toBe(8);
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('accepts ?beta=true and a role:"system" entry inside messages, as Claude Code sends', async () => {
    const response = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-secret', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-opus-5-5',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Say hello' },
          { role: 'system', content: 'Primary working directory: /work/dir' },
        ],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toMatch(/^req_fake_\d+$/);
    await expect(response.json()).resolves.toMatchObject({ content: [{ type: 'text', text: FAKE_TEXT }] });
  });

  it('runs the tool scenario: tool_use first, final text once the tool_result comes back', async () => {
    server.setScenario('tool');
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Create hello.txt' }];
    const first = await client.messages.stream({ model: 'claude-test', max_tokens: 64, tools: [writeTool], messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content[0];
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'write_file', input: { file_path: 'hello.txt', content: FAKE_TOOL_FILE_CONTENT } });
    if (toolUse?.type !== 'tool_use') throw new Error('expected a tool_use block');

    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'ok' }] });
    const second = await client.messages.create({ model: 'claude-test', max_tokens: 64, tools: [writeTool], messages });
    expect(second.content).toEqual([{ type: 'text', text: FAKE_TOOL_DONE_TEXT }]);
    expect(server.requests.map((request) => request.reply)).toEqual([['tool:write_file'], [`text:${FAKE_TOOL_DONE_TEXT}`]]);
  });

  it('writes to the working directory named in the system prompt when Claude Code offers Write', async () => {
    server.setScenario('tool');
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      system: 'Here is useful information about the environment:\n - Primary working directory: /srv/project\n',
      tools: [{ ...writeTool, name: 'Write' }],
      messages: [{ role: 'user', content: 'Create hello.txt' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'Write', input: { file_path: '/srv/project/hello.txt' } });
  });

  it('answers the tool scenario with plain text when no write tool is offered', async () => {
    server.setScenario('tool');
    const message = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Create hello.txt' }] });
    expect(message.content).toEqual([{ type: 'text', text: FAKE_TEXT }]);
  });

  it('fails with a provider-shaped 401', async () => {
    server.setScenario('error401');
    const error = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).status).toBe(401);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: FAKE_ERROR_MESSAGES.anthropic[401] },
    });
  });

  it('fails with a provider-shaped 500', async () => {
    server.setScenario('error500');
    const error = await client.messages
      .stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain(FAKE_ERROR_MESSAGES.anthropic[500]);
    expect(server.requests[0]).toMatchObject({ status: 500, scenario: 'error500', reply: ['error:500'] });
  });

  it('consumes scripted responses before the scenario, retry-after included', async () => {
    server.enqueue('anthropic', { status: 429, headers: { 'retry-after': '0' }, errorMessage: 'slow down' });
    server.enqueue('anthropic', { text: 'scripted', usage: { inputTokens: 3, outputTokens: 4 } });
    const retrying = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test-secret', maxRetries: 1 });
    const message = await retrying.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'scripted' }]);
    expect(message.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
    const third = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(third.content).toEqual([{ type: 'text', text: FAKE_TEXT }]);
    expect(server.requests.map((request) => [request.status, request.scripted])).toEqual([
      [429, true],
      [200, true],
      [200, false],
    ]);
  });

  it('streams scripted tool calls with input_json_delta', async () => {
    server.enqueue('anthropic', { text: 'Let me check.', toolCalls: [{ id: 'toolu_custom', name: 'lookup', arguments: { query: 'weather' } }] });
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    const deltaTypes: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltaTypes.push(event.delta.type);
    });
    const message = await stream.finalMessage();
    expect(deltaTypes).toEqual(['text_delta', 'input_json_delta', 'input_json_delta']);
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_custom', name: 'lookup', input: { query: 'weather' } },
    ]);
  });

  it('streams the slow scenario in three text deltas', async () => {
    server.setScenario('slow');
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('text', (delta) => deltas.push(delta));
    await stream.finalMessage();
    expect(deltas).toEqual(FAKE_SLOW_CHUNKS);
  });
});
