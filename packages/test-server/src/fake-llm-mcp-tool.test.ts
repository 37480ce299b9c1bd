/*
 * The `mcp-tool` scenario: the fake model asks for an MCP tool under the
 * name each CLI gives it, then echoes the tool's result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeLlmServer, FAKE_MCP_TOOL_DONE_PREFIX, FakeLlmServerError, type FakeLlmServer } from './index';

const servers: FakeLlmServer[] = [];
async function start(): Promise<FakeLlmServer> {
  const server = await createFakeLlmServer({ scenario: 'mcp-tool', mcpTool: { name: 'query_looper_state', arguments: { verbose: true } } });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function post(server: FakeLlmServer, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('the mcp-tool scenario', () => {
  it('Anthropic: calls mcp__<server>__<tool> when offered, or when only named in the prompt (deferred), then echoes the result', async () => {
    const server = await start();
    const offered = await post(server, '/v1/messages', {
      model: 'claude-fake',
      max_tokens: 64,
      tools: [{ name: 'Write' }, { name: 'mcp__troupe__query_looper_state' }],
      messages: [{ role: 'user', content: 'status?' }],
    });
    expect(offered.content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'mcp__troupe__query_looper_state', input: { verbose: true } }]);
    const deferred = await post(server, '/v1/messages', {
      model: 'claude-fake',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Deferred tools, load with ToolSearch:\nWebFetch\nmcp__troupe__query_looper_state\n' }],
      tools: [{ name: 'ToolSearch' }],
      messages: [{ role: 'user', content: 'status?' }],
    });
    expect((deferred.content as Array<{ name: string }>)[0]?.name).toBe('mcp__troupe__query_looper_state');
    const done = await post(server, '/v1/messages', {
      model: 'claude-fake',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'status?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'mcp__troupe__query_looper_state', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'IDLE, iteration 0' }] }] },
      ],
    });
    expect(done.content).toEqual([{ type: 'text', text: `${FAKE_MCP_TOOL_DONE_PREFIX}IDLE, iteration 0` }]);
  });

  it('Responses (Codex): calls the tool inside its mcp__ namespace; searches for it first when it is deferred behind tool_search', async () => {
    const server = await start();
    const namespaced = await post(server, '/v1/responses', {
      model: 'gpt-5',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'status?' }] }],
      tools: [{ type: 'function', name: 'exec_command' }, { type: 'namespace', name: 'mcp__troupe', tools: [{ type: 'function', name: 'query_looper_state' }] }],
    });
    expect(namespaced.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'query_looper_state', namespace: 'mcp__troupe', arguments: '{"verbose":true}' }),
    ]);
    const deferredInput = [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<tools>\nDeferred tool namespaces:\n- mcp__troupe\n</tools>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'status?' }] },
    ];
    const search = await post(server, '/v1/responses', { model: 'gpt-5.5', input: deferredInput, tools: [{ type: 'tool_search', execution: 'client' }] });
    expect(search.output).toEqual([expect.objectContaining({ type: 'tool_search_call', execution: 'client', arguments: { query: 'query_looper_state' } })]);
    const afterSearch = await post(server, '/v1/responses', {
      model: 'gpt-5.5',
      tools: [{ type: 'tool_search', execution: 'client' }],
      input: [
        ...deferredInput,
        { type: 'tool_search_call', call_id: 'c1', execution: 'client', arguments: { query: 'query_looper_state' } },
        { type: 'tool_search_output', call_id: 'c1', execution: 'client', tools: [{ type: 'namespace', name: 'mcp__troupe', tools: [{ type: 'function', name: 'query_looper_state' }] }] },
      ],
    });
    expect(afterSearch.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'query_looper_state', namespace: 'mcp__troupe' })]);
    const done = await post(server, '/v1/responses', {
      model: 'gpt-5',
      input: [
        { type: 'function_call', call_id: 'c2', name: 'query_looper_state', namespace: 'mcp__troupe', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c2', output: 'RUNNING, iteration 2' },
      ],
    });
    expect(JSON.stringify(done.output)).toContain(`${FAKE_MCP_TOOL_DONE_PREFIX}RUNNING, iteration 2`);
  });

  it('Gemini: calls mcp_<server>_<tool>, then echoes the function response', async () => {
    const server = await start();
    const path = '/v1beta/models/gemini-2.5-flash:generateContent';
    const call = await post(server, path, {
      contents: [{ role: 'user', parts: [{ text: 'status?' }] }],
      tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'mcp_troupe_query_looper_state' }] }],
    });
    expect(JSON.stringify(call)).toContain('"functionCall":{"name":"mcp_troupe_query_looper_state","args":{"verbose":true}}');
    const done = await post(server, path, {
      contents: [
        { role: 'user', parts: [{ text: 'status?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'mcp_troupe_query_looper_state', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'mcp_troupe_query_looper_state', response: { output: 'IDLE' } } }] },
      ],
    });
    expect(JSON.stringify(done)).toContain(`${FAKE_MCP_TOOL_DONE_PREFIX}IDLE`);
  });

  it('says so when the tool is nowhere to be seen, and validates the tool setting', async () => {
    const server = await start();
    const none = await post(server, '/v1/messages', { model: 'claude-fake', max_tokens: 64, tools: [{ name: 'Write' }], messages: [{ role: 'user', content: 'hi' }] });
    expect(none.content).toEqual([{ type: 'text', text: 'fake-llm: the MCP tool "query_looper_state" was not offered.' }]);
    expect(() => server.setMcpTool({ name: 'bad name' })).toThrow(FakeLlmServerError);
    expect(() => server.setMcpTool({ name: 'ok', arguments: [] as unknown as Record<string, unknown> })).toThrow(/arguments must be an object/);
    server.setMcpTool({ name: 'task_finish', arguments: { result: 'done' } });
    const finish = await post(server, '/v1/messages', {
      model: 'claude-fake',
      max_tokens: 64,
      tools: [{ name: 'mcp__troupe__task_finish' }],
      messages: [{ role: 'user', content: 'finish' }],
    });
    expect(finish.content).toEqual([expect.objectContaining({ name: 'mcp__troupe__task_finish', input: { result: 'done' } })]);
  });
});
