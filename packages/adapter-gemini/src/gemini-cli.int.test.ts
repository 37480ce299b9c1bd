/*
 * The real Gemini CLI 0.61.0 (devDependency @google/gemini-cli) against the
 * in-repo fake Gemini API (@troupe/test-server). Run with
 * `npx vitest run --project adapter-gemini`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AdapterRegistry, AgentManager, isGroupAlive, type AgentSessionOptions } from '@troupe/core/cli-turn';
import { type AgentStreamPart } from '@troupe/core';
import { createFakeLlmServer, FAKE_SLOW_CHUNKS, FAKE_TEXT, FAKE_TOOL_DONE_TEXT, FAKE_TOOL_FILE_CONTENT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiCliAdapter, describeGeminiExitCode, type GeminiCliAdapter, type GeminiCliSettings } from './index';

const require = createRequire(import.meta.url);
const packageJsonPath = require.resolve('@google/gemini-cli/package.json');
const { bin, version } = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { bin: { gemini: string }; version: string };
/** The real `gemini` executable from node_modules (a node script with a shebang). */
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

/**
 * A manager running one `coder` member with a real Gemini CLI, a private HOME/TMPDIR and work dir.
 * With `session`, it reuses the scratch folder (HOME, work dir) of the previous call, as a second process would.
 */
async function startCoder(settings: GeminiCliSettings = {}, systemInstruction?: string, session?: AgentSessionOptions) {
  if (session === undefined) {
    scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-int-'));
    mkdirSync(join(scratch, 'work'));
    server.reset();
  }
  const workDir = join(scratch, 'work');
  const adapter: GeminiCliAdapter = createGeminiCliAdapter({
    command: geminiBin,
    baseUrl: server.url,
    apiKey: 'fake-gemini-key-int',
    home: join(scratch, 'home'),
    tmpDir: join(scratch, 'tmp'),
    ...settings,
  });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'gemini', create: () => adapter });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 60_000 });
  await manager.ensureAgentStarted('coder', 'gemini', { workDir, ...(systemInstruction ? { systemInstruction } : {}) }, session);
  return { manager, workDir, adapter };
}

/** Pids of the live processes of a process group. */
function groupMembers(pgid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,pgid='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid as number);
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Each turn starts a real CLI (2–5 s, more on a loaded machine): generous per-test timeouts.
describe(`real Gemini CLI ${version} against the fake API`, { timeout: 120_000 }, () => {
  it('text: one request to the pinned model, the answer, usage and a session id', async () => {
    server.setScenario('text');
    const { manager } = await startCoder({}, 'You are TROUPE-INT-SYSTEM-MD.');
    const result = await manager.send('coder', 'Say hello').result;
    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe(FAKE_TEXT);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 8, cachedInputTokens: 0 });
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1beta/models/gemini-2.5-flash:streamGenerateContent',
    ]);
    expect(server.requests[0]?.headers['x-goog-api-key']).toMatch(/^<redacted/);
    // GEMINI_SYSTEM_MD replaced the whole system instruction with the member's prompt.
    expect(JSON.stringify(server.requests[0]?.body)).toContain('You are TROUPE-INT-SYSTEM-MD.');
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('You are a non-interactive CLI agent');
  });

  it('tool under full-auto (--yolo): the file is written, tool parts streamed, final text', async () => {
    server.setScenario('tool');
    const { manager, workDir } = await startCoder({ permissionMode: 'full-auto' });
    const result = await manager.send('coder', 'Create hello.txt').result;
    expect(result.outcome.status).toBe('completed');
    expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
    const call = result.parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'write_file', input: { file_path: join(workDir, 'hello.txt') } });
    expect(result.parts.find((part) => part.type === 'tool-result')).toMatchObject({ toolName: 'write_file', isError: false });
    expect(result.text).toBe(FAKE_TOOL_DONE_TEXT);
  });

  it('401: one request, not retried; AgentError with status 401; the CLI then exits 145', async () => {
    server.setScenario('error401');
    const { manager } = await startCoder();
    const turn = manager.send('coder', 'Say hello');
    const result = await turn.result;
    expect(result.outcome.status).toBe('completed');
    expect(result.agentError?.status).toBe(401);
    expect(result.agentError?.message).toContain('Request had invalid authentication credentials.');
    expect(result.agentError?.message).not.toContain('fake-gemini-key-int');
    expect(server.requests).toHaveLength(1);
    const exit = await (await turn.run).exited;
    expect(exit.exitCode).toBe(145);
    expect(describeGeminiExitCode(exit.exitCode)).toContain('HTTP 401');
  });

  it('500 with maxAttempts 2: exactly two requests, then AgentError with status 500 (exit 244)', async () => {
    server.setScenario('error500');
    const { manager } = await startCoder({ maxAttempts: 2 });
    const turn = manager.send('coder', 'Say hello');
    const result = await turn.result;
    expect(result.agentError?.status).toBe(500);
    expect(server.requests).toHaveLength(2);
    expect((await (await turn.run).exited).exitCode).toBe(244);
  });

  it('one transient 500 on the first turn: the next turns start a fresh session and succeed (issue 27)', async () => {
    server.setScenario('text');
    const { manager } = await startCoder({ maxAttempts: 1 });
    server.enqueue('gemini', { status: 500 });
    const first = await manager.send('coder', 'Say hello').result;
    expect(first.agentError?.status).toBe(500);
    // Gemini saved no session for the failed turn: `--resume <its id>` would exit 42 ("No previous sessions found").
    const second = await manager.send('coder', 'Say hello again').result;
    expect(second.agentError).toBeUndefined();
    expect(second.text).toBe(FAKE_TEXT);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.parts[0]).toMatchObject({ type: 'warning', code: 'session-not-resumed' });
    const third = await manager.send('coder', 'And once more').result;
    expect(third.agentError).toBeUndefined();
    expect(third.sessionId).toBe(second.sessionId);
  });

  it('slow: text deltas stream before the turn ends', async () => {
    server.setScenario('slow');
    const { manager } = await startCoder();
    const turn = manager.send('coder', 'Say hello');
    let ended = false;
    void turn.result.then(() => {
      ended = true;
    });
    const seen: { part: AgentStreamPart; endedAlready: boolean }[] = [];
    for await (const part of turn) seen.push({ part, endedAlready: ended });
    const deltas = seen.filter((entry) => entry.part.type === 'text-delta');
    expect(deltas.map((entry) => (entry.part.type === 'text-delta' ? entry.part.text : ''))).toEqual(['Hello ', 'from ', 'fake-llm.']);
    expect(deltas.every((entry) => !entry.endedAlready)).toBe(true);
    expect(seen.at(-1)?.part).toEqual({ type: 'turn-end', text: FAKE_TEXT, isError: false, stopReason: 'success' });
  });

  it('abort mid-turn with relaunch ON: the parent ignores SIGTERM, the whole group is gone after the abort', async () => {
    const { manager } = await startCoder({ noRelaunch: false });
    // Deltas 3 s apart: time to look at the process tree mid-turn.
    server.enqueue('gemini', { text: [...FAKE_SLOW_CHUNKS], chunkDelayMs: 3000 });
    const controller = new AbortController();
    const turn = manager.send('coder', 'Say hello', { signal: controller.signal });
    const run = await turn.run;
    const pgid = run.pid as number;
    let members: number[] = [];
    let aliveAfterParentSigterm: number[] = [];
    for await (const part of turn) {
      if (part.type !== 'text-delta') continue;
      members = groupMembers(pgid);
      process.kill(pgid, 'SIGTERM'); // the parent alone, as `kill <pid>` would
      await new Promise((resolve) => setTimeout(resolve, 1000));
      aliveAfterParentSigterm = members.filter(isPidAlive);
      controller.abort(new Error('user pressed stop'));
      break;
    }
    // The relaunch: `node gemini` (the group leader) and its child `node --max-old-space-size=… gemini`.
    expect(members).toHaveLength(2);
    expect(members).toContain(pgid);
    expect(aliveAfterParentSigterm).toEqual(members);
    const result = await turn.result;
    expect(result.outcome.status).toBe('canceled');
    expect(isGroupAlive(pgid)).toBe(false);
    expect(members.filter(isPidAlive)).toEqual([]);
  });

  it('resume: the second turn runs with --resume <session id> and re-sends the history', async () => {
    server.setScenario('text');
    const { manager, adapter } = await startCoder({}, 'You are TROUPE-INT-RESUME.');
    const first = await manager.send('coder', 'First turn: remember PINEAPPLE').result;
    const second = await manager.send('coder', 'What did I ask you to remember?').result;
    expect(second.outcome.status).toBe('completed');
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.text).toBe(FAKE_TEXT);
    // What the second turn ran: the session id from the first turn's `init` line, not `latest`.
    const config = await adapter.getProcessConfig({}, undefined, { resumeSessionId: first.sessionId as string });
    expect(config.args).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '--resume', first.sessionId, '-p']);
    expect(server.requests).toHaveLength(2);
    const history = JSON.stringify(server.requests.at(-1)?.body);
    expect(history).toContain('First turn: remember PINEAPPLE');
    expect(history).toContain('What did I ask you to remember?');
    expect(history).toContain('You are TROUPE-INT-RESUME.'); // the system prompt file is given again
    expect(existsSync(join(scratch, 'home', '.gemini', 'settings.json'))).toBe(true);
  });

  it('resume across managers (same home and work dir): --resume <session id> in a second manager re-sends the history', async () => {
    server.setScenario('text');
    const one = await startCoder();
    const first = await one.manager.send('coder', 'First turn: remember PINEAPPLE').result;
    await one.manager.cleanup();
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const two = await startCoder({}, undefined, { resume: first.sessionId as string });
    const second = await two.manager.send('coder', 'Second turn: what did I ask you to remember?').result;
    expect(second.outcome.status).toBe('completed');
    expect(second.sessionId).toBe(first.sessionId);
    expect(server.requests).toHaveLength(2);
    const history = JSON.stringify(server.requests[1]?.body);
    expect(history).toContain('First turn: remember PINEAPPLE');
    expect(history).toContain(FAKE_TEXT);
  });

  it('continue: --resume latest in a new manager continues the last session of the work dir', async () => {
    server.setScenario('text');
    const one = await startCoder();
    const first = await one.manager.send('coder', 'First turn: remember PINEAPPLE').result;
    await one.manager.cleanup();
    const two = await startCoder({}, undefined, { continue: true });
    const second = await two.manager.send('coder', 'Second turn via continue').result;
    expect(second.outcome.status).toBe('completed');
    expect(second.sessionId).toBe(first.sessionId);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('First turn: remember PINEAPPLE');
  });
});
