/*
 * The permission suite for Codex: the real Codex CLI 0.169.0 (`codex app-server`, spoken to in the host by the
 * adapter's app-server client) against the in-repo fake API, which asks for commands and patches, many in parallel. Every call must reach the
 * callback before it runs (zero bypasses, also with an allow-list), a denied patch leaves no file and its reason
 * reaches the model's next request, a changed command is what runs, and a failing callback denies.
 * Run: npx vitest run packages/adapter-codex/src/codex-app-server.int.test.ts
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type AgentStreamPart, type AnyTroupeEvent, type CanUseTool, type MemberAgentConfig, type ToolUseOutcome, type ToolUseRequest } from '@troupe/core';
import { createFakeLlmServer, FAKE_MCP_ECHO_SERVER_PATH, type FakeLlmServer, type FakeToolCall, type RecordedRequest } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { DEFAULT_CODEX_BASE_ARGS, type CodexAdapterSettings } from './codex-adapter-settings';
import { makeTempDir, realCodexBin } from './codex-test-support';

const codexBin = realCodexBin();
const API_KEY = 'sk-troupe-int-0000000000000000';
const TURN_TIMEOUT = 120_000;

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
  temp = makeTempDir('troupe-codex-perm-');
  workDir = join(temp.path, 'workspace');
  mkdirSync(workDir);
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  temp.remove();
});

/**
 * The real codex, isolated HOME / CODEX_HOME / TMPDIR, the fake server as provider. `full-auto` gives the
 * `danger-full-access` sandbox: Codex's Linux sandbox helper cannot be installed under a CODEX_HOME in /tmp
 * ("Refusing to create helper binaries under temporary dir"), so an approved command would fail in a sandbox here.
 * The callback is what guards every call either way.
 */
function settings(overrides: CodexAdapterSettings = {}): CodexAdapterSettings {
  return {
    command: process.execPath,
    baseArgs: [codexBin, ...DEFAULT_CODEX_BASE_ARGS],
    baseUrl: server.url,
    apiKey: API_KEY,
    home: join(temp.path, 'home'),
    codexHome: join(temp.path, 'home', '.codex'),
    tmpDir: join(temp.path, 'tmp'),
    permissionMode: 'full-auto',
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    ...overrides,
  };
}

async function startCoder(overrides: CodexAdapterSettings, member: Omit<MemberAgentConfig, 'workDir'> = {}): Promise<AgentManager> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => createCodexAdapter(settings(overrides)) });
  manager = new AgentManager({ adapters, defaultTimeoutMs: TURN_TIMEOUT });
  await manager.ensureAgentStarted('coder', 'codex', { ...member, workDir });
  return manager;
}

const command = (cmd: string): FakeToolCall => ({ name: 'exec_command', arguments: { cmd, workdir: workDir } });
const addFile = (path: string, text: string): FakeToolCall => ({ name: 'apply_patch', arguments: `*** Begin Patch\n*** Add File: ${path}\n+${text}\n*** End Patch\n` });
const file = (name: string) => join(workDir, name);
/** A call of the echo MCP server's tool (Codex offers it in the namespace `mcp__<server>`). */
const echo = (server: string, text: string): FakeToolCall => ({ name: 'echo', namespace: `mcp__${server}`, arguments: { text } });
/** Two instances of the echo MCP server: `echo`, and `ro` whose tool is annotated read-only. Each logs what it ran. */
function echoServers(): { mcpServers: MemberAgentConfig['mcpServers']; ran: (server: 'echo' | 'ro') => string[] } {
  const log = (server: string) => join(temp.path, `${server}.log`);
  const entry = (server: string, env: Record<string, string> = {}) => ({ command: process.execPath, args: [FAKE_MCP_ECHO_SERVER_PATH], env: { ECHO_LOG: log(server), ...env } });
  return {
    mcpServers: { echo: entry('echo'), ro: entry('ro', { ECHO_READ_ONLY: '1' }) },
    ran: (server) => (existsSync(log(server)) ? readFileSync(log(server), 'utf8').split('\n').filter(Boolean) : []),
  };
}

/** Every text the model was sent, request by request. */
const inputTexts = (request: RecordedRequest | undefined): string[] =>
  ((request?.body as { input?: Array<{ content?: Array<{ text?: string }> | string; output?: unknown }> })?.input ?? []).map((item) =>
    Array.isArray(item.content) ? item.content.map((part) => part.text ?? '').join('') : typeof item.output === 'string' ? item.output : '',
  );

/** Tool calls that ran without the callback having been asked about them first. */
function bypasses(parts: AgentStreamPart[], asked: ReadonlySet<string>): string[] {
  return parts.flatMap((part) => (part.type === 'tool-call' && !asked.has(part.toolCallId) ? [part.toolCallId] : []));
}

describe('real Codex CLI 0.169.0 over app-server, with a permission callback', () => {
  it('asks before every parallel command and patch; a denied patch leaves no file and its reason reaches the next request; the thread resumes', async () => {
    const asked = new Set<string>();
    const seen: ToolUseRequest[] = [];
    const existedWhenAsked: boolean[] = [];
    const canUseTool: CanUseTool = (request) => {
      asked.add(request.id);
      seen.push(request);
      if (request.kind === 'execute' && request.target?.startsWith('printf')) existedWhenAsked.push(existsSync(file('allowed.txt')));
      if (request.kind === 'edit') return { behavior: 'deny', message: 'no new files in this repository' };
      if (request.target?.startsWith('rm ')) return { behavior: 'deny', message: 'never delete' };
      return true;
    };
    const bus = new EventBus();
    const decided: AnyTroupeEvent[] = [];
    bus.on('permission:decided', (event) => void decided.push(event));
    const ran: ToolUseOutcome[] = [];
    const stops: Array<{ sessionId?: string }> = [];
    const hooks = { postToolUse: (outcome: ToolUseOutcome) => void ran.push(outcome), stop: (event: { sessionId?: string }) => void stops.push(event) };
    const coder = await startCoder({ permissions: { canUseTool, bus, hooks } });
    server.enqueue('openai-responses', { toolCalls: [command(`printf ok > ${file('allowed.txt')}`), addFile(file('denied.txt'), 'no'), command(`rm -f ${file('allowed.txt')}`)] });
    server.enqueue('openai-responses', { text: 'first turn done' });
    const first = await coder.send('coder', 'Write the files').result;

    expect(first.outcome.status).toBe('completed');
    expect(first.text).toBe('first turn done');
    expect(bypasses(first.parts, asked)).toEqual([]);
    expect(seen.map((request) => [request.tool, request.kind]).sort()).toEqual([
      ['command_execution', 'execute'],
      ['command_execution', 'execute'],
      ['file_change', 'edit'],
    ]);
    expect(seen.find((request) => request.kind === 'edit')).toMatchObject({ adapter: 'codex', target: file('denied.txt'), input: { changes: [{ path: file('denied.txt'), kind: 'add', diff: 'no\n' }] } });
    expect(seen.find((request) => request.target?.startsWith('printf'))).toMatchObject({ target: `printf ok > ${file('allowed.txt')}`, input: { command: `printf ok > ${file('allowed.txt')}`, cwd: workDir } });
    expect(existedWhenAsked).toEqual([false]);
    expect(readFileSync(file('allowed.txt'), 'utf8')).toBe('ok');
    expect(existsSync(file('denied.txt'))).toBe(false);
    const results = first.parts.filter((part) => part.type === 'tool-result');
    expect(results).toHaveLength(3);
    expect(results.find((part) => part.toolName === 'file_change')).toMatchObject({ isError: true, output: 'no new files in this repository' });
    const next = inputTexts(server.requests[1]);
    expect(next.some((text) => text.includes('no new files in this repository'))).toBe(true);
    expect(next.some((text) => text.includes('never delete'))).toBe(true);
    expect(decided.map((event) => (event.payload as { behavior: string }).behavior).sort()).toEqual(['allow', 'deny', 'deny']);
    // postToolUse sees the call that ran (only that one), stop the end of the turn.
    expect(ran).toMatchObject([{ request: { tool: 'command_execution', target: `printf ok > ${file('allowed.txt')}` }, isError: false }]);
    const sessionPart = first.parts.find((part) => part.type === 'session');
    expect(stops).toEqual([{ agent: 'codex', adapter: 'codex', sessionId: sessionPart?.type === 'session' ? sessionPart.sessionId : undefined }]);

    server.enqueue('openai-responses', { text: 'second turn done' });
    const second = await coder.send('coder', 'And now?').result;
    expect(second.text).toBe('second turn done');
    const session = (parts: AgentStreamPart[]) => parts.find((part) => part.type === 'session');
    expect(session(second.parts)).toEqual(session(first.parts));
    expect(inputTexts(server.requests.at(-1)).some((text) => text.includes('Write the files'))).toBe(true);
    expect(stops).toHaveLength(2);
  }, TURN_TIMEOUT);

  it('runs the changed command, never the original one', async () => {
    const asked: string[] = [];
    const canUseTool: CanUseTool = (request) => {
      asked.push(request.target ?? '');
      if (request.target?.includes('original.txt')) return { behavior: 'allow', input: { command: `printf changed > ${file('changed.txt')}` } };
      return true;
    };
    const coder = await startCoder({ permissions: { canUseTool } });
    server.enqueue('openai-responses', { toolCalls: [command(`printf original > ${file('original.txt')}`)] });
    // The model reads Troupe's note and runs what the callback asked for.
    server.enqueue('openai-responses', { toolCalls: [command(`printf changed > ${file('changed.txt')}`)] });
    server.enqueue('openai-responses', { text: 'done' });
    const result = await coder.send('coder', 'Write original.txt').result;
    expect(result.outcome.status).toBe('completed');
    expect(existsSync(file('original.txt'))).toBe(false);
    expect(readFileSync(file('changed.txt'), 'utf8')).toBe('changed');
    expect(asked).toEqual([`printf original > ${file('original.txt')}`, `printf changed > ${file('changed.txt')}`]);
    expect(inputTexts(server.requests[1]).some((text) => text.includes(`run \`printf changed > ${file('changed.txt')}\` instead`))).toBe(true);
  }, TURN_TIMEOUT);

  it('fails closed: a throwing callback, a late one and a deferral deny the call (an MCP call too)', async () => {
    const canUseTool: CanUseTool = (request) => {
      const call = JSON.stringify(request.input);
      if (call.includes('throws')) throw new Error('policy service down');
      if (call.includes('late')) return new Promise(() => {});
      return { behavior: 'defer', reason: 'needs a human' };
    };
    const servers = echoServers();
    const coder = await startCoder({ permissions: { canUseTool, timeoutMs: 500 } }, { mcpServers: servers.mcpServers });
    server.enqueue('openai-responses', {
      toolCalls: [command(`printf x > ${file('throws.txt')}`), command(`printf x > ${file('late.txt')}`), addFile(file('deferred.txt'), 'x'), echo('echo', 'throws-mcp'), echo('ro', 'late-mcp')],
    });
    server.enqueue('openai-responses', { text: 'done' });
    const result = await coder.send('coder', 'Try').result;
    expect(result.outcome.status).toBe('completed');
    for (const name of ['throws.txt', 'late.txt', 'deferred.txt']) expect(existsSync(file(name))).toBe(false);
    expect([...servers.ran('echo'), ...servers.ran('ro')]).toEqual([]);
    const next = inputTexts(server.requests[1]).join('\n');
    expect(next).toContain('policy service down');
    expect(next).toContain('did not answer within 500 ms');
    expect(next).toContain('it was deferred for a decision, and this run keeps no pending approvals');
  }, TURN_TIMEOUT);

  it('asks before every MCP tool call (parallel, a read-only one too); a denied one never runs and its reason reaches the next request; a changed input is what the server gets', async () => {
    const servers = echoServers();
    const asked = new Set<string>();
    const ranBeforeAsked: string[] = [];
    const canUseTool: CanUseTool = (request) => {
      asked.add(request.id);
      const text = String((request.input as { text?: unknown }).text);
      const server = request.tool.startsWith('mcp__ro__') ? 'ro' : 'echo';
      if (servers.ran(server).includes(text)) ranBeforeAsked.push(text);
      if (text.startsWith('deny')) return { behavior: 'deny', message: `no ${text} today` };
      if (text === 'change-me') return { behavior: 'allow', input: { text: 'changed' } };
      return true;
    };
    // The allow-list settles the `ro` server's calls itself; the `echo` server's must all still be asked.
    const bus = new EventBus();
    const decided: Array<{ id: string; tool: string; kind: string; decidedBy: string; behavior: string }> = [];
    bus.on('permission:decided', (event) => void decided.push(event.payload as (typeof decided)[number]));
    const coder = await startCoder({ permissions: { policy: { allow: ['mcp__ro__*'] }, canUseTool, bus } }, { mcpServers: servers.mcpServers });
    const calls: FakeToolCall[] = [];
    for (let n = 0; n < 12; n++) calls.push(echo('echo', n % 4 === 1 ? `deny-${n}` : `ok-${n}`));
    calls.push(echo('ro', 'ro-1'), echo('ro', 'ro-2'), command(`printf mcp > ${file('mixed.txt')}`));
    server.enqueue('openai-responses', { toolCalls: calls });
    // A changed input is declined with a steer (Codex takes no new arguments): Codex may then drop the calls of the same
    // response it has not started yet, so the call to change comes in a response of its own.
    server.enqueue('openai-responses', { toolCalls: [echo('echo', 'change-me')] });
    // The model reads Troupe's note and calls the tool with the changed input.
    server.enqueue('openai-responses', { toolCalls: [echo('echo', 'changed')] });
    server.enqueue('openai-responses', { text: 'mcp done' });
    const result = await coder.send('coder', 'Echo things').result;

    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe('mcp done');
    const mcpCalls = result.parts.filter((part) => part.type === 'tool-call' && part.toolName.startsWith('mcp__'));
    const started = mcpCalls.map((part) => String(((part as { input?: { text?: unknown } }).input ?? {}).text));
    // A denial's reason reaches the model as a steer (Codex's decline takes no reason), and Codex may then drop the
    // calls of the same response it has not started yet: those never run and are never asked about. Every call of the
    // first response up to the first denied one starts; so do the change and its retry (responses of their own).
    const first = [...Array.from({ length: 12 }, (_, n) => (n % 4 === 1 ? `deny-${n}` : `ok-${n}`)), 'ro-1', 'ro-2'];
    expect(started.slice(0, 2)).toEqual(['ok-0', 'deny-1']);
    expect(started.slice(-2)).toEqual(['change-me', 'changed']);
    const dropped = first.filter((text) => !started.includes(text));
    expect(started.filter((text) => !first.includes(text))).toEqual(['change-me', 'changed']);
    // Zero bypasses: each call was asked, or settled by the allow rule, before it ran; one decision per started call.
    const byPolicy = decided.filter((record) => record.decidedBy === 'policy');
    expect(byPolicy.map((record) => record.tool)).toEqual(started.filter((text) => text.startsWith('ro-')).map(() => 'mcp__ro__echo'));
    expect(bypasses(result.parts, new Set([...asked, ...byPolicy.map((record) => record.id)]))).toEqual([]);
    expect(ranBeforeAsked).toEqual([]);
    expect(decided.filter((record) => record.kind === 'mcp')).toHaveLength(mcpCalls.length);
    const allowed = started.filter((text) => !text.startsWith('deny') && text !== 'change-me');
    expect([...servers.ran('echo'), ...servers.ran('ro')].sort()).toEqual(allowed.sort());
    for (const text of dropped) expect([...servers.ran('echo'), ...servers.ran('ro')]).not.toContain(text);
    if (existsSync(file('mixed.txt'))) expect(readFileSync(file('mixed.txt'), 'utf8')).toBe('mcp');
    const denied = result.parts.find((part) => part.type === 'tool-result' && part.toolName === 'mcp__echo__echo' && part.isError);
    expect(denied).toMatchObject({ output: expect.stringMatching(/^no deny-\d+ today$/) });
    const next = inputTexts(server.requests[1]).join('\n');
    for (const n of [1, 5, 9]) expect(next).toContain(`no deny-${n} today`);
    expect(inputTexts(server.requests[2]).join('\n')).toContain('call `mcp__echo__echo` with these arguments instead: {"text":"changed"}');
    process.stdout.write(`codex app-server MCP suite: ${mcpCalls.length} MCP calls started (${dropped.length} dropped by Codex after a steer), ${asked.size} asked, ${byPolicy.length} by the allow-list, 0 bypasses\n`);
  }, TURN_TIMEOUT);

  it('200 calls (commands and patches, 25 in parallel per response) all reach the callback first; an allow-list bypasses it for none else', async () => {
    const asked = new Set<string>();
    let callbackCalls = 0;
    const canUseTool: CanUseTool = (request) => {
      callbackCalls++;
      asked.add(request.id);
      return !(request.target ?? '').includes('deny');
    };
    // The allow-list settles `printf … > …allow-listed…` itself; every other call must still be asked.
    const policy = { allow: ['command_execution(printf * > */allowlisted-*)'] };
    const bus = new EventBus();
    const decided: Array<{ id: string; decidedBy: string }> = [];
    bus.on('permission:decided', (event) => void decided.push(event.payload as { id: string; decidedBy: string }));
    const coder = await startCoder({ permissions: { policy, canUseTool, bus } });
    const expected: Array<{ name: string; written: boolean }> = [];
    const RESPONSES = 8;
    const PER_RESPONSE = 25;
    for (let response = 0; response < RESPONSES; response++) {
      const calls: FakeToolCall[] = [];
      for (let index = 0; index < PER_RESPONSE; index++) {
        const n = response * PER_RESPONSE + index;
        const variant = n % 5;
        const name = variant === 0 ? `allowlisted-${n}.txt` : variant === 1 ? `patch-${n}.txt` : variant === 2 ? `deny-patch-${n}.txt` : variant === 3 ? `deny-cmd-${n}.txt` : `cmd-${n}.txt`;
        calls.push(variant === 1 || variant === 2 ? addFile(file(name), `n${n}`) : command(`printf n${n} > ${file(name)}`));
        expected.push({ name, written: !name.startsWith('deny') });
      }
      server.enqueue('openai-responses', { toolCalls: calls });
    }
    server.enqueue('openai-responses', { text: 'all done' });
    const result = await coder.send('coder', 'Make 200 files').result;

    expect(result.outcome.status).toBe('completed');
    const calls = result.parts.filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(RESPONSES * PER_RESPONSE);
    expect(decided).toHaveLength(RESPONSES * PER_RESPONSE);
    const byPolicy = decided.filter((record) => record.decidedBy === 'policy');
    expect(byPolicy).toHaveLength(40);
    // Zero bypasses: every call was either settled by the allow rule or asked, before it ran.
    expect(bypasses(result.parts, new Set([...asked, ...byPolicy.map((record) => record.id)]))).toEqual([]);
    expect(callbackCalls).toBe(160);
    for (const { name, written } of expected) expect({ name, exists: existsSync(file(name)) }).toEqual({ name, exists: written });
    const approvals = result.parts.filter((part) => part.type === 'tool-result');
    expect(approvals).toHaveLength(200);
    process.stdout.write(`codex app-server permission suite: ${calls.length} calls, ${callbackCalls} asked, ${byPolicy.length} by the allow-list, 0 bypasses\n`);
  }, 240_000);

  it('offers no sub-agent tool by default: a spawn_agent call runs nothing, the next command is the thread\'s own and asked', async () => {
    const asked: string[] = [];
    // With `features.multi_agent_v2` (off by default) Codex 0.169.0 offers the namespace `collaboration` (spawn_agent,
    // wait_agent…), and a spawn is no approval request: the sub-agent would start undecided (see the README).
    const canUseTool: CanUseTool = (request) => {
      asked.push(request.tool);
      return true;
    };
    const coder = await startCoder({ permissions: { canUseTool } });
    server.enqueue('openai-responses', { toolCalls: [{ name: 'spawn_agent', arguments: { task_name: 'helper', message: `run printf x > ${file('child.txt')}` } }] });
    server.enqueue('openai-responses', { toolCalls: [command(`printf x > ${file('child.txt')}`)] });
    server.enqueue('openai-responses', { text: 'done' });
    const result = await coder.send('coder', 'Delegate').result;
    expect(result.outcome.status).toBe('completed');
    const offered = server.requests.filter((request) => request.protocol === 'openai-responses').map((request) => JSON.stringify((request.body as { tools?: unknown }).tools));
    expect(offered).toHaveLength(3);
    expect(offered.some((tools) => /spawn_agent|collaboration/.test(tools))).toBe(false);
    expect(inputTexts(server.requests[1]).some((text) => text === 'unsupported call: spawn_agent')).toBe(true);
    // No sub-agent took the next reply: the command is the thread's own, and asked.
    expect(asked).toEqual(['command_execution']);
    expect(existsSync(file('child.txt'))).toBe(true);
  }, TURN_TIMEOUT);
});
