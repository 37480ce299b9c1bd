/*
 * The generic ACP adapter with real ACP agents against the in-repo fake API
 * server: Gemini CLI 0.61.0 (`gemini --acp`) and @zed-industries/claude-code-acp
 * 0.16.2 (Claude Code through the Claude Agent SDK).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AdapterRegistry, AgentManager, defineTool, EventBus, type AnyTroupeEvent } from '@troupe/core';
import { createMcpToolHost } from '@troupe/mcp';
import { createFakeLlmServer, FAKE_MCP_TOOL_DONE_PREFIX, FAKE_TEXT, FAKE_TOOL_DONE_TEXT, FAKE_TOOL_FILE_CONTENT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAcpAdapter, type AcpAdapterSettings, type AcpPermissionRequest } from './index';

const require = createRequire(import.meta.url);
function bin(name: string, command: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  return join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin[command] as string);
}
const geminiBin = bin('@google/gemini-cli', 'gemini');
const claudeAcpBin = bin('@zed-industries/claude-code-acp', 'claude-code-acp');
const TIMEOUT = 120_000;

let server: FakeLlmServer;
let scratch: string;
let workDir: string;
let manager: AgentManager | undefined;

beforeAll(async () => {
  server = await createFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  scratch = mkdtempSync(join(tmpdir(), 'troupe-acp-int-'));
  workDir = join(scratch, 'work');
  mkdirSync(workDir);
  mkdirSync(join(scratch, 'home', '.gemini'), { recursive: true });
  mkdirSync(join(scratch, 'tmp'));
  writeFileSync(join(scratch, 'home', '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { maxAttempts: 1 } }));
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

const agents = {
  gemini: (): AcpAdapterSettings => ({
    command: geminiBin,
    args: ['--acp', '--skip-trust', '-m', 'gemini-2.5-flash'],
    env: { HOME: join(scratch, 'home'), TMPDIR: join(scratch, 'tmp'), GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: 'fake-gemini-key-acp', GEMINI_CLI_NO_RELAUNCH: 'true' },
  }),
  'claude-code-acp': (): AcpAdapterSettings => ({
    command: claudeAcpBin,
    env: {
      HOME: join(scratch, 'home'),
      TMPDIR: join(scratch, 'tmp'),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake-acp-000',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      // claude-code-acp bypasses Claude Code's own prompts (it asks over ACP); as root that needs a declared sandbox.
      IS_SANDBOX: '1',
    },
  }),
};

async function start(settings: AcpAdapterSettings, member: Parameters<AgentManager['ensureAgentStarted']>[2] = {}) {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => createAcpAdapter(settings) });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000, toolHost: createMcpToolHost() });
  await manager.ensureAgentStarted('coder', 'acp', { workDir, ...member });
  return manager;
}

describe.each(Object.keys(agents) as Array<keyof typeof agents>)('real ACP agent %s through the generic acp adapter', (name) => {
  it(
    'text: the streamed answer and a session',
    async () => {
      server.setScenario('text');
      const result = await (await start(agents[name]())).send('coder', 'Say hello').result;
      expect(result.agentError).toBeUndefined();
      expect(result.text).toBe(FAKE_TEXT);
      expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    },
    TIMEOUT,
  );

  it(
    'a tool needing permission: canUseTool allows it (events on the bus), the file is written',
    async () => {
      server.setScenario('tool');
      const bus = new EventBus();
      const events: AnyTroupeEvent[] = [];
      bus.on('*', (event) => void (event.type.startsWith('acp:') && events.push(event)));
      const asked: AcpPermissionRequest[] = [];
      const result = await (
        await start({ ...agents[name](), eventBus: bus, canUseTool: (request) => (asked.push(request), request.kind === 'edit') })
      ).send('coder', 'Create hello.txt').result;
      expect(result.agentError, result.outcome.output.slice(-3000)).toBeUndefined();
      expect(result.text, result.outcome.output.slice(-3000)).toBe(FAKE_TOOL_DONE_TEXT);
      expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
      expect(asked.map((request) => request.toolName)).toEqual([name === 'gemini' ? 'write_file' : 'Write']);
      expect(events.map((event) => event.type)).toEqual(['acp:permission-requested', 'acp:permission-decided']);
      expect(events[1]?.payload).toMatchObject({ decision: 'allow' });
      expect(result.parts.filter((part) => part.type === 'tool-call' || part.type === 'tool-result').map((part) => part.type)).toEqual(['tool-call', 'tool-result']);
    },
    TIMEOUT,
  );

  it(
    'the same tool denied by canUseTool: nothing is written',
    async () => {
      server.setScenario('tool');
      const result = await (await start({ ...agents[name](), canUseTool: () => ({ behavior: 'deny', message: 'read-only review' }) })).send('coder', 'Create hello.txt').result;
      expect(result.outcome.status).toBe('completed');
      expect(existsSync(join(workDir, 'hello.txt'))).toBe(false);
      expect(result.parts.some((part) => part.type === 'tool-call')).toBe(true);
      // claude-code-acp reports the refused call as failed; Gemini CLI says nothing more of it.
      if (name === 'claude-code-acp') expect(result.parts.find((part) => part.type === 'tool-result')).toMatchObject({ isError: true, output: 'User refused permission to run tool' });
    },
    TIMEOUT,
  );

  it(
    'a Troupe tool served over MCP (session/new mcpServers): the agent calls it, its result reaches the model',
    async () => {
      server.setScenario('mcp-tool');
      server.setMcpTool({ name: 'project_status', arguments: {} });
      const status = defineTool({ name: 'project_status', description: 'The project status', parameters: z.object({}), execute: () => `status for ${name}: green` });
      const result = await (await start({ ...agents[name](), canUseTool: 'allow' }, { tools: [status] })).send('coder', 'What is the status?').result;
      expect(result.agentError).toBeUndefined();
      expect(result.text).toContain(FAKE_MCP_TOOL_DONE_PREFIX);
      expect(result.text).toContain(`status for ${name}: green`);
      expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(`status for ${name}: green`);
    },
    TIMEOUT,
  );
});
