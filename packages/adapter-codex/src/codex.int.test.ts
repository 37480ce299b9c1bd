/*
 * The real Codex CLI (devDependency @openai/codex@0.169.0, native binary from
 * its optionalDependencies) against the in-repo fake API server.
 * Run: npx vitest run --project adapter-codex
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager, isGroupAlive, type AgentSessionOptions } from '@troupe/core/cli-turn';
import { AgentError, type AgentStreamPart } from '@troupe/core';
import {
  createFakeLlmServer,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  FAKE_TOOL_FILE_NAME,
  type FakeLlmServer,
  type RecordedRequest,
} from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { DEFAULT_CODEX_BASE_ARGS, type CodexAdapterSettings } from './codex-adapter-settings';
import { makeTempDir, realCodexBin } from './codex-test-support';

const codexBin = realCodexBin();
const API_KEY = 'sk-troupe-int-0000000000000000';
const TURN_TIMEOUT = 60_000;

let server: FakeLlmServer;
let temp: ReturnType<typeof makeTempDir>;
let workDir: string;
let manager: AgentManager | undefined;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setScenario('text');
  temp = makeTempDir('troupe-codex-int-');
  workDir = join(temp.path, 'workspace');
  mkdirSync(workDir);
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  temp.remove();
});

/** The real codex through the node wrapper, isolated HOME / CODEX_HOME / TMPDIR, the fake server as provider. */
function settings(overrides: CodexAdapterSettings = {}): CodexAdapterSettings {
  return {
    command: process.execPath,
    baseArgs: [codexBin, ...DEFAULT_CODEX_BASE_ARGS],
    baseUrl: server.url,
    apiKey: API_KEY,
    home: join(temp.path, 'home'),
    codexHome: join(temp.path, 'home', '.codex'),
    tmpDir: join(temp.path, 'tmp'),
    ...overrides,
  };
}

async function startCoder(overrides: CodexAdapterSettings = {}, systemInstruction?: string, session?: AgentSessionOptions): Promise<AgentManager> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => createCodexAdapter(settings(overrides)) });
  manager = new AgentManager({ adapters, defaultTimeoutMs: TURN_TIMEOUT });
  await manager.ensureAgentStarted('coder', 'codex', { workDir, ...(systemInstruction !== undefined ? { systemInstruction } : {}) }, session);
  return manager;
}

/** One turn in its own manager (as one process of a program run twice), same CODEX_HOME and workDir; the manager is gone when it returns. */
async function turnInNewManager(message: string, session?: AgentSessionOptions) {
  const coder = await startCoder({}, undefined, session);
  try {
    return await coder.send('coder', message).result;
  } finally {
    await coder.cleanup();
  }
}

const responsesRequests = (): RecordedRequest[] => server.requests.filter((request) => request.path === '/v1/responses');

interface InputMessage {
  type?: string;
  role?: string;
  content?: Array<{ type: string; text?: string }>;
}
const inputOf = (request: RecordedRequest | undefined): InputMessage[] => ((request?.body as { input?: InputMessage[] })?.input ?? []);
const textsOf = (request: RecordedRequest | undefined, role: string): string[] =>
  inputOf(request)
    .filter((item) => item.role === role)
    .map((item) => (item.content ?? []).map((part) => part.text ?? '').join(''));

describe('real Codex CLI 0.169.0', () => {
  it('text: one POST to the custom provider, over HTTP, with the key as a bearer token', async () => {
    const coder = await startCoder();
    const turn = coder.send('coder', 'Say hello');
    const result = await turn.result;
    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    expect(server.requests.map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual(['POST /v1/responses 200']);
    const [request] = server.requests;
    expect(request?.model).toBe('gpt-5.5');
    expect(request?.headers.authorization).toMatch(/^<redacted/);
    expect(textsOf(request, 'user').at(-1)).toBe('Say hello');
    expect((await (await turn.run).exited).exitCode).toBe(0);
  });

  it('developer_instructions: quotes, newlines, backslashes and """ reach the model unchanged, once', async () => {
    const prompt = 'You are "Max".\nLine 2: C:\\dir\\file \\n (literal) and """triple""" and \'\'\'\ttab é 🎭 # = [x] {y}\r\nend \\';
    const coder = await startCoder({}, prompt);
    expect(await coder.sendAndReceive('coder', 'Say hello')).toBe(FAKE_TEXT);
    const developer = textsOf(responsesRequests()[0], 'developer');
    expect(developer).toHaveLength(2);
    expect(developer[1]?.startsWith(prompt)).toBe(true);
    expect(JSON.stringify(server.requests[0]?.body).split('You are \\"Max\\"').length - 1).toBe(1);
    expect(textsOf(responsesRequests()[0], 'user').at(-1)).toBe('Say hello');
  });

  it('replace mode: model_instructions_file replaces the base prompt; the temp file is removed', async () => {
    const prompt = 'REPLACED BASE PROMPT: you are a terse agent.';
    const coder = await startCoder({ systemPromptMode: 'replace' }, prompt);
    const turn = coder.send('coder', 'Say hello');
    expect((await turn.result).text).toBe(FAKE_TEXT);
    await (await turn.run).exited;
    expect(textsOf(responsesRequests()[0], 'developer')[0]).toBe(prompt);
    const leftovers = readdirSync(join(temp.path, 'tmp')).filter((name) => name.startsWith('troupe-codex-'));
    // The config prepared by ensureAgentStarted (never spawned) is cleaned by manager.cleanup(); the turn's own is gone.
    expect(leftovers.length).toBeLessThanOrEqual(1);
    await manager?.cleanup();
    expect(readdirSync(join(temp.path, 'tmp')).filter((name) => name.startsWith('troupe-codex-'))).toEqual([]);
  });

  it('tool (apply_patch) under full-auto writes the file in the workspace', async () => {
    server.setScenario('tool');
    server.setCodexTool('apply_patch');
    const coder = await startCoder({ permissionMode: 'full-auto' });
    const result = await coder.send('coder', 'Create hello.txt').result;
    expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
    expect(readFileSync(join(workDir, FAKE_TOOL_FILE_NAME), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
    const tools = result.parts.filter((part) => part.type === 'tool-call' || part.type === 'tool-result');
    expect(tools).toEqual([
      { type: 'tool-call', toolCallId: expect.any(String), toolName: 'file_change', input: { changes: [{ path: join(workDir, FAKE_TOOL_FILE_NAME), kind: 'add' }] } },
      {
        type: 'tool-result',
        toolCallId: expect.any(String),
        toolName: 'file_change',
        output: [{ path: join(workDir, FAKE_TOOL_FILE_NAME), kind: 'add' }],
        isError: false,
      },
    ]);
    expect(responsesRequests()).toHaveLength(2);
  });

  it('tool (exec_command) under auto-edit runs the command in the workspace sandbox', async () => {
    server.setScenario('tool');
    server.setCodexTool('exec_command');
    const coder = await startCoder({ permissionMode: 'auto-edit' });
    const result = await coder.send('coder', 'Create hello.txt').result;
    expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
    expect(readFileSync(join(workDir, FAKE_TOOL_FILE_NAME), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
    const result0 = result.parts.find((part) => part.type === 'tool-result');
    expect(result0).toMatchObject({ toolName: 'command_execution', isError: false });
    expect(result.parts.find((part) => part.type === 'tool-call')).toMatchObject({ toolName: 'command_execution', input: { command: expect.stringContaining(FAKE_TOOL_FILE_NAME) } });
  });

  it('ask (read-only sandbox): the write is refused and no file appears', async () => {
    server.setScenario('tool');
    server.setCodexTool('apply_patch');
    const coder = await startCoder({ permissionMode: 'ask' });
    const result = await coder.send('coder', 'Create hello.txt').result;
    expect(result.outcome.status).toBe('completed');
    expect(existsSync(join(workDir, FAKE_TOOL_FILE_NAME))).toBe(false);
  });

  it('401: AgentError with status 401 after one stream retry (2 requests)', async () => {
    server.setScenario('error401');
    const coder = await startCoder();
    const error = await coder.sendAndReceive('coder', 'Say hello').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).status).toBe(401);
    expect((error as AgentError).message).toContain('Incorrect API key provided (fake-llm).');
    expect((error as AgentError).message).not.toContain(API_KEY);
    expect(responsesRequests().map((request) => request.status)).toEqual([401, 401]);
  });

  it('500 with retries capped: (1 + 1) HTTP tries × (1 + 1) stream attempts = 4 requests, not 30', async () => {
    server.setScenario('error500');
    const coder = await startCoder();
    const result = await coder.send('coder', 'Say hello').result;
    expect(result.agentError).toBeInstanceOf(AgentError);
    expect(result.parts.filter((part) => part.type === 'error' && part.retrying)).toHaveLength(1);
    expect(responsesRequests()).toHaveLength(4);
  });

  it('500 with retries 0: one request', async () => {
    server.setScenario('error500');
    const coder = await startCoder({ requestMaxRetries: 0, streamMaxRetries: 0 });
    const result = await coder.send('coder', 'Say hello').result;
    expect(result.agentError?.message).toContain('high demand');
    // Codex streams only "high demand"; the status comes from the request line it logs on stderr (issue 27).
    expect(result.agentError?.status).toBe(500);
    expect(result.agentError?.message).toContain('status 500: ');
    expect(responsesRequests()).toHaveLength(1);
  });

  it('one transient 500 on the first turn (no retries): the next turn succeeds (issue 27)', async () => {
    const coder = await startCoder({ requestMaxRetries: 0, streamMaxRetries: 0 });
    server.enqueue('openai-responses', { status: 500 });
    const first = await coder.send('coder', 'Say hello').result;
    expect(first.agentError).toBeInstanceOf(AgentError);
    const second = await coder.send('coder', 'Say hello again').result;
    expect(second.agentError).toBeUndefined();
    expect(second.text).toBe(FAKE_TEXT);
  });

  it('slow reply: the whole message arrives once, then the turn ends on turn.completed', async () => {
    server.setScenario('slow');
    const coder = await startCoder();
    const turn = coder.send('coder', 'Say hello');
    const seen: AgentStreamPart['type'][] = [];
    for await (const part of turn) seen.push(part.type);
    const result = await turn.result;
    expect(seen).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.outcome.status === 'completed' && result.outcome.reason).toBe('completion-event');
  });

  it('abort mid-turn: canceled, and no process is left', async () => {
    server.setScenario('slow');
    const coder = await startCoder();
    const controller = new AbortController();
    const turn = coder.send('coder', 'Say hello', { signal: controller.signal });
    const run = await turn.run;
    for await (const part of turn) {
      if (part.type === 'session') {
        // Wait until the request is in flight, then abort.
        while (responsesRequests().length === 0 && server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        controller.abort(new Error('user canceled'));
      }
    }
    const result = await turn.result;
    expect(result.outcome.status).toBe('canceled');
    expect(run.pid).toBeDefined();
    expect(isGroupAlive(run.pid as number)).toBe(false);
  });

  it('resume: the second turn runs `exec resume <thread_id>` and sends the history', async () => {
    const coder = await startCoder({}, 'ROLE: remember things.');
    const first = await coder.send('coder', 'First turn: remember PINEAPPLE').result;
    const second = await coder.send('coder', 'Second turn: what did I ask you to remember?').result;
    expect(second.text).toBe(FAKE_TEXT);
    expect(first.sessionId).toBeDefined();
    expect(second.sessionId).toBe(first.sessionId);
    const [request1, request2] = responsesRequests();
    expect(request2?.headers['thread-id']).toBe(first.sessionId);
    expect(request1?.headers['thread-id']).toBe(first.sessionId);
    expect(textsOf(request2, 'user').slice(-2)).toEqual(['First turn: remember PINEAPPLE', 'Second turn: what did I ask you to remember?']);
    expect(textsOf(request2, 'assistant')).toEqual([FAKE_TEXT]);
    // The role prompt stays once in the history.
    expect(textsOf(request2, 'developer').filter((text) => text.includes('ROLE: remember things.'))).toHaveLength(1);
  });

  it('resume across managers: `exec resume <thread_id>` in a second manager sends the first one\'s history', async () => {
    const first = await turnInNewManager('First turn: remember PINEAPPLE');
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const second = await turnInNewManager('Second turn: what did I ask you to remember?', { resume: first.sessionId as string });
    expect(second.outcome.status).toBe('completed');
    expect(second.text).toBe(FAKE_TEXT);
    expect(second.sessionId).toBe(first.sessionId);
    const [, request2] = responsesRequests();
    expect(request2?.headers['thread-id']).toBe(first.sessionId);
    expect(textsOf(request2, 'user').slice(-2)).toEqual(['First turn: remember PINEAPPLE', 'Second turn: what did I ask you to remember?']);
    expect(textsOf(request2, 'assistant')).toEqual([FAKE_TEXT]);
  });

  it('resume of a thread id this CODEX_HOME never had: the turn fails with Codex\'s reason', async () => {
    const result = await turnInNewManager('Go on', { resume: '11111111-2222-4333-8444-555555555555' });
    expect(result.outcome.status).toBe('failed');
    expect(result.outcome.status === 'failed' ? result.outcome.error.message : '').toContain(
      'no rollout found for thread id 11111111-2222-4333-8444-555555555555',
    );
    expect(responsesRequests()).toHaveLength(0);
  });

  it('continue: `exec resume --last` in a new manager continues the last thread of the workDir', async () => {
    const first = await turnInNewManager('First turn: remember PINEAPPLE');
    const second = await turnInNewManager('Second turn via resume --last', { continue: true });
    expect(second.outcome.status).toBe('completed');
    expect(second.sessionId).toBe(first.sessionId);
    const [, request2] = responsesRequests();
    expect(textsOf(request2, 'user').slice(-2)).toEqual(['First turn: remember PINEAPPLE', 'Second turn via resume --last']);
  });

  it('forkSession: `exec fork <thread_id>` runs in a new thread holding the history; the next turn resumes the fork', async () => {
    const first = await turnInNewManager('First turn: remember PINEAPPLE');
    const coder = await startCoder({}, undefined, { resume: first.sessionId as string, forkSession: true });
    for (const message of ['Second turn in a fork', 'Third turn, in the fork again']) {
      expect((await coder.send('coder', message).result).outcome.status).toBe('completed');
    }
    // Each request names its thread: the original, then the fork twice (the fork is what the role resumes now).
    const [firstRequest, forkRequest, nextRequest] = responsesRequests();
    const threads = [firstRequest, forkRequest, nextRequest].map((request) => request?.headers['thread-id']);
    expect(threads).toEqual([first.sessionId, expect.stringMatching(/^[0-9a-f-]{36}$/), threads[1]]);
    expect(threads[1]).not.toBe(first.sessionId);
    expect(coder.getAgentInfo('coder')?.sessionId).toBe(threads[1]);
    expect(textsOf(forkRequest, 'user').slice(-2)).toEqual(['First turn: remember PINEAPPLE', 'Second turn in a fork']);
    expect(textsOf(nextRequest, 'user').slice(-3)).toEqual(['First turn: remember PINEAPPLE', 'Second turn in a fork', 'Third turn, in the fork again']);
  });

  it('stdin delivery: `-- -` reads a prompt that starts with dashes from stdin', async () => {
    const coder = await startCoder({ promptDelivery: 'stdin' });
    expect(await coder.sendAndReceive('coder', '--not-a-flag: say hello')).toBe(FAKE_TEXT);
    expect(textsOf(responsesRequests()[0], 'user').at(-1)?.trim()).toBe('--not-a-flag: say hello');
  });

  it('argument delivery: a prompt that starts with dashes is not taken as a flag', async () => {
    const coder = await startCoder();
    expect(await coder.sendAndReceive('coder', '--not-a-flag: say hello')).toBe(FAKE_TEXT);
    expect(textsOf(responsesRequests()[0], 'user').at(-1)).toBe('--not-a-flag: say hello');
  });
});
