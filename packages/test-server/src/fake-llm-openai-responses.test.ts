import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
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

const writeFileTool = {
  type: 'function' as const,
  name: 'write_file',
  description: 'Write a file',
  strict: false,
  parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } },
};

describe('fake LLM server: OpenAI Responses through openai', () => {
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
    server.setCodexTool('apply_patch');
  });

  it('answers a non-streaming response with output_text and usage', async () => {
    const response = await client.responses.create({ model: 'gpt-test', input: 'Say hello' });
    expect(response.output_text).toBe(FAKE_TEXT);
    expect(response.status).toBe('completed');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 8, total_tokens: 20 });
    expect(server.requests[0]).toMatchObject({ protocol: 'openai-responses', path: '/v1/responses', status: 200, stream: false });
    expect(server.requests[0]?.headers.authorization).toBe('<redacted len=21>');
  });

  it('streams the real event names', async () => {
    const stream = await client.responses.create({ model: 'gpt-test', input: 'Say hello', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe(FAKE_TEXT);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('works with the responses.stream() helper, which checks the event order', async () => {
    server.setScenario('slow');
    const deltas: string[] = [];
    const stream = client.responses.stream({ model: 'gpt-test', input: 'Say hello' });
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(FAKE_SLOW_CHUNKS);
    expect(final.output_text).toBe(FAKE_TEXT);
  });

  it('runs the tool scenario with a function tool, then final text after function_call_output', async () => {
    server.setScenario('tool');
    const first = await client.responses.create({ model: 'gpt-test', input: 'Create hello.txt', tools: [writeFileTool] });
    const call = first.output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'write_file' });
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    expect(JSON.parse(call.arguments)).toEqual({ file_path: 'hello.txt', content: FAKE_TOOL_FILE_CONTENT });

    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Create hello.txt' },
      call,
      { type: 'function_call_output', call_id: call.call_id, output: 'ok' },
    ];
    const second = await client.responses.create({ model: 'gpt-test', input, tools: [writeFileTool], stream: true });
    let text = '';
    for await (const event of second) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(FAKE_TOOL_DONE_TEXT);
  });

  it('calls Codex apply_patch as a custom tool with an Add File patch in the working directory', async () => {
    server.setScenario('tool');
    const codexTools = [
      { type: 'function' as const, name: 'exec_command', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
      { type: 'custom' as const, name: 'apply_patch', format: { type: 'text' as const } },
    ];
    const input: ResponseInputItem[] = [
      { role: 'user', content: '<environment_context>\n  <cwd>/srv/project</cwd>\n</environment_context>' },
      { role: 'user', content: 'Create hello.txt' },
    ];
    const patch = await client.responses.create({ model: 'gpt-5.5', input, tools: codexTools });
    expect(patch.output[0]).toMatchObject({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Add File: /srv/project/hello.txt\n+hello from fake-llm\n*** End Patch\n',
    });

    server.setCodexTool('exec_command');
    const exec = await client.responses.create({ model: 'gpt-5.5', input, tools: codexTools });
    const call = exec.output[0];
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    expect(JSON.parse(call.arguments)).toEqual({ cmd: "printf '%s' 'hello from fake-llm\n' > '/srv/project/hello.txt'", workdir: '/srv/project' });
  });

  it('fails with a provider-shaped 401', async () => {
    server.setScenario('error401');
    const error = await client.responses.create({ model: 'gpt-test', input: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).error).toEqual({
      message: FAKE_ERROR_MESSAGES.openai[401],
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    });
  });

  it('fails with a provider-shaped 500 on a stream request', async () => {
    server.setScenario('error500');
    const error = await client.responses.create({ model: 'gpt-test', input: 'hi', stream: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).code).toBe('server_error');
  });

  it('consumes scripted responses in order, per protocol', async () => {
    server.enqueue('openai-responses', { status: 503, headers: { 'retry-after': '0' } });
    server.enqueue('openai-responses', { text: ['a', 'b'], toolCalls: [{ name: 'lookup', arguments: '{"q":1}' }] });
    server.enqueue('openai-chat', { text: 'not for responses' });
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-test-secret', maxRetries: 1 });
    const response = await retrying.responses.create({ model: 'gpt-test', input: 'hi' });
    expect(response.output_text).toBe('ab');
    expect(response.output[1]).toMatchObject({ type: 'function_call', name: 'lookup', arguments: '{"q":1}' });
    expect(server.requests.map((request) => request.status)).toEqual([503, 200]);
  });
});
