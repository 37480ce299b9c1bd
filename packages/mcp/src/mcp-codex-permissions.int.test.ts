/*
 * Codex with a permission callback, calling a Streamable HTTP MCP server (Troupe's own tool server): the real Codex
 * CLI 0.169.0 (`codex app-server`, spoken to by @troupe/adapter-codex in the host) against the in-repo fake API. Codex asks
 * before each MCP tool call whatever the server's transport (the adapter sets approval mode `prompt`); this proves it
 * for HTTP, where adapter-codex's own suite uses a stdio server. Lives here because adapter-codex cannot depend on
 * this package (it serves the tools).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createCodexAdapter, DEFAULT_CODEX_BASE_ARGS } from '@troupe/adapter-codex';
import { defineTool, type CanUseTool, type ToolUseRequest } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createFakeLlmServer } from '@troupe/test-server';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { startMcpToolServer, type McpToolServer } from './index';

const require = createRequire(import.meta.url);
const codexManifest = require.resolve('@openai/codex/package.json');
const codexBin = join(dirname(codexManifest), (JSON.parse(readFileSync(codexManifest, 'utf8')) as { bin: { codex: string } }).bin.codex);

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it('real Codex over app-server asks before each call of an HTTP MCP server; a denied call never runs and its reason reaches the model', async () => {
  const ran: string[] = [];
  const echo = defineTool({ name: 'echo', description: 'Echoes its text', parameters: z.object({ text: z.string() }), execute: ({ text }) => (ran.push(text), `echo: ${text}`) });
  const tools: McpToolServer = await startMcpToolServer({ tools: [echo] });
  const api = await createFakeLlmServer({ scenario: 'text' });
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-codex-perm-'));
  cleanup.push(() => rmSync(scratch, { recursive: true, force: true }), () => api.close(), () => tools.close());
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  const asked: ToolUseRequest[] = [];
  const canUseTool: CanUseTool = (request) => {
    asked.push(request);
    return ran.includes(String((request.input as { text?: unknown }).text)) ? { behavior: 'deny', message: 'ran before it was asked' } : (request.input as { text?: string }).text === 'secret' ? { behavior: 'deny', message: 'not the secret one' } : true;
  };
  const adapters = new AdapterRegistry();
  const home = join(scratch, 'home');
  adapters.register({
    type: 'codex',
    create: () =>
      createCodexAdapter({
        command: process.execPath,
        baseArgs: [codexBin, ...DEFAULT_CODEX_BASE_ARGS],
        baseUrl: api.url,
        apiKey: 'sk-troupe-mcp-0000000000000000',
        home,
        codexHome: join(home, '.codex'),
        tmpDir: join(scratch, 'tmp'),
        permissionMode: 'full-auto',
        requestMaxRetries: 0,
        streamMaxRetries: 0,
        permissions: { canUseTool },
      }),
  });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 120_000 });
  cleanup.push(() => manager.cleanup());
  // A trusted server (the default): without permissions Codex would run its tools unasked ("approve").
  await manager.ensureAgentStarted('coder', 'codex', { workDir, mcpServers: { web: tools.config } });
  const call = (text: string) => ({ name: 'echo', namespace: 'mcp__web', arguments: { text } });
  api.enqueue('openai-responses', { toolCalls: [call('public'), call('secret'), call('other')] });
  api.enqueue('openai-responses', { text: 'done' });
  const result = await manager.send('coder', 'Echo three things').result;

  expect(result.outcome.status).toBe('completed');
  expect(asked.map((request) => [request.tool, request.kind, (request.input as { text: string }).text])).toEqual([
    ['mcp__web__echo', 'mcp', 'public'],
    ['mcp__web__echo', 'mcp', 'secret'],
    ['mcp__web__echo', 'mcp', 'other'],
  ]);
  expect(ran).toEqual(['public', 'other']);
  expect(result.parts.filter((part) => part.type === 'tool-call').map((part) => part.type === 'tool-call' && part.toolCallId).sort()).toEqual(asked.map((request) => request.id).sort());
  expect(JSON.stringify(api.requests[1]?.body)).toContain('not the secret one');
}, 150_000);
