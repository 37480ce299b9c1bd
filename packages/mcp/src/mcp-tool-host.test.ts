/*
 * createMcpToolHost with AgentManager, end to end without a real CLI: the
 * "CLI" is an MCP client script that calls the tool it is told to.
 */
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, type AgentToolHost } from '@troupe/core/cli-turn';
import { defineTool, type AgentAdapterV1, type AgentStreamPart, type ToolContext } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpToolHost, type McpServedToolCall } from './index';

const agentScript = fileURLToPath(new URL('./__fixtures__/mcp-calling-agent.mjs', import.meta.url));

/** An adapter for the MCP-calling script: its mcpServers go to the script as JSON in the environment. */
const mcpClientAdapter: AgentAdapterV1 = {
  specificationVersion: 'v1',
  adapterId: 'mcp-client',
  capabilities: { systemPrompt: 'none', resume: false, streamingText: false, mcpServers: true },
  getProcessConfig: (member) => ({
    command: process.execPath,
    args: [agentScript],
    env: { TROUPE_TEST_MCP_SERVERS: JSON.stringify(member.mcpServers ?? {}) },
    messageDelivery: 'stdin',
  }),
  prepareMessage: (message) => message,
  parseResponse: (raw) => {
    const line = raw.split('\n').find((text) => text.includes('"type":"result"'));
    return line ? String((JSON.parse(line) as { result: unknown }).result) : '';
  },
  getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ['result'] }),
  parseLine: (_line, json): AgentStreamPart[] => {
    const event = json as { type?: string; result?: string; is_error?: boolean } | undefined;
    return event?.type === 'result' ? [{ type: 'turn-end', text: event.result ?? '', isError: event.is_error === true }] : [];
  },
};

let manager: AgentManager | undefined;
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
});

function setup() {
  const calls: Array<McpServedToolCall & { roleId: string }> = [];
  const contexts: ToolContext[] = [];
  const aborted: string[] = [];
  const started: string[] = [];
  const urls: string[] = [];
  const tools = [
    defineTool({
      name: 'lookup',
      description: 'Looks a key up',
      parameters: z.object({ key: z.string() }),
      execute: ({ key }, context) => {
        contexts.push(context);
        return `value of ${key}`;
      },
    }),
    defineTool({
      name: 'wait_forever',
      description: 'Never returns until aborted',
      parameters: z.object({}),
      execute: (_args, { abortSignal }) =>
        new Promise((_resolve, reject) => {
          started.push('wait_forever');
          abortSignal.addEventListener('abort', () => {
            aborted.push('wait_forever');
            reject(new Error('aborted'));
          });
        }),
    }),
  ];
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mcp-client', create: () => mcpClientAdapter });
  const host = createMcpToolHost({ onToolCall: (call) => calls.push(call) });
  const toolHost: AgentToolHost = {
    async serve(served, options) {
      const server = await host.serve(served, options);
      urls.push(server.config.url);
      return server;
    },
  };
  manager = new AgentManager({ adapters, toolHost, defaultTimeoutMs: 30_000 });
  return { manager, tools, calls, contexts, aborted, started, urls };
}

describe('createMcpToolHost with AgentManager', () => {
  it('serves a member’s tools to its CLI as the MCP server troupe, with the member’s workspace and toolData', async () => {
    const { manager, tools, calls, contexts } = setup();
    const data = { runId: 'run-7' };
    await manager.ensureAgentStarted('coder', 'mcp-client', { workDir: process.cwd(), tools, toolData: data });
    const turn = manager.send('coder', JSON.stringify({ server: 'troupe', tool: 'lookup', arguments: { key: 'colour' } }));
    const result = await turn.result;
    expect(result.agentError).toBeUndefined();
    expect(result.text).toBe('value of colour');
    expect(result.outcome.output).toContain('"names":["lookup","wait_forever"]');
    expect(calls.map((call) => [call.roleId, call.toolName, call.result])).toEqual([['coder', 'lookup', { success: true, content: 'value of colour' }]]);
    expect(contexts[0]).toMatchObject({ toolName: 'lookup', workspaceRoot: process.cwd(), data });
  });

  it('bad arguments come back as an error result the CLI sees', async () => {
    const { manager, tools } = setup();
    await manager.ensureAgentStarted('coder', 'mcp-client', { tools });
    const result = await manager.send('coder', JSON.stringify({ server: 'troupe', tool: 'lookup', arguments: { key: 42 } })).result;
    expect(result.agentError?.message).toMatch(/Invalid arguments for tool "lookup": key: /);
  });

  it('a canceled turn aborts the tool call it left running; stopping the member closes the server', async () => {
    const { manager, tools, aborted, started, urls } = setup();
    await manager.ensureAgentStarted('coder', 'mcp-client', { tools });
    const controller = new AbortController();
    const turn = manager.send('coder', JSON.stringify({ server: 'troupe', tool: 'wait_forever' }), { signal: controller.signal });
    for (let i = 0; i < 500 && started.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(['wait_forever']);
    controller.abort(new Error('user stop'));
    const result = await turn.result;
    expect(result.outcome.status).toBe('canceled');
    for (let i = 0; i < 200 && aborted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toEqual(['wait_forever']);
    expect((await fetch(urls[0] as string, { method: 'POST' })).status).toBe(401);
    await manager.stopAgent('coder');
    await expect(fetch(urls[0] as string, { method: 'POST' })).rejects.toThrow();
  });
});
