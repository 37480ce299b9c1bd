/*
 * The generic ACP adapter with real ACP agents against the in-repo fake API
 * server: Gemini CLI 0.61.0 (`gemini --acp`) and @zed-industries/claude-code-acp
 * 0.16.2 (Claude Code through the Claude Agent SDK). A Troupe tool served to
 * them over MCP is in @troupe/mcp's `mcp-real-clis.int.test.ts` (this
 * package cannot depend on @troupe/mcp: its tests depend on adapter-gemini,
 * which depends on this package).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type AnyTroupeEvent } from '@troupe/core';
import {
  createFakeLlmServer,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  REAL_ACP_AGENTS,
  realAcpAgentLaunch,
  type FakeLlmServer,
  type RealAcpAgent,
} from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAcpAdapter, type AcpAdapterSettings, type AcpPermissionRequest } from './index';

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
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

const launch = (agent: RealAcpAgent): AcpAdapterSettings => realAcpAgentLaunch(agent, { baseUrl: server.url, scratch, from: import.meta.url });

async function start(settings: AcpAdapterSettings) {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => createAcpAdapter(settings) });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000 });
  await manager.ensureAgentStarted('coder', 'acp', { workDir });
  return manager;
}

describe.each(REAL_ACP_AGENTS)('real ACP agent %s through the generic acp adapter', (name) => {
  it(
    'text: the streamed answer and a session',
    async () => {
      server.setScenario('text');
      const result = await (await start(launch(name))).send('coder', 'Say hello').result;
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
        await start({ ...launch(name), eventBus: bus, canUseTool: (request) => (asked.push(request), request.kind === 'edit') })
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

  // Gemini only: claude-code-acp's client-fs tools (mcp__acp__Write…) are covered by acp-permissions.int.test.ts.
  if (name === 'gemini') it(
    'with the shared permissions contract (client fs on): a new file is created through the client, decided once',
    async () => {
      server.setScenario('tool');
      const asked: string[] = [];
      const result = await (
        await start({ ...launch(name), permissions: { canUseTool: (request) => (asked.push(`${request.kind} ${request.tool}`), true) } })
      ).send('coder', 'Create hello.txt').result;
      expect(result.agentError, result.outcome.output.slice(-3000)).toBeUndefined();
      expect(result.text, result.outcome.output.slice(-3000)).toBe(FAKE_TOOL_DONE_TEXT);
      expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
      expect(asked.filter((entry) => entry.startsWith('edit '))).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    'the same tool denied by canUseTool: nothing is written',
    async () => {
      server.setScenario('tool');
      const result = await (await start({ ...launch(name), canUseTool: () => ({ behavior: 'deny', message: 'read-only review' }) })).send('coder', 'Create hello.txt').result;
      expect(result.outcome.status).toBe('completed');
      expect(existsSync(join(workDir, 'hello.txt'))).toBe(false);
      expect(result.parts.some((part) => part.type === 'tool-call')).toBe(true);
      // claude-code-acp reports the refused call as failed; Gemini CLI says nothing more of it.
      if (name === 'claude-code-acp') expect(result.parts.find((part) => part.type === 'tool-result')).toMatchObject({ isError: true, output: 'User refused permission to run tool' });
    },
    TIMEOUT,
  );
});
