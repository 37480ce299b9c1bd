/*
 * The MCP client against real servers: @modelcontextprotocol/server-filesystem
 * from npm over stdio, and this package's own Streamable HTTP server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AbortError, ConfigError, defineTool, ToolError, ToolRegistry, type AnyTool } from '@troupe/core';
import { AgentLoop, toLoopTool } from '@troupe/core/agent-loop';
import { isGroupAlive } from '@troupe/core/cli-turn';
import { runToolLoop } from '@troupe/core/model-runtime';
import { ToolManager } from '@troupe/orchestrator';
import { createScriptedChatModel } from '@troupe/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcpServer, McpError, startMcpToolServer, type McpToolset } from './index';

const require = createRequire(import.meta.url);
const filesystemPackage = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
const filesystemServer = join(dirname(filesystemPackage), 'dist', 'index.js');

let scratch: string;
const opened: McpToolset[] = [];
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-client-'));
  writeFileSync(join(scratch, 'notes.txt'), 'the answer is 42\n');
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((toolset) => toolset.close()));
  rmSync(scratch, { recursive: true, force: true });
});

async function filesystem(options: Parameters<typeof connectMcpServer>[1] = {}, command = process.execPath, args = [filesystemServer, scratch]) {
  const toolset = await connectMcpServer({ command, args }, { name: 'files', ...options });
  opened.push(toolset);
  return toolset;
}

async function waitForGroupGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && isGroupAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return !isGroupAlive(pid);
}

describe('connectMcpServer over stdio (@modelcontextprotocol/server-filesystem)', () => {
  it('lists the server tools as Troupe tools with their JSON schemas', async () => {
    const files = await filesystem();
    const names = files.tools.map((tool) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('list_directory');
    const read = files.tools.find((tool) => tool.name === 'read_text_file') as AnyTool;
    expect(read.description).toMatch(/read/i);
    expect(read.inputSchema.type).toBe('object');
    expect((read.inputSchema.properties as Record<string, unknown>).path).toBeDefined();
    expect(read.inputSchema.required).toContain('path');
    expect(files.serverInfo?.name).toBeTruthy();
    expect(typeof files.pid).toBe('number');
  });

  it('its tools run in runToolLoop: the model calls read_text_file and reads the file', async () => {
    const files = await filesystem();
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'read_text_file', input: { path: join(scratch, 'notes.txt') } }] },
        (request) => {
          const result = request.messages.at(-1);
          return { text: `Tool said: ${JSON.stringify(result)}` };
        },
      ],
    });
    const run = await runToolLoop({ model, prompt: 'What is in notes.txt?', tools: files.tools });
    expect(run.steps[0]?.toolResults[0]?.result).toEqual({ success: true, content: 'the answer is 42\n' });
    expect(run.text).toContain('the answer is 42');
  });

  it('registers into a ToolRegistry (scopes, one unregister for all) and reports server errors as tool errors', async () => {
    const files = await filesystem({ toolNamePrefix: 'fs_', scope: 'sub' });
    const registry = new ToolRegistry();
    const unregister = files.registerInto(registry);
    expect(registry.getScope('fs_read_text_file')).toBe('sub');
    expect(registry.getToolsForAgent('main')).toEqual([]);
    const outside = await registry.executeTool('fs_read_text_file', { path: '/etc/hostname' }, { toolCallId: 'c1', toolName: 'fs_read_text_file', abortSignal: new AbortController().signal, agentKind: 'sub' });
    expect(outside.success).toBe(false);
    expect(outside.content).toMatch(/denied|outside|not allowed/i);
    const ok = await registry.executeTool('fs_read_text_file', JSON.stringify({ path: join(scratch, 'notes.txt') }), { toolCallId: 'c2', toolName: 'fs_read_text_file', abortSignal: new AbortController().signal, agentKind: 'sub' });
    expect(ok).toEqual({ success: true, content: 'the answer is 42\n' });
    unregister();
    expect(registry.list()).toEqual([]);
  });

  it('its tools run in an AgentLoop’s Act phase (toLoopTool) and in an orchestrator’s tool scopes', async () => {
    const files = await filesystem();
    const loop = new AgentLoop({ id: 'mcp-act' });
    loop.use(...files.tools.map((tool) => toLoopTool(tool)));
    const act = await loop.stepAct({ task: 'read notes', toolCalls: [{ tool: 'read_text_file', input: { path: join(scratch, 'notes.txt') } }] });
    expect(act.results.map((result) => [result.tool, result.status, result.output])).toEqual([['read_text_file', 'succeeded', 'the answer is 42\n']]);
    const denied = await loop.stepAct({ task: 'read outside', toolCalls: [{ tool: 'read_text_file', input: { path: '/etc/hostname' } }] });
    expect(denied.ok).toBe(false);
    expect(denied.results[0]?.status).toBe('failed');
    expect(denied.results[0]?.error?.message).toMatch(/denied|outside|not allowed/i);
    await loop.dispose();

    const tools = new ToolManager({ workspaceTools: false });
    files.registerInto(tools.registry, 'sub');
    expect(tools.getToolsForAgent('sub').map((tool) => tool.name)).toContain('read_text_file');
    expect(tools.getToolsForAgent('main').map((tool) => tool.name)).not.toContain('read_text_file');
    const result = await tools.executeTool('read_text_file', { path: join(scratch, 'notes.txt') }, { toolCallId: 'c', toolName: 'read_text_file', abortSignal: new AbortController().signal, agentKind: 'sub' });
    expect(result).toEqual({ success: true, content: 'the answer is 42\n' });
  });

  it('close() stops the server process group; so does the caller’s AbortSignal', async () => {
    const closed = await filesystem();
    const pid = closed.pid as number;
    expect(isGroupAlive(pid)).toBe(true);
    await closed.close();
    expect(await waitForGroupGone(pid)).toBe(true);

    const controller = new AbortController();
    const tied = await filesystem({ signal: controller.signal });
    const tiedPid = tied.pid as number;
    controller.abort(new Error('run over'));
    expect(await waitForGroupGone(tiedPid)).toBe(true);
  });

  it('a server that left a helper process behind (sh: sleep & exec node) leaves no orphan: the whole group goes', async () => {
    // The `sleep` would outlive a server killed alone; only a group kill takes it.
    const wrapped = await filesystem({}, '/bin/sh', ['-c', `sleep 300 & exec "${process.execPath}" "${filesystemServer}" "${scratch}"`]);
    const pid = wrapped.pid as number;
    await wrapped.close();
    expect(await waitForGroupGone(pid)).toBe(true);
  });

  it('clear errors: bad entry, missing command, unknown tool in the filter, aborted before connecting', async () => {
    await expect(connectMcpServer({ command: '' }, { name: 'broken' })).rejects.toThrow(ConfigError);
    const missing = connectMcpServer({ command: 'troupe-no-such-mcp-server' }, { name: 'ghost' });
    await expect(missing).rejects.toThrow(McpError);
    await expect(missing).rejects.toThrow(/"troupe-no-such-mcp-server" not found/);
    await expect(filesystem({ tools: ['read_text_file', 'teleport'] })).rejects.toThrow(/no tool "teleport"/);
    await expect(filesystem({ signal: AbortSignal.abort() })).rejects.toThrow(AbortError);
  });
});

describe('connectMcpServer over Streamable HTTP (this package’s server)', () => {
  const slowStarted: string[] = [];
  const slowAborted: string[] = [];
  const tools = [
    defineTool({
      name: 'add',
      description: 'Adds two numbers',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    }),
    defineTool({
      name: 'fail',
      description: 'Always fails',
      parameters: z.object({}),
      execute: () => {
        throw new ToolError('the disk is full');
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Waits until aborted',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }, { abortSignal }) =>
        new Promise((_resolve, reject) => {
          slowStarted.push(id);
          abortSignal.addEventListener('abort', () => {
            slowAborted.push(id);
            reject(new Error('aborted'));
          });
        }),
    }),
  ];

  it('round trip: schemas, results, error results, validation by the server side', async () => {
    await using server = await startMcpToolServer({ tools });
    const remote = await connectMcpServer(server.config, { name: 'calc' });
    opened.push(remote);
    const add = remote.tools.find((tool) => tool.name === 'add') as AnyTool;
    expect(add.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    const context = { toolCallId: 'x', toolName: 'add', abortSignal: new AbortController().signal };
    expect(await add.execute({ a: 2, b: 3 }, context)).toBe('{"sum":5}');
    await expect(add.execute({ a: 'two', b: 3 }, context)).rejects.toThrow(/Invalid arguments for tool "add": a: /);
    const fail = remote.tools.find((tool) => tool.name === 'fail') as AnyTool;
    await expect(fail.execute({}, context)).rejects.toThrow(ToolError);
    await expect(fail.execute({}, context)).rejects.toThrow('the disk is full');
  });

  it('aborting a call aborts the tool on the server side', async () => {
    await using server = await startMcpToolServer({ tools });
    const remote = await connectMcpServer(server.config, { name: 'calc' });
    opened.push(remote);
    const slow = remote.tools.find((tool) => tool.name === 'slow') as AnyTool;
    const controller = new AbortController();
    const call = slow.execute({ id: 'one' }, { toolCallId: 'x', toolName: 'slow', abortSignal: controller.signal });
    for (let i = 0; i < 200 && !slowStarted.includes('one'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await expect(call).rejects.toThrow(AbortError);
    for (let i = 0; i < 200 && !slowAborted.includes('one'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(slowAborted).toContain('one');
  });

  it('refuses a client without the bearer token, and a page from another origin', async () => {
    await using server = await startMcpToolServer({ tools });
    await expect(connectMcpServer({ type: 'http', url: server.url }, { name: 'nokey' })).rejects.toThrow(McpError);
    await expect(connectMcpServer({ type: 'http', url: server.url, headers: { Authorization: 'Bearer wrong-token-wrong-token' } }, { name: 'badkey' })).rejects.toThrow(
      /could not be reached/,
    );
    const foreign = await fetch(server.url, {
      method: 'POST',
      headers: { ...server.config.headers, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
  });

  it('errors never show the token', async () => {
    await using server = await startMcpToolServer({ tools, token: 'tok-secret-0123456789abcdef' });
    await server.close();
    const error = await connectMcpServer(server.config, { name: 'gone', connectTimeoutMs: 5000 }).catch((caught: unknown) => caught);
    expect(McpError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).not.toContain('tok-secret-0123456789abcdef');
  });
});
