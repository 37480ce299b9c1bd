import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CapabilityUnsupportedError, defineTool, TroupeError, type AgentStreamPart, type MemberAgentConfig } from '@troupe/core';
import { fakeAgentCliArgs, fakeAgentCliPath, isProcessRunning, MockAgentAdapter, type FakeAgentCliOptions, type MockAgentAdapterOptions } from '@troupe/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentNotInstalledError, query, type QueryOptions, type QueryResult } from './index';

// query() through its public API, against the fake agent CLI of @troupe/core/testing: a custom adapter, the
// generic adapter of a registry entry, and the built-in Claude Code adapter replaying a real recording.

const claudeRecording = fileURLToPath(new URL('./__fixtures__/claude-text.stdout.jsonl', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-query-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Fake CLI lines the mock adapter reads (see MockAgentAdapter). */
const text = (value: string) => JSON.stringify({ type: 'text', text: value });
const done = (value: string) => JSON.stringify({ type: 'result', result: value });

/** The pid of the grandchild the fake CLI started (`spawnGrandchild`), from the turn's stdout. */
function grandchildPid(result: QueryResult): number {
  const match = /"type":"grandchild","pid":(\d+)/.exec(result.outcome.output);
  if (!match) throw new Error(`no grandchild line in:\n${result.outcome.output}`);
  return Number(match[1]);
}

/** A CLI that starts a grandchild in its process group (which outlives it unless the group is killed), prints a line, then hangs. */
const hangingCli: FakeAgentCliOptions = { spawnGrandchild: true, lines: [text('first ')], hang: true };

describe('query() with an adapter object', () => {
  it('streams the parts and resolves the result; the process group is gone once the result settles', async () => {
    const adapter = new MockAgentAdapter({
      cli: {
        spawnGrandchild: true,
        lines: [
          JSON.stringify({ type: 'session', id: 'session-1', model: 'fake-model' }),
          text('Hello '),
          text('world'),
          JSON.stringify({ type: 'usage', inputTokens: 12, outputTokens: 8, costUsd: 0.25 }),
          done('Hello world'),
        ],
      },
    });
    const run = query({ agent: adapter, prompt: 'Say hello', cwd: dir, systemPrompt: 'Be brief.' });
    const parts: AgentStreamPart[] = [];
    for await (const part of run) parts.push(part);
    const result = await run.result;

    expect(parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'text-delta', 'usage', 'turn-end']);
    expect(result).toMatchObject({ agent: 'mock', status: 'completed', text: 'Hello world', sessionId: 'session-1', costUsd: 0.25, error: undefined });
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    // cwd and systemPrompt reached the adapter as the member's workDir and systemInstruction.
    const config = adapter.calls.find((call) => call.method === 'getProcessConfig');
    expect(config?.method === 'getProcessConfig' && config.member).toMatchObject({ workDir: dir, systemInstruction: 'Be brief.' });
    expect(isProcessRunning(grandchildPid(result))).toBe(false);
  });

  it('await run.result alone runs the turn', async () => {
    const run = query({ agent: new MockAgentAdapter({ cli: { lines: [done('only the result')] } }), prompt: 'hi' });
    await expect(run.result).resolves.toMatchObject({ status: 'completed', text: 'only the result' });
  });

  it('break in the loop stops the turn and its process group', async () => {
    const run = query({ agent: new MockAgentAdapter({ cli: hangingCli }), prompt: 'hi', timeoutMs: 60_000 });
    for await (const part of run) {
      if (part.type === 'text-delta') break;
    }
    const result = await run.result;
    expect(result.status).toBe('canceled');
    expect(isProcessRunning(grandchildPid(result))).toBe(false);
  });

  it('a throw in the loop body stops the turn and its process group, and the error goes on', async () => {
    const run = query({ agent: new MockAgentAdapter({ cli: hangingCli }), prompt: 'hi', timeoutMs: 60_000 });
    const thrown = await (async () => {
      for await (const part of run) if (part.type === 'text-delta') throw new Error('consumer failed');
    })().catch((error: unknown) => error);
    expect((thrown as Error).message).toBe('consumer failed');
    const result = await run.result;
    expect(result.status).toBe('canceled');
    expect(isProcessRunning(grandchildPid(result))).toBe(false);
  });

  it('signal abort stops the turn and its process group', async () => {
    const controller = new AbortController();
    const run = query({ agent: new MockAgentAdapter({ cli: hangingCli }), prompt: 'hi', signal: controller.signal, timeoutMs: 60_000 });
    for await (const part of run) {
      if (part.type === 'text-delta') controller.abort(new Error('user pressed stop'));
    }
    const result = await run.result;
    expect(result.status).toBe('canceled');
    expect(result.error?.code).toBe('ABORTED');
    expect(isProcessRunning(grandchildPid(result))).toBe(false);
  });

  it('a signal aborted before the start rejects without starting anything', async () => {
    const adapter = new MockAgentAdapter({ cli: { lines: [done('no')] } });
    const run = query({ agent: adapter, prompt: 'hi', signal: AbortSignal.abort() });
    await expect(run.result).rejects.toMatchObject({ code: 'ABORTED' });
    expect(adapter.calls.filter((call) => call.method === 'getProcessConfig')).toEqual([]);
  });

  it('a signal aborted while the agent loads stops the query before its process starts', async () => {
    const controller = new AbortController();
    const adapter = new MockAgentAdapter({ cli: { lines: [done('no')] } });
    const run = query({ agent: adapter, prompt: 'hi', signal: controller.signal });
    controller.abort();
    await expect(run.result).rejects.toMatchObject({ code: 'ABORTED' });
    expect(adapter.calls.filter((call) => call.method === 'getProcessConfig')).toEqual([]);
  });

  it('timeoutMs ends the turn as timed-out', async () => {
    const result = await query({ agent: new MockAgentAdapter({ cli: hangingCli }), prompt: 'hi', timeoutMs: 1_500 }).result;
    expect(result.status).toBe('timed-out');
    expect(result.error?.code).toBe('COMPLETION_TIMEOUT');
    expect(isProcessRunning(grandchildPid(result))).toBe(false);
  });

  it('a turn the CLI reports as failed resolves with status failed and its error', async () => {
    const failing = new MockAgentAdapter({ cli: { lines: [JSON.stringify({ type: 'result', result: 'API Error: 500', is_error: true })] } });
    const result = await query({ agent: failing, prompt: 'hi' }).result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('AGENT_ERROR');
  });

  it('the values of secret env variables never appear in parts, results or errors', async () => {
    const secret = 'tok-3f9a1c77e2d84b6aa0c1';
    const adapter = new MockAgentAdapter({
      cli: { expandEnv: true, stderr: 'auth with ${env:MY_SERVICE_TOKEN} failed', lines: [text('my token is ${env:MY_SERVICE_TOKEN}')], exitCode: 3 },
    });
    const run = query({ agent: adapter, prompt: 'hi', env: { MY_SERVICE_TOKEN: secret } });
    const parts: AgentStreamPart[] = [];
    for await (const part of run) parts.push(part);
    const result = await run.result;
    expect(result.status).toBe('failed');
    // The CLI did see the value (it echoed it, redacted on the way out).
    expect(JSON.stringify(parts)).toContain('my token is');
    const seen = JSON.stringify({ parts, result, message: result.error?.message, stack: result.error?.stack });
    expect(seen).not.toContain(secret);
  });

  it('tools are served to the CLI over MCP by @troupe/mcp, loaded on demand', async () => {
    const adapter = new MockAgentAdapter({ cli: { lines: [done('ok')] }, capabilities: { mcpServers: true } });
    const echo = defineTool({ name: 'echo', description: 'Echoes its input', parameters: z.object({ value: z.string() }), execute: ({ value }) => value });
    const result = await query({ agent: adapter, prompt: 'hi', tools: [echo] }).result;
    expect(result.status).toBe('completed');
    const config = adapter.calls.find((call) => call.method === 'getProcessConfig');
    const member = (config?.method === 'getProcessConfig' ? config.member : {}) as MemberAgentConfig;
    expect(member.mcpServers?.troupe).toMatchObject({ type: 'http', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) });
  });
});

describe('query() refuses an option the agent cannot honour, before starting anything', () => {
  const echo = defineTool({ name: 'echo', description: 'Echoes', parameters: z.object({}), execute: () => 'x' });
  const cases: [string, Partial<QueryOptions>, MockAgentAdapterOptions['capabilities'], string?][] = [
    ['systemPrompt', { systemPrompt: 'Be brief.' }, { systemPrompt: 'none' }],
    ['mcpServers', { mcpServers: { files: { type: 'stdio', command: 'mcp-files', args: [] } } }, {}],
    ['tools', { tools: [echo] }, {}],
    ['resume', { resume: 'session-1' }, { resume: false }],
    ['continue', { continue: true }, { resume: true }, 'continueSession'],
    ['forkSession', { resume: 'session-1', forkSession: true }, { resume: true }],
    ['model', { model: 'some-model' }, {}],
  ];
  it.each(cases)('%s', async (option, options, capabilities, capability = option) => {
    const adapter = new MockAgentAdapter({ adapterId: 'plain', cli: { lines: [done('no')] }, capabilities });
    const error = await query({ agent: adapter, prompt: 'hi', ...options }).result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CapabilityUnsupportedError);
    expect(error).toMatchObject({ code: 'CAPABILITY_UNSUPPORTED', adapterId: 'plain', capability });
    expect((error as Error).message).toContain('"plain"');
    expect((error as Error).message).toContain(option);
    expect(adapter.calls.filter((call) => call.method === 'getProcessConfig')).toEqual([]);
  });

  it('the iteration throws the same error', async () => {
    const run = query({ agent: new MockAgentAdapter({ capabilities: { systemPrompt: 'none' } }), prompt: 'hi', systemPrompt: 'x' });
    await expect(
      (async () => {
        for await (const _part of run) void _part;
      })(),
    ).rejects.toBeInstanceOf(CapabilityUnsupportedError);
  });
});

describe('query() refuses a mistyped option, naming it, before starting anything', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['timeoutMs', { timeoutMs: 'soon' }, /options\.timeoutMs.*positive number of milliseconds, got soon/],
    ['env', { env: { SERVICE_TOKEN: 424242 } }, /options\.env\.SERVICE_TOKEN.*expected a string, got number/],
    ['signal', { signal: 'stop' }, /options\.signal.*expected an AbortSignal/],
    ['continue', { continue: 'yes' }, /options\.continue.*expected a boolean, got string/],
  ];
  it.each(cases)('%s', async (_, options, message) => {
    const adapter = new MockAgentAdapter({ cli: { lines: [done('no')] } });
    const error = await query({ agent: adapter, prompt: 'hi', ...options } as QueryOptions).result.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('424242');
    expect(adapter.calls.filter((call) => call.method === 'getProcessConfig')).toEqual([]);
  });
});

describe('query() resumes a session by id', () => {
  it('the first turn resumes the given session: the adapter gets its id', async () => {
    const adapter = new MockAgentAdapter({ cli: { lines: [done('again')] }, capabilities: { resume: true } });
    const result = await query({ agent: adapter, prompt: 'and now?', resume: 'session-42' }).result;
    expect(result.status).toBe('completed');
    const config = adapter.calls.find((call) => call.method === 'getProcessConfig');
    expect(config?.method === 'getProcessConfig' ? config.context : undefined).toMatchObject({ resumeSessionId: 'session-42' });
  });
});

describe('query() of a registry entry', () => {
  /** A registry 1.2 entry that runs the fake CLI through the generic adapter (no dedicated adapter for its name). */
  const entry = (cli: FakeAgentCliOptions) => ({
    name: 'my-cli',
    command: process.execPath,
    baseArgs: [fakeAgentCliPath, ...fakeAgentCliArgs(cli)],
    capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl' as const, completionTypes: ['result'] },
  });

  it('an AgentDefinition object runs through the generic adapter', async () => {
    const result = await query({ agent: entry({ lines: [text('generic '), done('answer')] }), prompt: 'hi', cwd: dir }).result;
    expect(result).toMatchObject({ agent: 'my-cli', status: 'completed', text: 'generic answer' });
  });

  it('{ registry, name } reads the entry from a registry file', async () => {
    const registry = join(dir, 'agents.json');
    writeFileSync(registry, JSON.stringify({ schemaVersion: '1.2', agents: { 'my-cli': entry({ lines: [done('from file')] }) } }));
    const result = await query({ agent: { registry, name: 'my-cli' }, prompt: 'hi' }).result;
    expect(result).toMatchObject({ agent: 'my-cli', status: 'completed', text: 'from file' });
    await expect(query({ agent: { registry, name: 'other' }, prompt: 'hi' }).result).rejects.toThrow(/has no agent "other" \(its agents: my-cli\)/);
  });

  it('a model for an entry without a dedicated adapter is refused', async () => {
    await expect(query({ agent: entry({ lines: [done('x')] }), prompt: 'hi', model: 'm' }).result).rejects.toMatchObject({ code: 'CAPABILITY_UNSUPPORTED', capability: 'model' });
  });
});

describe('query() of a built-in agent', () => {
  it("'claude' loads @troupe/adapter-claude and replays a real Claude Code turn", async () => {
    // A `claude` on PATH that is the fake CLI replaying the recording (it ignores the adapter's arguments after its own).
    const bin = join(dir, 'bin');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(bin);
    const args = [fakeAgentCliPath, ...fakeAgentCliArgs({ replay: claudeRecording, printArgv: true })].map((arg) => `'${arg}'`).join(' ');
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec '${process.execPath}' ${args} "$@"\n`);
    chmodSync(join(bin, 'claude'), 0o755);

    const run = query({ agent: 'claude', prompt: 'Say hello', cwd: dir, model: 'claude-opus-5-5', env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    const types = new Set<string>();
    for await (const part of run) types.add(part.type);
    const result = await run.result;
    expect(result).toMatchObject({
      agent: 'claude',
      status: 'completed',
      text: 'Hello from fake-llm.',
      sessionId: '863aed00-dfa4-40ce-9dd4-3baf7906cbfb',
      costUsd: 0.000208,
    });
    expect([...types]).toEqual(expect.arrayContaining(['session', 'usage', 'turn-end']));
    // The adapter built Claude Code's command line, the model included.
    const argv = JSON.parse(result.outcome.output.split('\n')[0] ?? '{}') as { argv: string[]; cwd: string };
    expect(argv.argv).toEqual(expect.arrayContaining(['-p', '--output-format', 'stream-json', '--verbose', '--model', 'claude-opus-5-5']));
    expect(argv.cwd).toBe(dir);
  });

  it.each([
    ['claude', 'npm install -g @anthropic-ai/claude-code'],
    ['codex', 'npm install -g @openai/codex'],
    ['gemini', 'npm install -g @google/gemini-cli'],
  ] as const)('%s: a CLI that is not installed names its install command', async (agent, install) => {
    const error = await query({ agent, prompt: 'hi', cwd: dir, env: { PATH: join(dir, 'empty') } }).result.catch((caught: unknown) => caught);
    expect(TroupeError.hasCode(error, 'COMMAND_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain(install);
  });

  it('an unknown name lists the installed agents and how to add one', async () => {
    const error = await query({ agent: 'claud' as 'claude', prompt: 'hi' }).result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentNotInstalledError);
    expect(error).toMatchObject({ code: 'ADAPTER_NOT_FOUND', adapterType: 'claud', packageName: undefined });
    expect((error as AgentNotInstalledError).registered).toEqual(['claude', 'codex', 'gemini', 'acp:gemini', 'acp:<command>']);
    expect((error as Error).message).toContain('Unknown agent "claud". Installed agents: claude, codex, gemini, acp:gemini, acp:<command>.');
    // Every adapter package is installed here: nothing to npm install, the other ways remain.
    expect((error as Error).message).toContain('To add one: pass an adapter object (agent: createMyAdapter()) or a registry entry');
  });

  it("'acp:<command>' runs that command as an ACP agent, with @troupe/adapter-acp's client", async () => {
    // The agent's command itself is spawned (no driver in between): not installed, it fails as any CLI does.
    const error = await query({ agent: 'acp:no-such-acp-agent', prompt: 'hi', cwd: dir }).result.catch((caught: unknown) => caught);
    expect(TroupeError.hasCode(error, 'COMMAND_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain('Command "no-such-acp-agent" was not found on PATH (spawn ENOENT).');
  });

  it("a CLI that is not installed also ends the iteration with its error", async () => {
    const run = query({ agent: 'claude', prompt: 'hi', cwd: dir, env: { PATH: join(dir, 'empty') } });
    const iterate = async () => {
      for await (const _part of run) void _part;
    };
    await expect(iterate()).rejects.toThrow('npm install -g @anthropic-ai/claude-code');
  });
});
