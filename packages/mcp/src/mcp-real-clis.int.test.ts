/*
 * The real Claude Code, Codex and Gemini CLIs calling tools over MCP, against
 * the in-repo fake API server (`mcp-tool` scenario: the fake model asks for
 * the MCP tool, then echoes its result):
 * - a Looper's Coder calls `query_looper_state`, a Troupe tool served by
 *   Troupe (AgentManager + createMcpToolHost);
 * - a member's external MCP server from npm (@modelcontextprotocol/server-filesystem,
 *   stdio) reaches the CLI through `mcpServers`.
 * In each case the tool runs and its result is in the model's next request.
 * The ACP agents driven by @troupe/adapter-acp (Gemini CLI --acp,
 * claude-code-acp) get a Troupe tool through `session/new` `mcpServers`; that
 * check lives here, as adapter-acp cannot depend on this package (its tests
 * depend on adapter-gemini, which depends on adapter-acp).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAcpAdapter } from '@troupe/adapter-acp';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { defineAgent } from '@troupe/core/agent-runtime';
import { defineTool, type AgentAdapter } from '@troupe/core';
import { createQueryLooperStateTool } from '@troupe/looper';
import {
  createFakeLlmServer,
  FAKE_MCP_TOOL_DONE_PREFIX,
  REAL_ACP_AGENTS,
  realAcpAgentLaunch,
  type FakeLlmServer,
  type RecordedRequest,
} from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLI_PROTOCOL, REAL_CLIS, realCliAdapter, type RealCli } from './__fixtures__/real-clis';
import { setupLooperWith } from './__fixtures__/looper-setup';
import { createMcpToolHost, type McpServedToolCall } from './index';

const require = createRequire(import.meta.url);
const filesystemServer = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const envServer = fileURLToPath(new URL('./__fixtures__/env-mcp-server.mjs', import.meta.url));
const TIMEOUT = 120_000;

let server: FakeLlmServer;
let scratch: string;
let manager: AgentManager | undefined;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'mcp-tool' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-real-'));
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

function registryWith(cli: RealCli): { adapters: AdapterRegistry; adapter: AgentAdapter } {
  const adapter = realCliAdapter(cli, server.url, scratch);
  const adapters = new AdapterRegistry();
  adapters.register({ type: cli, create: () => adapter });
  return { adapters, adapter };
}

const modelRequests = (cli: RealCli): RecordedRequest[] => server.requests.filter((request) => request.protocol === CLI_PROTOCOL[cli]);

describe.each(REAL_CLIS)('real %s CLI with MCP tools', (cli) => {
  it(
    'a Looper Coder calls query_looper_state (a Troupe tool served by Troupe); the state reaches the model',
    async () => {
      server.setMcpTool({ name: 'query_looper_state', arguments: {} });
      const workDir = join(scratch, 'work');
      mkdirSync(workDir);
      const calls: Array<McpServedToolCall & { roleId: string }> = [];
      const { adapters } = registryWith(cli);
      manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000, toolHost: createMcpToolHost({ onToolCall: (call) => calls.push(call) }) });
      const review = defineAgent({ id: 'review', description: 'approves', run: () => ({ text: 'Health normal', data: { health: 'normal', summary: 'ok', findings: [] } }) });
      const app = setupLooperWith({
        coder: (executor) => ({ configId: cli, member: { workDir, tools: [createQueryLooperStateTool({ executor, workspacePath: workDir })] } }),
        review,
        agentManager: manager,
        maxIterations: 1,
      });
      const ack = await app.send(JSON.stringify({ type: 'start', task: 'Check the Looper state, then report it.' }));
      expect(ack.status).toBe('completed');
      await app.looper.whenIdle();

      expect(calls.map((call) => [call.roleId, call.toolName, call.result.success])).toEqual([['looper-coder', 'query_looper_state', true]]);
      const state = calls[0]?.result.content ?? '';
      expect(state).toContain('RUNNING');
      // The tool's answer is in the model's next request, and the Coder's reply echoes it.
      const requests = modelRequests(cli);
      expect(JSON.stringify(requests.at(-1)?.body)).toContain('RUNNING');
      expect(requests.at(-1)?.reply[0]).toContain(FAKE_MCP_TOOL_DONE_PREFIX);
      expect(app.channel().map((message) => message.content).join('\n')).toContain(FAKE_MCP_TOOL_DONE_PREFIX);
    },
    TIMEOUT,
  );

  it(
    'an external stdio MCP server from npm (server-filesystem) in the member’s mcpServers',
    async () => {
      // The server serves the work directory (clients that announce MCP roots narrow it to their cwd, the same folder).
      const workDir = join(scratch, 'work');
      mkdirSync(workDir);
      const files = workDir;
      writeFileSync(join(files, 'secret-plan.txt'), `plan for ${cli}: ship on Friday\n`);
      server.setMcpTool({ name: 'read_text_file', arguments: { path: join(files, 'secret-plan.txt') } });
      const { adapters } = registryWith(cli);
      manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000 });
      await manager.ensureAgentStarted('coder', cli, {
        workDir,
        mcpServers: { files: { command: process.execPath, args: [filesystemServer, files] } },
      });
      const result = await manager.send('coder', 'Read the plan').result;
      expect(result.outcome.status).toBe('completed');
      expect(result.agentError).toBeUndefined();
      // Each CLI frames the result its own way (Codex adds the wall time, Gemini marks it untrusted); the text is there.
      expect(result.text).toContain(FAKE_MCP_TOOL_DONE_PREFIX);
      expect(result.text).toContain(`plan for ${cli}: ship on Friday`);
      const call = result.parts.find((part) => part.type === 'tool-call');
      expect(call?.type === 'tool-call' && call.toolName).toMatch(/read_text_file$/);
      expect(JSON.stringify(modelRequests(cli).at(-1)?.body)).toContain(`plan for ${cli}: ship on Friday`);
    },
    TIMEOUT,
  );

  it(
    'a server’s env reaches it, secret values included (Codex passes those through its environment)',
    async () => {
      server.setMcpTool({ name: 'read_env', arguments: { name: 'TROUPE_PROBE_TOKEN' } });
      const workDir = join(scratch, 'work');
      mkdirSync(workDir);
      const { adapters } = registryWith(cli);
      manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000 });
      await manager.ensureAgentStarted('coder', cli, {
        workDir,
        mcpServers: { probe: { command: process.execPath, args: [envServer], env: { TROUPE_PROBE_TOKEN: `probe-value-${cli}`, PLAIN: 'x' } } },
      });
      const result = await manager.send('coder', 'Read the variable').result;
      expect(result.outcome.status).toBe('completed');
      expect(JSON.stringify(modelRequests(cli).at(-1)?.body)).toContain(`TROUPE_PROBE_TOKEN=probe-value-${cli}`);
    },
    TIMEOUT,
  );
});

describe.each(REAL_ACP_AGENTS)('real ACP agent %s through the generic acp adapter, with Troupe tools', (name) => {
  it(
    'a Troupe tool served over MCP (session/new mcpServers): the agent calls it, its result reaches the model',
    async () => {
      server.setMcpTool({ name: 'project_status', arguments: {} });
      const workDir = join(scratch, 'work');
      mkdirSync(workDir);
      const settings = { ...realAcpAgentLaunch(name, { baseUrl: server.url, scratch, from: import.meta.url }), canUseTool: 'allow' as const };
      const adapters = new AdapterRegistry();
      adapters.register({ type: 'acp', create: () => createAcpAdapter(settings) });
      manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000, toolHost: createMcpToolHost() });
      const status = defineTool({ name: 'project_status', description: 'The project status', parameters: z.object({}), execute: () => `status for ${name}: green` });
      await manager.ensureAgentStarted('coder', 'acp', { workDir, tools: [status] });
      const result = await manager.send('coder', 'What is the status?').result;
      expect(result.agentError).toBeUndefined();
      expect(result.text).toContain(FAKE_MCP_TOOL_DONE_PREFIX);
      expect(result.text).toContain(`status for ${name}: green`);
      expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(`status for ${name}: green`);
    },
    TIMEOUT,
  );
});

it(
  'Gemini CLI in the user’s own home (no private home): the member’s MCP servers reach it through a private system-defaults file, the home untouched',
  async () => {
    server.setMcpTool({ name: 'read_env', arguments: { name: 'TROUPE_PROBE_TOKEN' } });
    const workDir = join(scratch, 'work');
    const userHome = join(scratch, 'user-home');
    mkdirSync(workDir);
    mkdirSync(join(userHome, '.gemini'), { recursive: true });
    // The user's own settings (their auth choice and a server of their own), as `gemini` left them.
    const userSettings = JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, mcpServers: { mine: { command: 'not-started-here' } } });
    writeFileSync(join(userHome, '.gemini', 'settings.json'), userSettings);
    const gemini = join(dirname(require.resolve('@google/gemini-cli/package.json', { paths: [dirname(require.resolve('@troupe/adapter-gemini/package.json'))] })), 'bundle', 'gemini.js');
    const adapter = createGeminiCliAdapter({
      command: gemini,
      prepareHome: false,
      env: { HOME: userHome, GEMINI_CLI_HOME: userHome, TMPDIR: join(scratch, 'tmp'), GEMINI_API_KEY: 'fake-gemini-key-own-home', GOOGLE_GEMINI_BASE_URL: server.url },
    });
    mkdirSync(join(scratch, 'tmp'));
    const defaultsFiles: Array<string | undefined> = [];
    const recording = Object.create(adapter, {
      getProcessConfig: {
        value: async (...args: Parameters<typeof adapter.getProcessConfig>) => {
          const config = await adapter.getProcessConfig(...args);
          defaultsFiles.push(config.env?.GEMINI_CLI_SYSTEM_DEFAULTS_PATH);
          return config;
        },
      },
    }) as typeof adapter;
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'gemini', create: () => recording });
    manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000 });
    await manager.ensureAgentStarted('coder', 'gemini', {
      workDir,
      mcpServers: { probe: { command: process.execPath, args: [envServer], env: { TROUPE_PROBE_TOKEN: 'probe-value-own-home' } } },
    });
    const turn = manager.send('coder', 'Read the variable');
    const result = await turn.result;
    await (await turn.run).exited;
    expect(result.outcome.status, result.outcome.status === 'completed' ? '' : String(result.outcome.error)).toBe('completed');
    expect(result.agentError).toBeUndefined();
    expect(JSON.stringify(modelRequests('gemini').at(-1)?.body)).toContain('TROUPE_PROBE_TOKEN=probe-value-own-home');
    expect(readFileSync(join(userHome, '.gemini', 'settings.json'), 'utf8')).toBe(userSettings);
    // The servers went through a private defaults file, gone with the turn.
    expect(defaultsFiles[0]).toMatch(/troupe-gemini-defaults-[^/]+\/system-defaults\.json$/);
    expect(existsSync(defaultsFiles[0]!)).toBe(false);
  },
  TIMEOUT,
);
