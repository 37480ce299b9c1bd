import { AdapterRegistry, AgentManager, isGroupAlive } from '@troupe/core/cli-turn';
import { AgentError, TroupeError } from '@troupe/core';
import { replayThroughAdapter } from '@troupe/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { codexOverFakeCli, fixtureStderr, fixtureStdout, makeTempDir } from './codex-test-support';

// Every recorded Codex 0.169.0 stream, replayed through the real process runner
// (the fake agent CLI prints the fixture; the adapter's parser, completion
// strategy and parseResponse run for real).

const workDir = makeTempDir();
afterAll(() => workDir.remove());

const replay = (name: string, exitCode = 0) =>
  replayThroughAdapter(createCodexAdapter(), { name, stdoutFile: fixtureStdout(name), exitCode }, workDir.path);

describe('text turns', () => {
  it.each(['text', 'text-stdin-closed-pipe', 'instructions', 'agents-md', 'slow', 'telemetry-default'])(
    '%s: session, the whole message, usage, turn-end',
    async (name) => {
      const result = await replay(name);
      expect(result.status).toBe('completed');
      expect(result.text).toBe('Hello from fake-llm.');
      expect(result.parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
      expect(result.result.agentError).toBeUndefined();
      expect(result.result.outcome.status === 'completed' && result.result.outcome.reason).toBe('completion-event');
    },
  );

  it('slow, with its recorded timing: a 3 s silence before the answer does not end the turn', async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('slow'), recordedTiming: true }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.text).toBe('Hello from fake-llm.');
      expect(result.outcome.status === 'completed' && result.outcome.reason).toBe('completion-event');
    } finally {
      await manager.cleanup();
    }
  });

  it("slow, under the seed's idleTimeout 2000 ms instead: the turn ends before the answer (why the adapter uses turn.completed)", async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('slow'), recordedTiming: true }));
    const manager = managerFor({ ...adapter, getCompletionStrategy: () => ({ type: 'idleTimeout', timeoutMs: 2000 }) });
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.outcome.status === 'completed' && result.outcome.reason).toBe('idle');
      expect(result.text).toBe('');
      expect(result.parts.map((part) => part.type)).toEqual(['session']);
    } finally {
      await manager.cleanup();
    }
  });

  it('text: exact parts', async () => {
    const result = await replay('text');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014a-8b43-71f1-9264-5d20765a5891",
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
            "inputTokens": 12,
            "outputTokens": 8,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.result.sessionId).toBe('01a2014a-8b43-71f1-9264-5d20765a5891');
    expect(result.result.usage).toEqual({ inputTokens: 12, cachedInputTokens: 0, outputTokens: 8, reasoningTokens: 0 });
  });

  it('unknown-model-name: the metadata warning is a non-fatal error part', async () => {
    const result = await replay('unknown-model-name');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014b-3182-71a3-9876-de2028094e6a",
          "type": "session",
        },
        {
          "message": "Model metadata for \`gpt-fake\` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.",
          "retrying": false,
          "type": "error",
        },
        {
          "text": "Hello from fake-llm.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 12,
            "outputTokens": 8,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Hello from fake-llm.');
    expect(result.result.agentError).toBeUndefined();
  });

  it('openai-base-url-websocket-fallback: retry notices with status 404, the fallback warning, then the answer', async () => {
    const result = await replay('openai-base-url-websocket-fallback');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014b-33ce-7dc2-9fd3-4f70cbacc84c",
          "type": "session",
        },
        {
          "message": "Reconnecting... 2/5 (unexpected status 404 Not Found: fake-llm: no route for GET /v1/responses, url: ws://127.0.0.1:42257/v1/responses)",
          "retrying": true,
          "status": 404,
          "type": "error",
        },
        {
          "message": "Reconnecting... 3/5 (unexpected status 404 Not Found: fake-llm: no route for GET /v1/responses, url: ws://127.0.0.1:42257/v1/responses)",
          "retrying": true,
          "status": 404,
          "type": "error",
        },
        {
          "message": "Reconnecting... 4/5 (unexpected status 404 Not Found: fake-llm: no route for GET /v1/responses, url: ws://127.0.0.1:42257/v1/responses)",
          "retrying": true,
          "status": 404,
          "type": "error",
        },
        {
          "message": "Reconnecting... 5/5 (unexpected status 404 Not Found: fake-llm: no route for GET /v1/responses, url: ws://127.0.0.1:42257/v1/responses)",
          "retrying": true,
          "status": 404,
          "type": "error",
        },
        {
          "message": "Falling back from WebSockets to HTTPS transport. unexpected status 404 Not Found: fake-llm: no route for GET /v1/responses, url: ws://127.0.0.1:42257/v1/responses",
          "retrying": false,
          "type": "error",
        },
        {
          "text": "Hello from fake-llm.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 12,
            "outputTokens": 8,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Hello from fake-llm.');
    expect(result.result.agentError).toBeUndefined();
  });
});

describe('tool turns', () => {
  it('tool-exec-command: command_execution → tool-call, tool-result', async () => {
    const result = await replay('tool-exec-command');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014a-91d9-7403-aadb-bb1595485869",
          "type": "session",
        },
        {
          "input": {
            "command": "/bin/bash -lc "printf '%s' 'hello from fake-llm
      ' > '/workspace/hello.txt'"",
          },
          "toolCallId": "item_0",
          "toolName": "command_execution",
          "type": "tool-call",
        },
        {
          "isError": false,
          "output": "",
          "toolCallId": "item_0",
          "toolName": "command_execution",
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
            "inputTokens": 24,
            "outputTokens": 16,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "text": "Done: the file has been written.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('tool-bypass-sandbox: same stream under --dangerously-bypass-approvals-and-sandbox', async () => {
    const result = await replay('tool-bypass-sandbox');
    expect(result.parts.map((part) => part.type)).toEqual(['session', 'tool-call', 'tool-result', 'text-delta', 'usage', 'turn-end']);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('tool-apply-patch: file_change → tool-call, tool-result with the changes', async () => {
    const result = await replay('tool-apply-patch');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014a-9525-7e03-af12-e145cb9bea65",
          "type": "session",
        },
        {
          "input": {
            "changes": [
              {
                "kind": "add",
                "path": "/workspace/hello.txt",
              },
            ],
          },
          "toolCallId": "item_0",
          "toolName": "file_change",
          "type": "tool-call",
        },
        {
          "isError": false,
          "output": [
            {
              "kind": "add",
              "path": "/workspace/hello.txt",
            },
          ],
          "toolCallId": "item_0",
          "toolName": "file_change",
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
            "inputTokens": 24,
            "outputTokens": 16,
            "reasoningTokens": 0,
          },
        },
        {
          "isError": false,
          "text": "Done: the file has been written.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it.each(['tool-exec-command-readonly-sandbox', 'tool-apply-patch-readonly-sandbox'])(
    '%s: the refused tool prints no item; only the answer',
    async (name) => {
      const result = await replay(name);
      expect(result.parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
      expect(result.text).toBe('Done: the file has been written.');
    },
  );
});

describe('failed turns', () => {
  it('error401: retry notices carry status 401; turn.failed → AgentError with status 401', async () => {
    const result = await replay('error401', 1);
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014b-02e3-7033-ac0b-969a95eebed7",
          "type": "session",
        },
        {
          "message": "Reconnecting... 1/5 (unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses)",
          "retrying": true,
          "status": 401,
          "type": "error",
        },
        {
          "message": "Reconnecting... 2/5 (unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses)",
          "retrying": true,
          "status": 401,
          "type": "error",
        },
        {
          "message": "Reconnecting... 3/5 (unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses)",
          "retrying": true,
          "status": 401,
          "type": "error",
        },
        {
          "message": "Reconnecting... 4/5 (unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses)",
          "retrying": true,
          "status": 401,
          "type": "error",
        },
        {
          "message": "Reconnecting... 5/5 (unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses)",
          "retrying": true,
          "status": 401,
          "type": "error",
        },
        {
          "message": "unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses",
          "retrying": false,
          "status": 401,
          "type": "error",
        },
        {
          "message": "unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses",
          "retrying": false,
          "status": 401,
          "type": "error",
        },
        {
          "isError": true,
          "text": "unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses",
          "type": "turn-end",
        },
      ]
    `);
    const error = result.result.agentError;
    expect(error).toBeInstanceOf(AgentError);
    expect(error?.status).toBe(401);
    expect(error?.adapterId).toBe('codex');
    expect(error?.message).toContain('unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm).');
  });

  it('error500: five retry notices, then a failed turn with no status (Codex hides it)', async () => {
    const result = await replay('error500', 1);
    const errors = result.parts.filter((part) => part.type === 'error');
    expect(errors).toHaveLength(7);
    expect(errors.filter((part) => part.type === 'error' && part.retrying)).toHaveLength(5);
    expect(errors.every((part) => part.type === 'error' && part.status === undefined)).toBe(true);
    expect(result.parts.at(-1)).toMatchInlineSnapshot(`
      {
        "isError": true,
        "text": "We’re currently experiencing high demand, which may cause temporary errors.",
        "type": "turn-end",
      }
    `);
    expect(result.result.agentError).toBeInstanceOf(AgentError);
    expect(result.result.agentError?.status).toBeUndefined();
  });

  it('error500-no-retries: one error, then the failed turn', async () => {
    const result = await replay('error500-no-retries', 1);
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gpt-5.5",
          "sessionId": "01a2014b-0068-7170-ac0b-4e44cf3ba7b9",
          "type": "session",
        },
        {
          "message": "We’re currently experiencing high demand, which may cause temporary errors.",
          "retrying": false,
          "type": "error",
        },
        {
          "message": "We’re currently experiencing high demand, which may cause temporary errors.",
          "retrying": false,
          "type": "error",
        },
        {
          "isError": true,
          "text": "We’re currently experiencing high demand, which may cause temporary errors.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('We’re currently experiencing high demand, which may cause temporary errors.');
  });

  it('sendAndReceive rejects a failed turn with the AgentError', async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('error401'), exitCode: 1 }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const failure = await manager.sendAndReceive('coder', 'Say hello').catch((error: unknown) => error);
      expect(TroupeError.hasCode(failure, 'AGENT_ERROR')).toBe(true);
      expect((failure as AgentError).status).toBe(401);
    } finally {
      await manager.cleanup();
    }
  });
});

describe('the model API status Codex leaves out of its stream (issue 27)', () => {
  it('error500 with RUST_LOG: the AgentError carries status 500 from the request line Codex logged on stderr', async () => {
    const { adapter, configs } = codexOverFakeCli(() => ({
      replay: fixtureStdout('error500-api-status-log'),
      exitCode: 1,
      stderr: fixtureStderr('error500-api-status-log'),
    }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.agentError?.status).toBe(500);
      expect(result.agentError?.message).toBe('codex reported an error: status 500: We’re currently experiencing high demand, which may cause temporary errors.');
      // The adapter asked Codex for those request lines (a RUST_LOG of the user's would win).
      expect(configs[0]?.config.env?.RUST_LOG).toBe('codex_otel.trace_safe=info');
    } finally {
      await manager.cleanup();
    }
  });

  it('without the request lines (no RUST_LOG output) the error stays as Codex streamed it', async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('error500-no-retries'), exitCode: 1 }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.agentError?.status).toBeUndefined();
      expect(result.agentError?.message).toBe('codex reported an error: We’re currently experiencing high demand, which may cause temporary errors.');
    } finally {
      await manager.cleanup();
    }
  });
});

describe('exit handling', () => {
  it('chat-wire-api-rejected: exit 1 with no event → ProcessError with the stderr reason', async () => {
    const { adapter } = codexOverFakeCli(() => ({
      replay: fixtureStdout('chat-wire-api-rejected'),
      exitCode: 1,
      stderr: fixtureStderr('chat-wire-api-rejected'),
    }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.outcome.status).toBe('failed');
      expect(result.outcome.status === 'failed' && result.outcome.error.message).toContain('`wire_api = "chat"` is no longer supported');
      expect(result.outcome.exitCode).toBe(1);
      expect(result.parts).toEqual([]);
    } finally {
      await manager.cleanup();
    }
  });

  it('a failed turn still completes by its event although Codex then exits 1', async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('error500-no-retries'), exitCode: 1, exitDelayMs: 30 }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const turn = manager.send('coder', 'Say hello');
      const result = await turn.result;
      expect(result.outcome.status === 'completed' && result.outcome.reason).toBe('completion-event');
      expect(await (await turn.run).exited).toEqual({ exitCode: 1, signal: null });
    } finally {
      await manager.cleanup();
    }
  });
});

describe('streams with no completion line', () => {
  it('stdin-open-hangs: the total timeout ends it and kills the process group', async () => {
    const { adapter } = codexOverFakeCli(() => ({
      replay: fixtureStdout('stdin-open-hangs'),
      stderr: fixtureStderr('stdin-open-hangs'),
      hang: true,
    }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const turn = manager.send('coder', 'Say hello', { timeout: 500 });
      const run = await turn.run;
      const result = await turn.result;
      expect(result.outcome.status).toBe('timed-out');
      expect(TroupeError.hasCode(result.outcome.status === 'timed-out' && result.outcome.error, 'COMPLETION_TIMEOUT')).toBe(true);
      expect(run.pid).toBeDefined();
      expect(isGroupAlive(run.pid as number)).toBe(false);
    } finally {
      await manager.cleanup();
    }
  });

  it('openai-base-url-env-ignored: endless reconnects are streamed as retrying errors until aborted; no process left', async () => {
    const { adapter } = codexOverFakeCli(() => ({ replay: fixtureStdout('openai-base-url-env-ignored'), hang: true }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const controller = new AbortController();
      const turn = manager.send('coder', 'Say hello', { signal: controller.signal, timeout: 20_000 });
      const run = await turn.run;
      const seen: string[] = [];
      for await (const part of turn) {
        seen.push(part.type === 'error' ? `error retrying=${String(part.retrying)}` : part.type);
        if (seen.length === 8) controller.abort(new Error('user gave up'));
      }
      const result = await turn.result;
      expect(result.outcome.status).toBe('canceled');
      expect(seen).toMatchInlineSnapshot(`
        [
          "session",
          "error retrying=true",
          "error retrying=true",
          "error retrying=true",
          "error retrying=true",
          "error retrying=false",
          "error retrying=true",
          "error retrying=true",
        ]
      `);
      expect(isGroupAlive(run.pid as number)).toBe(false);
    } finally {
      await manager.cleanup();
    }
  });
});

describe('resume', () => {
  it('resume-1/2: the second turn runs `exec … resume <thread_id> -- PROMPT` and keeps the thread', async () => {
    const { adapter, configs } = codexOverFakeCli((context) => ({
      replay: fixtureStdout(context.resumeSessionId ? 'resume-2-exec-resume' : 'resume-1-first-turn'),
    }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const first = await manager.send('coder', 'First turn: remember PINEAPPLE').result;
      expect(first.sessionId).toBe('01a2014c-03d8-78d0-984f-ef5f5cd30a81');
      const second = await manager.send('coder', 'Second turn via exec resume').result;
      expect(second.text).toBe('Hello from fake-llm.');
      expect(second.sessionId).toBe('01a2014c-03d8-78d0-984f-ef5f5cd30a81');
      expect(second.usage).toEqual({ inputTokens: 24, cachedInputTokens: 0, outputTokens: 16, reasoningTokens: 0 });
      const last = configs.at(-1);
      expect(last?.context).toEqual({ roleId: 'coder', resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81' });
      expect(last?.config.args?.slice(-3)).toEqual(['resume', '01a2014c-03d8-78d0-984f-ef5f5cd30a81', '--']);
      expect(configs.slice(0, -1).every((entry) => !entry.config.args?.includes('resume'))).toBe(true);
    } finally {
      await manager.cleanup();
    }
  });

  it('the prompt is the last argument, after `--`', async () => {
    const { adapter } = codexOverFakeCli(() => ({ printArgv: true, replay: fixtureStdout('text') }));
    const manager = managerFor(adapter);
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: workDir.path });
      const result = await manager.send('coder', '--looks like a flag').result;
      const argvLine = result.outcome.output.split('\n')[0] ?? '';
      const argv = (JSON.parse(argvLine) as { argv: string[] }).argv;
      expect(argv.slice(-2)).toEqual(['--', '--looks like a flag']);
      expect(result.text).toBe('Hello from fake-llm.');
    } finally {
      await manager.cleanup();
    }
  });
});

function managerFor(adapter: ReturnType<typeof codexOverFakeCli>['adapter']): AgentManager {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => adapter });
  return new AgentManager({ adapters });
}
