/*
 * The real Gemini CLI 0.61.0 in ACP mode (`gemini --acp`, through the
 * adapter's ACP client, in this process on the CLI's stdio) against the in-repo fake Gemini API.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AdapterRegistry, AgentManager, isGroupAlive } from '@troupe/core/cli-turn';
import { createFakeLlmServer, FAKE_SLOW_CHUNKS, FAKE_TEXT, FAKE_TOOL_DONE_TEXT, FAKE_TOOL_FILE_CONTENT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiAcpAdapter, type GeminiAcpOptions } from './acp';
import type { GeminiCliSettings } from './index';

const require = createRequire(import.meta.url);
const packageJsonPath = require.resolve('@google/gemini-cli/package.json');
const { bin } = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { bin: { gemini: string } };
const geminiBin = join(dirname(packageJsonPath), bin.gemini);

let server: FakeLlmServer;
let scratch: string;
let manager: AgentManager | undefined;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function startCoder(settings: GeminiCliSettings = {}, systemInstruction?: string, options: GeminiAcpOptions = {}) {
  scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-acp-int-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  server.reset();
  const adapter = createGeminiAcpAdapter({
    command: geminiBin,
    baseUrl: server.url,
    apiKey: 'fake-gemini-key-acp',
    home: join(scratch, 'home'),
    tmpDir: join(scratch, 'tmp'),
    ...settings,
  }, options);
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'gemini-acp', create: () => adapter });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 60_000 });
  await manager.ensureAgentStarted('coder', 'gemini-acp', { workDir, ...(systemInstruction ? { systemInstruction } : {}) });
  return { manager, workDir };
}

describe('real Gemini CLI in ACP mode against the fake API', { timeout: 120_000 }, () => {
  it('text: streamed answer, usage, session id; the system prompt file replaced the system instruction', async () => {
    server.setScenario('text');
    const { manager } = await startCoder({}, 'You are TROUPE-ACP-SYSTEM-MD.');
    const result = await manager.send('coder', 'Say hello').result;
    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 8 });
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('You are TROUPE-ACP-SYSTEM-MD.');
  });

  it('tool, auto-edit: the write_file permission is granted once, the file is written', async () => {
    server.setScenario('tool');
    const { manager, workDir } = await startCoder({ permissionMode: 'auto-edit' });
    const result = await manager.send('coder', 'Create hello.txt').result;
    expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
    expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
    expect(result.parts.filter((part) => part.type === 'tool-call' || part.type === 'tool-result').map((part) => part.type)).toEqual([
      'tool-call',
      'tool-result',
    ]);
  });

  it('tool, ask: the permission is rejected, nothing is written', async () => {
    server.setScenario('tool');
    const { manager, workDir } = await startCoder({ permissionMode: 'ask' });
    const result = await manager.send('coder', 'Create hello.txt').result;
    expect(result.outcome.status).toBe('completed');
    expect(result.parts.some((part) => part.type === 'tool-call')).toBe(true);
    expect(existsSync(join(workDir, 'hello.txt'))).toBe(false);
  });

  it('tool denied by canUseTool with a reason: a failed tool result carries it, and the model hears it with the next message (issue 27)', async () => {
    server.setScenario('tool');
    const { manager, workDir } = await startCoder({ permissionMode: 'ask' }, undefined, { canUseTool: () => ({ behavior: 'deny', message: 'TROUPE-DENY read-only review' }) });
    const result = await manager.send('coder', 'Create hello.txt').result;
    expect(existsSync(join(workDir, 'hello.txt'))).toBe(false);
    expect(result.parts.find((part) => part.type === 'tool-result')).toMatchObject({ toolName: 'write_file', isError: true, output: 'Permission denied: TROUPE-DENY read-only review' });
    expect(result.permissionDenials).toEqual([expect.objectContaining({ toolName: 'write_file', message: 'permission for write_file was denied: TROUPE-DENY read-only review' })]);
    // Gemini CLI 0.61.0 tells its model only `Tool "write_file" was canceled by the user.`; the reason follows with the next message.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('canceled by the user');
    server.setScenario('text');
    const next = await manager.send('coder', 'Why did you stop?').result;
    expect(next.text).toBe(FAKE_TEXT);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('was denied: TROUPE-DENY read-only review');
  });

  it('401: an error response → AgentError with status 401, key never shown', async () => {
    server.setScenario('error401');
    const { manager } = await startCoder();
    const result = await manager.send('coder', 'Say hello').result;
    expect(result.agentError?.status).toBe(401);
    expect(result.agentError?.message).toContain('Request had invalid authentication credentials.');
    expect(`${result.agentError?.message}${result.outcome.stderrTail}`).not.toContain('fake-gemini-key-acp');
  });

  it('abort mid-turn: the CLI and its process group are gone', async () => {
    const { manager } = await startCoder();
    server.enqueue('gemini', { text: [...FAKE_SLOW_CHUNKS], chunkDelayMs: 3000 });
    const controller = new AbortController();
    const turn = manager.send('coder', 'Say hello', { signal: controller.signal });
    const run = await turn.run;
    for await (const part of turn) {
      if (part.type === 'text-delta') {
        controller.abort(new Error('stop'));
        break;
      }
    }
    const result = await turn.result;
    expect(result.outcome.status).toBe('canceled');
    expect(isGroupAlive(run.pid as number)).toBe(false);
  });
});
