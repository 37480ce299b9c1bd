import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { assertAdapterConformance, replayThroughAdapter } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { fixturePath, runTurns } from './__fixtures__/fake-cli';
import { createGeminiAcpAdapter, geminiAcpDriverPath, isGeminiAcpTurnEnd, type GeminiCliSettings } from './index';

const fakeAgent = fixturePath('fake-acp-agent.mjs');

/** The ACP adapter with `gemini` replaced by the fake ACP agent (an executable node script); the real driver runs. */
function withFakeAgent(settings: GeminiCliSettings = {}, agentArgs: string[] = []) {
  return createGeminiAcpAdapter({ command: fakeAgent, extraArgs: agentArgs, ...settings });
}

describe('Gemini ACP adapter', () => {
  it('command line: node <driver> --permission <mode> -- gemini --acp --skip-trust -m <model> …, message on stdin', async () => {
    const config = await createGeminiAcpAdapter({ permissionMode: 'auto-edit' }).getProcessConfig({ additionalArgs: ['--debug'] }, '/work');
    expect(config.command).toBe(process.execPath);
    expect(config.args).toEqual([
      geminiAcpDriverPath,
      '--permission',
      'auto-edit',
      '--install-hint',
      'npm install -g @google/gemini-cli',
      '--',
      'gemini',
      '--acp',
      '--skip-trust',
      '-m',
      'gemini-2.5-flash',
      '--debug',
    ]);
    expect(config.messageDelivery).toBe('stdin');
    expect(config.cwd).toBe('/work');
  });

  it('replays the recorded ACP tool-permission stream into parts', async () => {
    const result = await replayThroughAdapter(createGeminiAcpAdapter(), {
      name: 'acp-tool-permission',
      stdoutFile: fixturePath('acp-tool-permission.stdout.jsonl'),
    });
    expect(result.status).toBe('completed');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "sessionId": "41612880-da9f-4554-95b2-e284473c4b9d",
          "type": "session",
        },
        {
          "input": {
            "content": [
              {
                "_meta": {
                  "kind": "add",
                },
                "newText": "hello from fake-llm
      ",
                "oldText": "",
                "path": "/workspace/hello.txt",
                "type": "diff",
              },
            ],
            "kind": "edit",
            "locations": [
              {
                "path": "/workspace/hello.txt",
              },
            ],
            "title": "Writing to hello.txt",
          },
          "toolCallId": "write_file__write_file_1795318144717_0",
          "toolName": "write_file",
          "type": "tool-call",
        },
        {
          "isError": false,
          "output": [
            {
              "_meta": {
                "kind": "add",
              },
              "newText": "hello from fake-llm
      ",
              "oldText": "",
              "path": "/workspace/hello.txt",
              "type": "diff",
            },
          ],
          "toolCallId": "write_file__write_file_1795318144717_0",
          "toolName": "write_file",
          "type": "tool-result",
        },
        {
          "text": "Done: the file has been written.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "inputTokens": 24,
            "outputTokens": 16,
          },
        },
        {
          "isError": false,
          "stopReason": "end_turn",
          "text": "Done: the file has been written.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('error responses end the turn with the API status; only the prompt response or an error completes', async () => {
    const error401 = '{"jsonrpc":"2.0","id":2,"error":{"code":401,"message":"{\\"error\\":{\\"code\\":401,\\"message\\":\\"Bad key (fake-llm)\\",\\"status\\":\\"UNAUTHENTICATED\\"}}"}}';
    const noSession = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"details":"No previous sessions found for this project."}}}';
    const parser = createGeminiAcpAdapter();
    expect(parser.parseLine(error401, JSON.parse(error401))).toEqual([
      { type: 'error', message: 'API error 401 UNAUTHENTICATED: Bad key (fake-llm)', status: 401 },
      { type: 'turn-end', text: 'API error 401 UNAUTHENTICATED: Bad key (fake-llm)', isError: true, stopReason: 'error' },
    ]);
    expect(parser.parseLine(noSession, JSON.parse(noSession))).toEqual([
      { type: 'error', message: 'Internal error: No previous sessions found for this project.' },
      { type: 'turn-end', text: 'Internal error: No previous sessions found for this project.', isError: true, stopReason: 'error' },
    ]);
    const recorded = readFileSync(fixturePath('acp-text.stdout.jsonl'), 'utf8').trim().split('\n');
    expect(recorded.map(isGeminiAcpTurnEnd)).toEqual([false, false, false, false, true]);
    expect(isGeminiAcpTurnEnd(error401)).toBe(true);
    expect(isGeminiAcpTurnEnd('{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}')).toBe(false);
  });

  it('passes the core adapter conformance suite', async () => {
    const report = await assertAdapterConformance({
      createAdapter: () => createGeminiAcpAdapter(),
      replays: [
        { name: 'acp-text', stdoutFile: fixturePath('acp-text.stdout.jsonl'), expectedText: 'Hello from fake-llm.' },
        { name: 'acp-tool-permission', stdoutFile: fixturePath('acp-tool-permission.stdout.jsonl'), expectedText: 'Done: the file has been written.' },
      ],
    });
    expect(report.failures).toEqual([]);
  });
});

describe('the ACP driver (with a fake ACP agent)', () => {
  it('sends the recorded request sequence and answers permission per mode, once', async () => {
    const answers: Record<string, string> = {};
    for (const permissionMode of ['ask', 'auto-edit', 'full-auto'] as const) {
      const [result] = await runTurns(withFakeAgent({ permissionMode }), ['Create hello.txt']);
      expect(result?.outcome.status).toBe('completed');
      answers[permissionMode] = result?.text ?? '';
      const toolResults = result?.parts.filter((part) => part.type === 'tool-result') ?? [];
      expect(toolResults).toHaveLength(permissionMode === 'ask' ? 0 : 1);
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
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } } },
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

  it('an agent that exits early: the driver exits with its code (explainable by describeGeminiExitCode)', async () => {
    const [result] = await runTurns(withFakeAgent({}, ['--exit-on-initialize', '41']), ['hi']);
    expect(result?.outcome.status).toBe('failed');
    expect(result?.outcome.exitCode).toBe(41);
  });

  it('a missing gemini: exit 127 and the install hint on stderr', async () => {
    const [result] = await runTurns(createGeminiAcpAdapter({ command: '/nonexistent/gemini' }), ['hi']);
    expect(result?.outcome.status).toBe('failed');
    expect(result?.outcome.exitCode).toBe(127);
    expect(result?.outcome.stderrTail).toContain(
      'gemini-acp-driver: cannot start "/nonexistent/gemini": spawn /nonexistent/gemini ENOENT. Install it with `npm install -g @google/gemini-cli` or give its absolute path.',
    );
  });
});
