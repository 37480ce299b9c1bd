// Runs the real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code@2.1.330)
// against the in-repo fake Anthropic API. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdapterRegistry, AgentManager, isGroupAlive, type AgentSessionOptions } from '@troupe/core/cli-turn';
import { AgentError, type AgentStreamPart } from '@troupe/core';
import { claudeCodeBinary, createFakeLlmServer, FAKE_TEXT, FAKE_TOOL_DONE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerClaudeCodeAdapter, type ClaudeCodeSettings } from './index';

const FAKE_KEY = 'sk-ant-fake-000';
const INT_TIMEOUT = 60_000;

const runIntegration = !process.env.TROUPE_SKIP_INT;
if (!runIntegration) console.warn('[real CLI] SKIPPED the Claude Code 2.1.330 tests: TROUPE_SKIP_INT is set (pnpm test:unit leaves out the real-CLI tests)');
const claudeBinary = runIntegration ? claudeCodeBinary(import.meta.url) : 'claude';

describe.skipIf(!runIntegration)('Claude Code CLI 2.1.330 against the fake Anthropic API', () => {
  let server: FakeLlmServer;
  let root: string;
  let workspace: string;
  let manager: AgentManager;

  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text', slowChunkDelayMs: 500 });
  });
  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => {
    server.reset();
    server.setScenario('text');
    root = mkdtempSync(join(tmpdir(), 'troupe-claude-int-'));
    workspace = join(root, 'workspace');
  });
  afterEach(async () => {
    await manager?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  /** A manager whose `claude` adapter runs the real CLI with a private HOME and TMPDIR. */
  async function startMember(settings: ClaudeCodeSettings = {}, systemInstruction?: string, session?: AgentSessionOptions): Promise<AgentManager> {
    const adapters = new AdapterRegistry();
    registerClaudeCodeAdapter(adapters, {
      command: claudeBinary,
      baseUrl: server.url,
      apiKey: FAKE_KEY,
      home: join(root, 'home'),
      tmpDir: join(root, 'tmp'),
      ...settings,
    });
    manager = new AgentManager({ adapters, defaultTimeoutMs: 45_000 });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(workspace, { recursive: true });
    await manager.ensureAgentStarted('coder', 'claude', { workDir: workspace, ...(systemInstruction ? { systemInstruction } : {}) }, session);
    return manager;
  }

  /**
   * Turns in their own manager (as one process of a program run several
   * times), in the same HOME and workspace; the manager is gone when it returns.
   */
  async function turnsInNewManager(session: AgentSessionOptions | undefined, ...messages: string[]) {
    const member = await startMember({}, undefined, session);
    const results = [];
    for (const message of messages) results.push(await member.send('coder', message).result);
    await member.cleanup();
    return results;
  }

  /** The text of every message of an API request, in order. */
  const messagesOf = (request: { body: unknown } | undefined) => JSON.stringify((request?.body as { messages?: unknown[] } | undefined)?.messages ?? []);

  const anthropicRequests = () => server.requests.filter((request) => request.protocol === 'anthropic');

  it(
    'text reply: the answer, one API request, the member prompt appended to the system prompt',
    async () => {
      await startMember({}, 'You are TROUPE-INT-MEMBER-PROMPT.');
      const turn = manager.send('coder', 'Say hello');
      const result = await turn.result;
      expect(result.outcome.status).toBe('completed');
      expect(result.agentError).toBeUndefined();
      expect(result.text).toBe(FAKE_TEXT);
      expect(result.parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
      expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      // Nonessential traffic is off: no HEAD /api/hello, only the one POST.
      expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v1/messages']);
      const body = JSON.stringify(anthropicRequests()[0]?.body);
      expect(body).toContain('TROUPE-INT-MEMBER-PROMPT');
      expect(body).toContain('Say hello');
      expect(JSON.stringify(anthropicRequests()[0]?.headers)).not.toContain(FAKE_KEY);
    },
    INT_TIMEOUT,
  );

  it(
    'tool call under full-auto writes the file in the workspace',
    async () => {
      server.setScenario('tool');
      await startMember({ permissionMode: 'full-auto' });
      const result = await manager.send('coder', 'Create hello.txt').result;
      expect(result.outcome.status).toBe('completed');
      expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
      const call = result.parts.find((part) => part.type === 'tool-call');
      const toolResult = result.parts.find((part) => part.type === 'tool-result');
      expect(call).toMatchObject({ type: 'tool-call', toolName: 'Write' });
      expect(toolResult).toMatchObject({ type: 'tool-result', toolName: 'Write', isError: false });
      expect(existsSync(join(workspace, 'hello.txt'))).toBe(true);
      expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toContain('hello');
    },
    INT_TIMEOUT,
  );

  it(
    '401 with maxRetries 0: one request, a typed AgentError with status 401, no key in the message',
    async () => {
      server.setScenario('error401');
      await startMember({ maxRetries: 0 });
      const error = await manager.sendAndReceive('coder', 'Say hello').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AgentError);
      expect((error as AgentError).status).toBe(401);
      expect((error as AgentError).adapterId).toBe('claude');
      expect((error as AgentError).message).toMatch(/Invalid API key/);
      expect((error as AgentError).message).not.toContain(FAKE_KEY);
      expect(anthropicRequests()).toHaveLength(1);
    },
    INT_TIMEOUT,
  );

  it(
    '500 with the default retry cap (2): three requests, two retry notices, AgentError 500',
    async () => {
      server.setScenario('error500');
      await startMember();
      const result = await manager.send('coder', 'Say hello').result;
      expect(result.outcome.status).toBe('completed');
      expect(result.agentError?.status).toBe(500);
      const errors = result.parts.filter((part) => part.type === 'error');
      expect(errors.filter((part) => part.type === 'error' && part.retrying)).toHaveLength(2);
      expect(errors.at(-1)).toMatchObject({ type: 'error', status: 500 });
      expect(anthropicRequests()).toHaveLength(3);
    },
    INT_TIMEOUT,
  );

  it(
    'a write refused in ask mode: the turn completes, its result lists the denial and a warning part (issue 27)',
    async () => {
      server.setScenario('tool');
      await startMember({ permissionMode: 'ask' });
      const result = await manager.send('coder', 'Create hello.txt').result;
      expect(result.outcome.status).toBe('completed');
      expect(result.agentError).toBeUndefined();
      expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
      expect(result.permissionDenials).toEqual([expect.objectContaining({ toolName: 'Write', input: expect.objectContaining({ file_path: join(workspace, 'hello.txt') }) })]);
      expect(result.parts).toContainEqual(expect.objectContaining({ type: 'warning', code: 'permission-denied', toolName: 'Write' }));
    },
    INT_TIMEOUT,
  );

  it(
    'one transient 500 on the first turn (no retries): the next turn succeeds (issue 27)',
    async () => {
      await startMember({ maxRetries: 0 });
      server.enqueue('anthropic', { status: 500 });
      const first = await manager.send('coder', 'Say hello').result;
      expect(first.agentError?.status).toBe(500);
      const second = await manager.send('coder', 'Say hello again').result;
      expect(second.agentError).toBeUndefined();
      expect(second.text).toBe(FAKE_TEXT);
    },
    INT_TIMEOUT,
  );

  it(
    'slow reply: text deltas arrive while the turn is still running',
    async () => {
      server.setScenario('slow');
      await startMember();
      const turn = manager.send('coder', 'Say hello');
      let settled = false;
      void turn.result.then(() => {
        settled = true;
      });
      const seen: { part: AgentStreamPart; settled: boolean }[] = [];
      for await (const part of turn) seen.push({ part, settled });
      const deltas = seen.filter(({ part }) => part.type === 'text-delta');
      expect(deltas.map(({ part }) => (part.type === 'text-delta' ? part.text : ''))).toEqual(['Hello ', 'from ', 'fake-llm.']);
      expect(deltas[0]?.settled).toBe(false);
      const endIndex = seen.findIndex(({ part }) => part.type === 'turn-end');
      expect(seen.findIndex(({ part }) => part.type === 'text-delta')).toBeLessThan(endIndex);
      expect((await turn.result).text).toBe(FAKE_TEXT);
    },
    INT_TIMEOUT,
  );

  it(
    'abort mid-turn: canceled, and the process group is gone',
    async () => {
      server.setScenario('slow');
      await startMember();
      const controller = new AbortController();
      const turn = manager.send('coder', 'Say hello', { signal: controller.signal });
      const run = await turn.run;
      for await (const part of turn) {
        if (part.type === 'text-delta') {
          controller.abort(new Error('user stop'));
          break;
        }
      }
      const result = await turn.result;
      expect(result.outcome.status).toBe('canceled');
      expect(run.pid).toBeTypeOf('number');
      expect(isGroupAlive(run.pid as number)).toBe(false);
    },
    INT_TIMEOUT,
  );

  it(
    'second turn resumes the session: same session id, history re-sent',
    async () => {
      await startMember({}, 'You are a careful coder.');
      const first = await manager.send('coder', 'First turn: remember PINEAPPLE').result;
      const second = await manager.send('coder', 'Second turn: what did I ask you to remember?').result;
      expect(first.text).toBe(FAKE_TEXT);
      expect(second.text).toBe(FAKE_TEXT);
      expect(second.parts.find((part) => part.type === 'session')).toEqual({ type: 'session', sessionId: first.sessionId, model: expect.any(String) });
      const [firstRequest, secondRequest] = anthropicRequests();
      expect(secondRequest?.headers['x-claude-code-session-id']).toBe(firstRequest?.headers['x-claude-code-session-id']);
      const history = JSON.stringify((secondRequest?.body as { messages: unknown[] }).messages);
      expect(history).toContain('First turn: remember PINEAPPLE');
      expect(history).toContain(FAKE_TEXT);
      expect(history).toContain('Second turn: what did I ask you to remember?');
      expect(JSON.stringify((firstRequest?.body as { messages: unknown[] }).messages)).not.toContain(FAKE_TEXT);
    },
    INT_TIMEOUT,
  );

  it(
    'resume across managers: a second manager resumes the first one\'s session id, and the CLI re-sends its history',
    async () => {
      const [first] = await turnsInNewManager(undefined, 'First turn: remember PINEAPPLE');
      expect(first?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const [second] = await turnsInNewManager({ resume: first?.sessionId as string }, 'Second turn: what did I ask you to remember?');
      expect(second?.outcome.status).toBe('completed');
      expect(second?.text).toBe(FAKE_TEXT);
      expect(second?.sessionId).toBe(first?.sessionId);
      const [firstRequest, secondRequest] = anthropicRequests();
      expect(secondRequest?.headers['x-claude-code-session-id']).toBe(first?.sessionId);
      expect(messagesOf(secondRequest)).toContain('First turn: remember PINEAPPLE');
      expect(messagesOf(secondRequest)).toContain(FAKE_TEXT);
      expect(messagesOf(firstRequest)).not.toContain(FAKE_TEXT);
    },
    INT_TIMEOUT,
  );

  it(
    'resume of a session id this HOME never had: the turn fails with the CLI\'s reason, no API request',
    async () => {
      const [result] = await turnsInNewManager({ resume: '11111111-2222-4333-8444-555555555555' }, 'Go on');
      expect(result?.agentError?.message).toBe('claude reported an error: No conversation found with session ID: 11111111-2222-4333-8444-555555555555');
      expect(anthropicRequests()).toHaveLength(0);
    },
    INT_TIMEOUT,
  );

  it(
    'continue: a new manager continues the last session of the workspace (--continue) without its id',
    async () => {
      const [first] = await turnsInNewManager(undefined, 'First turn: remember PINEAPPLE');
      const [second] = await turnsInNewManager({ continue: true }, 'Second turn via continue');
      expect(second?.outcome.status).toBe('completed');
      expect(second?.sessionId).toBe(first?.sessionId);
      expect(messagesOf(anthropicRequests()[1])).toContain('First turn: remember PINEAPPLE');
    },
    INT_TIMEOUT,
  );

  it(
    'forkSession: the resumed turn runs in a new session holding the history; the next turn resumes the fork',
    async () => {
      const [first] = await turnsInNewManager(undefined, 'First turn: remember PINEAPPLE');
      const original = first?.sessionId as string;
      const [forked, next] = await turnsInNewManager({ resume: original, forkSession: true }, 'Second turn in a fork', 'Third turn, in the fork again');
      expect(forked?.outcome.status).toBe('completed');
      expect(forked?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(forked?.sessionId).not.toBe(original);
      expect(next?.sessionId).toBe(forked?.sessionId);
      const [, forkRequest, nextRequest] = anthropicRequests();
      expect(messagesOf(forkRequest)).toContain('First turn: remember PINEAPPLE');
      expect(messagesOf(nextRequest)).toContain('Second turn in a fork');
      // The original session is left as it was: resuming it does not see the fork's turns.
      await turnsInNewManager({ resume: original }, 'Fourth turn, in the original');
      const resumedOriginal = messagesOf(anthropicRequests()[3]);
      expect(resumedOriginal).toContain('First turn: remember PINEAPPLE');
      expect(resumedOriginal).not.toContain('Second turn in a fork');
    },
    INT_TIMEOUT * 2,
  );

  it(
    'a process started ahead of time still answers a message sent after more than 3 s (stream-json input)',
    async () => {
      await startMember();
      const warmProcessId = manager.getAgentInfo('coder')?.processId;
      await sleep(3_500); // plain-text stdin would have given up after 3 s
      const turn = manager.send('coder', 'Say hello');
      expect((await turn.run).processId).toBe(warmProcessId);
      const result = await turn.result;
      expect(result.outcome.status).toBe('completed');
      expect(result.text).toBe(FAKE_TEXT);
      expect(anthropicRequests()).toHaveLength(1);
    },
    INT_TIMEOUT,
  );
});
