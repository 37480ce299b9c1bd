import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTurns } from './testing/gemini-test-kit';
import { FAKE_ACP_AGENT_PATH } from '@troupe/test-server';
import { createGeminiAcpAdapter } from './acp';
import type { GeminiCliSettings } from './index';

const fakeAgent = FAKE_ACP_AGENT_PATH;

/** The ACP adapter with `gemini` replaced by the fake ACP agent (an executable node script); the real ACP client runs. */
function withFakeAgent(settings: GeminiCliSettings = {}, agentArgs: string[] = []) {
  return createGeminiAcpAdapter({ command: fakeAgent, extraArgs: agentArgs, ...settings });
}

describe('Gemini ACP adapter', () => {
  it('refuses permissions (they are BeforeTool hooks of the stream-JSON adapter), instead of ignoring them', () => {
    expect(() => createGeminiAcpAdapter({ apiKey: 'k', permissions: { canUseTool: () => true } })).toThrow(/over ACP give options.canUseTool/);
    expect(() => createGeminiAcpAdapter({ apiKey: 'k', policyFile: '/p.json' })).toThrow(/policyFile/);
  });

  it('command line: gemini --acp --skip-trust -m <model> …, this process its ACP client on its stdio (message on stdin)', async () => {
    const adapter = createGeminiAcpAdapter({});
    const config = await adapter.getProcessConfig({ additionalArgs: ['--debug'] }, '/work');
    expect(config.command).toBe('gemini');
    expect(config.args).toEqual(['--acp', '--skip-trust', '-m', 'gemini-2.5-flash', '--debug']);
    expect(config.control).toEqual(expect.any(Function));
    expect(config.installHint).toBe('npm install -g @google/gemini-cli');
    expect(config.messageDelivery).toBe('stdin');
    expect(config.cwd).toBe('/work');
    expect(adapter.capabilities).toEqual({ systemPrompt: 'env-file', resume: false, streamingText: true, mcpServers: true });
    await config.cleanup?.();
  });

  it('auto-edit asks a callback (edits allowed, the rest refused); MCP servers go to session/new', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'troupe-acp-')), 'received.jsonl');
    const [result] = await runTurns(withFakeAgent({ permissionMode: 'auto-edit' }, ['--record', record]), ['Create hello.txt'], { workDir: process.cwd(), mcpServers: { files: { command: 'fs-server' } } });
    expect(result?.text).toBe('permission: proceed_once');
    const received = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method?: string; params?: unknown });
    rmSync(dirname(record), { recursive: true, force: true });
    expect(received.find((message) => message.method === 'session/new')?.params).toEqual({ cwd: process.cwd(), mcpServers: [{ name: 'files', command: 'fs-server', args: [], env: [] }] });
  });
});

describe('the ACP client (with a fake ACP agent)', () => {
  it('sends the recorded request sequence and answers permission per mode, once', async () => {
    const answers: Record<string, string> = {};
    for (const permissionMode of ['ask', 'auto-edit', 'full-auto'] as const) {
      const [result] = await runTurns(withFakeAgent({ permissionMode }), ['Create hello.txt']);
      expect(result?.outcome.status).toBe('completed');
      answers[permissionMode] = result?.text ?? '';
      const toolResults = result?.parts.filter((part) => part.type === 'tool-result') ?? [];
      // Denied (ask): the agent reports no result for the call, the parser adds a failed one with the reason.
      expect(toolResults).toHaveLength(1);
      expect(toolResults[0]).toMatchObject(permissionMode === 'ask' ? { isError: true, output: 'Permission denied: the permission was refused' } : { isError: false });
      expect(result?.sessionId).toBe('41612880-da9f-4554-95b2-e284473c4b9d');
    }
    expect(answers).toEqual({ ask: 'permission: cancel', 'auto-edit': 'permission: proceed_once', 'full-auto': 'permission: proceed_once' });
  });

  it('what the agent received: initialize, session/new in the cwd, the prompt from stdin, the permission answer', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'troupe-acp-')), 'received.jsonl');
    const [result] = await runTurns(withFakeAgent({ permissionMode: 'full-auto' }, ['--record', record]), ['Create hello.txt'], { workDir: process.cwd() });
    expect(result?.outcome.status).toBe('completed');
    const received = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    rmSync(dirname(record), { recursive: true, force: true });
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: 'troupe', version: '1' } } },
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: process.cwd(), mcpServers: [] } },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'session/prompt',
        params: { sessionId: '41612880-da9f-4554-95b2-e284473c4b9d', prompt: [{ type: 'text', text: 'Create hello.txt' }] },
      },
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } },
    ]);
  });

  it('an agent that exits early: the turn fails with its code (explainable by describeGeminiExitCode)', async () => {
    const [result] = await runTurns(withFakeAgent({}, ['--exit-on-initialize', '41']), ['hi']);
    expect(result?.outcome.status).toBe('failed');
    expect(result?.outcome.exitCode).toBe(41);
  });

  it('a missing gemini: command not found, with the install hint', async () => {
    const [result] = await runTurns(createGeminiAcpAdapter({ command: '/nonexistent/gemini' }), ['hi']);
    expect(result?.outcome.status).toBe('failed');
    const error = result?.outcome.status === 'failed' ? result.outcome.error : undefined;
    expect(error).toMatchObject({ code: 'COMMAND_NOT_FOUND' });
    expect(error?.message).toContain('Command "/nonexistent/gemini" was not found on PATH (spawn ENOENT). Install it with `npm install -g @google/gemini-cli`');
  });
});
