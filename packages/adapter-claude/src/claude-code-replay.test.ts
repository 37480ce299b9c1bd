import { readFileSync } from 'node:fs';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { AgentError, ProcessError, type AgentAdapter } from '@troupe/core';
import { fakeAgentProcessConfig, replayThroughAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createClaudeCodeAdapter, type ClaudeCodeSettings } from './index';

const fixturesDir = new URL('./__fixtures__/', import.meta.url).pathname;
const fixture = (name: string) => `${fixturesDir}${name}.stdout.jsonl`;
const meta = (name: string) => JSON.parse(readFileSync(`${fixturesDir}${name}.meta.json`, 'utf8')) as { exit_code: number };

/** Replays a recorded Claude Code stream through the adapter and the real process runner. */
async function replay(name: string, settings: ClaudeCodeSettings = {}) {
  const adapter = createClaudeCodeAdapter(settings);
  return replayThroughAdapter(adapter, { name, stdoutFile: fixture(name), exitCode: meta(name).exit_code }, fixturesDir);
}

/** Runs one turn with the adapter's command swapped for the fake CLI with these options. */
async function runWithFake(options: FakeAgentCliOptions, settings: ClaudeCodeSettings = {}) {
  const adapter = createClaudeCodeAdapter(settings);
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => swapCommand(adapter, () => options) });
  const manager = new AgentManager({ adapters });
  try {
    await manager.ensureAgentStarted('coder', 'claude', { workDir: fixturesDir });
    return await manager.send('coder', 'Say hello', { timeout: 20_000 }).result;
  } finally {
    await manager.cleanup();
  }
}

function swapCommand(adapter: AgentAdapter, optionsForTurn: (turn: number) => FakeAgentCliOptions): AgentAdapter {
  let turn = 0;
  return {
    ...adapter,
    async getProcessConfig(member, workDir, context) {
      const real = await adapter.getProcessConfig(member, workDir, context);
      const fake = fakeAgentProcessConfig(optionsForTurn(turn++));
      return { ...real, command: fake.command, args: [...(fake.args ?? []), ...(real.args ?? [])] };
    },
  };
}

describe('Claude Code recorded streams replayed through the adapter', () => {
  it('text: session, one text delta, usage with cost, turn end', async () => {
    const result = await replay('text');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Hello from fake-llm.');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "claude-opus-5-5",
          "sessionId": "863aed00-dfa4-40ce-9dd4-3baf7906cbfb",
          "type": "session",
        },
        {
          "text": "Hello from fake-llm.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "costUsd": 0.000208,
            "inputTokens": 12,
            "outputTokens": 8,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "stopReason": "end_turn",
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.result.usage).toEqual({ inputTokens: 12, outputTokens: 8, cachedInputTokens: 0, reasoningTokens: 0, costUsd: 0.000208 });
    expect(result.result.sessionId).toBe('863aed00-dfa4-40ce-9dd4-3baf7906cbfb');
    expect(result.result.agentError).toBeUndefined();
  });

  it('slow-partial-messages: deltas stream, the whole assistant message does not repeat them', async () => {
    const result = await replay('slow-partial-messages');
    const texts = result.parts.filter((p) => p.type === 'text-delta').map((p) => (p.type === 'text-delta' ? p.text : ''));
    expect(texts).toEqual(['Hello ', 'from ', 'fake-llm.']);
    expect(result.text).toBe('Hello from fake-llm.');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "claude-opus-5-5",
          "sessionId": "0763d0b0-3c1a-4fc0-a92a-6a137e6b5d49",
          "type": "session",
        },
        {
          "text": "Hello ",
          "type": "text-delta",
        },
        {
          "text": "from ",
          "type": "text-delta",
        },
        {
          "text": "fake-llm.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "costUsd": 0.000208,
            "inputTokens": 12,
            "outputTokens": 8,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "stopReason": "end_turn",
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
  });

  it('slow (no partial messages): the whole assistant message is the text', async () => {
    const result = await replay('slow');
    expect(result.parts.filter((p) => p.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'Hello from fake-llm.' }]);
    expect(result.text).toBe('Hello from fake-llm.');
  });

  it('tool (acceptEdits): tool call, named tool result, final text', async () => {
    const result = await replay('tool');
    expect(result.text).toBe('Done: the file has been written.');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "claude-opus-5-5",
          "sessionId": "b901f014-cd3d-4587-ab47-fc144f7a5551",
          "type": "session",
        },
        {
          "input": {
            "content": "hello from fake-llm
      ",
            "file_path": "/workspace/hello.txt",
          },
          "toolCallId": "toolu_fake_1",
          "toolName": "Write",
          "type": "tool-call",
        },
        {
          "isError": false,
          "output": "File created successfully at: /workspace/hello.txt (file state is current in your context — no need to Read it back)",
          "toolCallId": "toolu_fake_1",
          "toolName": "Write",
          "type": "tool-result",
        },
        {
          "text": "Done: the file has been written.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "costUsd": 0.000416,
            "inputTokens": 24,
            "outputTokens": 16,
            "reasoningTokens": 0,
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
  });

  it('tool-skip-permissions-is-sandbox: same shape as acceptEdits', async () => {
    const result = await replay('tool-skip-permissions-is-sandbox');
    expect(result.parts.map((p) => p.type)).toEqual(['session', 'tool-call', 'tool-result', 'text-delta', 'usage', 'turn-end']);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('tool-denied-default-permissions: permission-denied warning, tool result is an error, the turn result lists the denial (issue 27)', async () => {
    const result = await replay('tool-denied-default-permissions');
    expect(result.status).toBe('completed');
    expect(result.result.agentError).toBeUndefined();
    // The model says it wrote the file; the turn result says the write was refused.
    expect(result.text).toBe('Done: the file has been written.');
    expect(result.result.permissionDenials).toEqual([
      {
        toolName: 'Write',
        toolCallId: 'toolu_fake_1',
        input: { file_path: '/workspace/hello.txt', content: 'hello from fake-llm\n' },
        message: "Claude requested permissions to write to /workspace/hello.txt, but you haven't granted it yet.",
      },
    ]);
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "claude-opus-5-5",
          "sessionId": "d71faee3-4b23-4eaf-a4de-758ec92a616a",
          "type": "session",
        },
        {
          "input": {
            "content": "hello from fake-llm
      ",
            "file_path": "/workspace/hello.txt",
          },
          "toolCallId": "toolu_fake_1",
          "toolName": "Write",
          "type": "tool-call",
        },
        {
          "code": "permission-denied",
          "input": {
            "content": "hello from fake-llm
      ",
            "file_path": "/workspace/hello.txt",
          },
          "message": "Claude requested permissions to write to /workspace/hello.txt, but you haven't granted it yet.",
          "toolCallId": "toolu_fake_1",
          "toolName": "Write",
          "type": "warning",
        },
        {
          "isError": true,
          "output": "Claude requested permissions to write to /workspace/hello.txt, but you haven't granted it yet.",
          "toolCallId": "toolu_fake_1",
          "toolName": "Write",
          "type": "tool-result",
        },
        {
          "text": "Done: the file has been written.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "costUsd": 0.000416,
            "inputTokens": 24,
            "outputTokens": 16,
            "reasoningTokens": 0,
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
  });

  it('error401: error part with status 401 from the synthetic message, AgentError with status 401', async () => {
    const result = await replay('error401');
    expect(result.status).toBe('completed'); // the result line came before exit code 1
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "claude-opus-5-5",
          "sessionId": "c31564c2-c959-4100-bb27-cfad149003fb",
          "type": "session",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "costUsd": 0,
            "inputTokens": 0,
            "outputTokens": 0,
            "reasoningTokens": 0,
          },
        },
        {
          "message": "Invalid API key · Fix external API key",
          "status": 401,
          "type": "error",
        },
        {
          "isError": true,
          "stopReason": "stop_sequence",
          "text": "Invalid API key · Fix external API key",
          "type": "turn-end",
        },
      ]
    `);
    const error = result.result.agentError;
    expect(error).toBeInstanceOf(AgentError);
    expect(error?.status).toBe(401);
    expect(error?.adapterId).toBe('claude');
    expect(error?.message).toBe('claude reported an error: Invalid API key · Fix external API key');
  });

  it('error500: status 500', async () => {
    const result = await replay('error500');
    expect(result.result.agentError?.status).toBe(500);
    expect(result.parts.filter((p) => p.type === 'error')).toMatchInlineSnapshot(`
      [
        {
          "message": "API Error: 500 Internal server error (fake-llm). This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:46287).",
          "status": 500,
          "type": "error",
        },
      ]
    `);
    expect(result.parts.at(-1)).toMatchObject({ type: 'turn-end', isError: true, stopReason: 'stop_sequence' });
  });

  it('error500-max-retries-2: one retrying error per retry, then the final error', async () => {
    const result = await replay('error500-max-retries-2');
    expect(result.parts.filter((p) => p.type === 'error')).toMatchInlineSnapshot(`
      [
        {
          "message": "API error 500 server_error; retrying in 554 ms (attempt 1/2)",
          "retrying": true,
          "status": 500,
          "type": "error",
        },
        {
          "message": "API error 500 server_error; retrying in 1100 ms (attempt 2/2)",
          "retrying": true,
          "status": 500,
          "type": "error",
        },
        {
          "message": "API Error: 500 Internal server error (fake-llm). This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:46709).",
          "status": 500,
          "type": "error",
        },
      ]
    `);
    expect(result.result.agentError?.status).toBe(500);
  });

  it('error401-default-retries: ten retries reported, status 401', async () => {
    const result = await replay('error401-default-retries');
    const retries = result.parts.filter((p) => p.type === 'error' && p.retrying === true);
    expect(retries).toHaveLength(10);
    expect(result.result.agentError?.status).toBe(401);
  });

  it.each([
    ['append-system-prompt', 'Hello from fake-llm.'],
    ['system-prompt', 'Hello from fake-llm.'],
    ['stdin-prompt', 'Hello from fake-llm.'],
    ['resume-1-first-turn', 'Hello from fake-llm.'],
    ['resume-2-resume-flag', 'Hello from fake-llm.'],
    ['resume-3-continue-flag', 'Hello from fake-llm.'],
  ])('%s: completes with the text and the session id', async (name, text) => {
    const result = await replay(name);
    expect(result.status).toBe('completed');
    expect(result.text).toBe(text);
    expect(result.parts.map((p) => p.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
  });

  it('resume-unknown-session: --resume of an id this HOME never had fails the turn with the CLI\'s reason', async () => {
    const result = await replay('resume-unknown-session');
    expect(result.status).toBe('completed'); // exit 1 after its result line: the turn ended, as failed
    expect(result.result.agentError).toBeInstanceOf(AgentError);
    expect(result.result.agentError?.message).toBe(
      'claude reported an error: No conversation found with session ID: 11111111-2222-4333-8444-555555555555',
    );
    expect(result.parts.at(-1)).toMatchObject({ type: 'turn-end', isError: true });
  });

  it('resume turns keep the session id of the first turn', async () => {
    const first = await replay('resume-1-first-turn');
    const second = await replay('resume-2-resume-flag');
    expect(first.result.sessionId).toBe('766389a5-2e15-4706-bb1d-13c76850782f');
    expect(second.result.sessionId).toBe(first.result.sessionId);
  });

  it('stream-json-input-two-turns: the turn completes at the first result line', async () => {
    const result = await replay('stream-json-input-two-turns');
    expect(result.status).toBe('completed');
    expect(result.parts.filter((p) => p.type === 'turn-end')).toHaveLength(1);
    expect(result.result.outcome.status === 'completed' && result.result.outcome.completionLine?.index).toBe(2);
  });
});

describe('Claude Code process failures', () => {
  it('stream-json without --verbose: exit 1 before any result is a ProcessError with the stderr', async () => {
    const stderr = readFileSync(`${fixturesDir}stream-json-without-verbose.stderr.txt`, 'utf8').trim();
    const result = await runWithFake({ stderr, exitCode: 1 });
    expect(result.outcome.status).toBe('failed');
    const error = result.outcome.status === 'failed' ? result.outcome.error : undefined;
    expect(error).toBeInstanceOf(ProcessError);
    expect(error?.exitCode).toBe(1);
    expect(error?.message).toContain('requires --verbose');
  });

  it('root without IS_SANDBOX: exit 1 with the CLI message', async () => {
    const stderr = readFileSync(`${fixturesDir}tool-skip-permissions-as-root.stderr.txt`, 'utf8').trim();
    const result = await runWithFake({ stderr, exitCode: 1 });
    expect(result.outcome.status).toBe('failed');
    expect(result.outcome.status === 'failed' && result.outcome.error.message).toContain('cannot be used with root/sudo');
  });

  it('killed mid-turn (SIGTERM, exit 143, no result line): failed, partial text still streamed', async () => {
    const lines = readFileSync(fixture('slow-partial-messages'), 'utf8').split('\n').slice(0, 6);
    const result = await runWithFake({ lines, exitCode: 143 });
    expect(result.outcome.status).toBe('failed');
    expect(result.parts.filter((p) => p.type === 'text-delta')).toHaveLength(2);
    expect(result.parts.some((p) => p.type === 'turn-end')).toBe(false);
  });

  it('writes the message to stdin as one stream-json user line', async () => {
    const result = await runWithFake({ echoStdin: true, lines: ['{"type":"result","result":"ok","is_error":false}'] });
    const echo = JSON.parse(result.outcome.output.split('\n')[0] as string) as { type: string; text: string };
    expect(echo).toEqual({ type: 'stdin', text: '{"type":"user","message":{"role":"user","content":"Say hello"}}\n' });
    expect(result.text).toBe('ok');
  });

  it('with inputFormat text, writes the plain message (like the stdin-prompt fixture)', async () => {
    const result = await runWithFake(
      { echoStdin: true, lines: ['{"type":"result","result":"ok","is_error":false}'] },
      { inputFormat: 'text' },
    );
    const echo = JSON.parse(result.outcome.output.split('\n')[0] as string) as { text: string };
    expect(echo.text).toBe('Say hello\n');
  });
});

describe('Claude Code turns through AgentManager', () => {
  it('the second turn resumes the first turn’s session with --resume', async () => {
    const adapter = createClaudeCodeAdapter();
    const turnsFixtures = ['resume-1-first-turn', 'resume-2-resume-flag'];
    const adapters = new AdapterRegistry();
    adapters.register({
      type: 'claude',
      create: () => swapCommand(adapter, (turn) => ({ printArgv: true, replay: fixture(turnsFixtures[turn] ?? 'text') })),
    });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'claude', { workDir: fixturesDir, systemInstruction: 'You are a coder.' });
      const first = await manager.send('coder', 'First turn: remember PINEAPPLE').result;
      const second = await manager.send('coder', 'Second turn via --resume').result;
      const argvOf = (output: string) => (JSON.parse(output.split('\n')[0] as string) as { argv: string[]; cwd: string });
      const firstArgv = argvOf(first.outcome.output);
      const secondArgv = argvOf(second.outcome.output);
      expect(firstArgv.argv).not.toContain('--resume');
      expect(secondArgv.argv.slice(secondArgv.argv.indexOf('--resume'))).toEqual(['--resume', '766389a5-2e15-4706-bb1d-13c76850782f']);
      expect(secondArgv.argv).toContain('--append-system-prompt');
      expect(secondArgv.cwd).toBe(fixturesDir.replace(/\/$/, ''));
      expect(second.sessionId).toBe('766389a5-2e15-4706-bb1d-13c76850782f');
      expect(first.text).toBe('Hello from fake-llm.');
      expect(second.text).toBe('Hello from fake-llm.');
    } finally {
      await manager.cleanup();
    }
  });

  it('sendAndReceive throws the AgentError with status 401', async () => {
    const adapter = createClaudeCodeAdapter();
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => swapCommand(adapter, () => ({ replay: fixture('error401'), exitCode: 1 })) });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'claude', { workDir: fixturesDir });
      const error = await manager.sendAndReceive('coder', 'Say hello').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentError);
      expect((error as AgentError).status).toBe(401);
      expect((error as AgentError).code).toBe('AGENT_ERROR');
    } finally {
      await manager.cleanup();
    }
  });
});
