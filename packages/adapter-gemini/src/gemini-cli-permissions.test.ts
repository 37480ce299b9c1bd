import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, EventBus, type ToolUseRequest } from '@troupe/core';
import { connectDecisionSocket, listenDecisionSocket } from '@troupe/core/util';
import { replayThroughAdapter } from '@troupe/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGeminiCliAdapter } from './index';
import { assertGeminiWorkspaceKeepsHook, GEMINI_HOOK_SOCKET_ENV, GEMINI_HOOK_TRACE_ENV, geminiHookCommand, geminiPermissionHookPath, writeGeminiHookSettings } from './gemini-cli-hook-process';
import { createGeminiHookHandler, GEMINI_DEFER_UNSUPPORTED, geminiToolKind, geminiToolTarget } from './gemini-cli-permissions';

/** Hook events Gemini CLI 0.61.0 wrote on the hook's stdin (read, write, shell, list; AfterTool; AfterAgent), against the fake API. */
const recorded = readFileSync(new URL('./__fixtures__/permissions/hook-events.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Record<string, unknown>);

const signal = new AbortController().signal;
let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('Gemini CLI tool kinds and targets', () => {
  it('maps the built-in tools, MCP tools and unknown tools', () => {
    expect(['read_file', 'read_many_files', 'glob', 'search_file_content', 'list_directory'].map(geminiToolKind)).toEqual(['read', 'read', 'read', 'read', 'read']);
    expect(['write_file', 'replace', 'run_shell_command', 'web_fetch', 'google_web_search'].map(geminiToolKind)).toEqual(['edit', 'edit', 'execute', 'fetch', 'fetch']);
    expect(geminiToolKind('mcp_github_create_issue')).toBe('mcp');
    expect(geminiToolKind('save_memory')).toBe('other');
    expect(geminiToolTarget('write_file', { file_path: 'a.txt', content: 'x' })).toBe('a.txt');
    expect(geminiToolTarget('run_shell_command', { command: 'ls -la' })).toBe('ls -la');
    expect(geminiToolTarget('web_fetch', { prompt: 'get http://x' })).toBe('get http://x');
    expect(geminiToolTarget('list_directory', { dir_path: 'src' })).toBe('src');
  });
});

describe('createGeminiHookHandler (recorded hook events)', () => {
  it('decides each BeforeTool event with decideToolUse and passes the rest to the hooks', async () => {
    const asked: ToolUseRequest[] = [];
    const post: string[] = [];
    const stops: string[] = [];
    const bus = new EventBus();
    const decided: unknown[] = [];
    bus.on('permission:decided', (event) => void decided.push(event));
    const handler = createGeminiHookHandler({
      agent: 'coder',
      workspace: '/work',
      bus,
      permissions: {
        canUseTool: (request) => {
          asked.push(request);
          if (request.tool === 'write_file') return { behavior: 'deny', message: 'no writes' };
          if (request.kind === 'execute') return { behavior: 'allow', input: { command: 'echo changed' } };
          return true;
        },
        hooks: { postToolUse: (outcome) => void post.push(outcome.request.tool), stop: (event) => void stops.push(event.agent) },
      },
    });
    const answers = [];
    for (const event of recorded) answers.push(await handler(event, signal));
    expect(asked.map((request) => [request.tool, request.kind, request.target])).toEqual([
      ['read_file', 'read', 'a.txt'],
      ['write_file', 'edit', 'b.txt'],
      ['run_shell_command', 'execute', 'echo orig > orig.txt'],
      ['list_directory', 'read', '.'],
    ]);
    expect(asked.every((request) => request.agent === 'coder' && request.adapter === 'gemini' && request.sessionId === recorded[0]?.session_id)).toBe(true);
    // Only a changed input goes back: Gemini CLI tells the model of every call answered with a tool_input that a hook changed it.
    expect(answers).toEqual([
      { decision: 'allow' },
      {},
      { decision: 'deny', reason: 'no writes' },
      { decision: 'allow', hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { command: 'echo changed' } } },
      { decision: 'allow' },
      {},
      {},
      {},
    ]);
    expect(post).toEqual(['read_file', 'run_shell_command', 'list_directory']);
    expect(stops).toEqual(['coder']);
    expect(decided).toHaveLength(4);
  });

  it('an event with mcp_context is an MCP call named mcp__<server>__<tool>, whatever its tool name, so mcp__ rules match it', async () => {
    const seen: string[] = [];
    const handler = createGeminiHookHandler({ agent: 'a', permissions: { policy: { deny: ['mcp__probe__*'] }, canUseTool: (request) => (seen.push(`${request.kind} ${request.tool}`), true) } });
    const denied = await handler({ hook_event_name: 'BeforeTool', tool_name: 'mcp_probe_read_env', tool_input: { name: 'X' }, mcp_context: { server_name: 'probe', tool_name: 'read_env' } }, signal);
    expect(denied).toMatchObject({ decision: 'deny' });
    await handler({ hook_event_name: 'BeforeTool', tool_name: 'search', tool_input: { q: 'X' }, mcp_context: { server_name: 'docs', tool_name: 'search' } }, signal);
    await handler({ hook_event_name: 'BeforeTool', tool_name: 'read_env', tool_input: { name: 'X' } }, signal);
    await handler({ hook_event_name: 'BeforeTool', tool_name: 'invoke_agent', tool_input: { agent_name: 'generalist', prompt: 'p' } }, signal);
    expect(seen).toEqual(['mcp mcp__docs__search', 'other read_env', 'subagent invoke_agent']);
  });

  it('denies a deferred call, and a changed input that is no object', async () => {
    const before = recorded.find((event) => event.hook_event_name === 'BeforeTool')!;
    const deferring = createGeminiHookHandler({ agent: 'a', permissions: { canUseTool: () => ({ behavior: 'defer' }) } });
    expect(await deferring(before, signal)).toEqual({ decision: 'deny', reason: GEMINI_DEFER_UNSUPPORTED });
    const odd = createGeminiHookHandler({ agent: 'a', permissions: { canUseTool: () => ({ behavior: 'allow', input: 'rm -rf /' }) } });
    expect(await odd(before, signal)).toMatchObject({ decision: 'deny' });
  });
});

/** Runs the hook command through the shell, as Gemini CLI does. */
function runHook(command: string, event: unknown, env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { env: { ...process.env, [GEMINI_HOOK_SOCKET_ENV]: undefined, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify(event));
  });
}

describe('the hook script', () => {
  const before = { hook_event_name: 'BeforeTool', session_id: 's', cwd: '/w', tool_name: 'write_file', tool_input: { file_path: 'x', content: 'y' } };

  it('asks the host over the socket and prints its answer', { timeout: 30_000 }, async () => {
    scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-hook-test-'));
    const decide = createGeminiHookHandler({ agent: 'a', permissions: { canUseTool: (request) => request.tool !== 'write_file' } });
    const handler: typeof decide = async (event, signal) => {
      if (event.tool_name === 'broken') throw new Error('the host broke');
      return decide(event, signal);
    };
    const socket = await listenDecisionSocket(join(scratch, 'hook.sock'), { name: 'test', handler });
    try {
      const denied = await runHook(geminiHookCommand(), before, { [GEMINI_HOOK_SOCKET_ENV]: socket.path });
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.stdout)).toMatchObject({ decision: 'deny' });
      const allowed = await runHook(geminiHookCommand(), { ...before, tool_name: 'read_file', tool_input: { file_path: 'x' } }, { [GEMINI_HOOK_SOCKET_ENV]: socket.path });
      expect(allowed.code).toBe(0);
      expect(JSON.parse(allowed.stdout)).toEqual({ decision: 'allow' });
      // An error frame from the host (its handler threw) denies the call.
      const broken = await runHook(geminiHookCommand(), { ...before, tool_name: 'broken' }, { [GEMINI_HOOK_SOCKET_ENV]: socket.path });
      expect(JSON.parse(broken.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('fail closed') });
    } finally {
      await socket.close();
    }
  });

  it('fails closed: no host listening, or no script to run, denies the call', { timeout: 30_000 }, async () => {
    const unreachable = await runHook(geminiHookCommand(), before, { [GEMINI_HOOK_SOCKET_ENV]: '/nonexistent/troupe/hook.sock' });
    expect(unreachable.code).toBe(0);
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('fail closed') });
    const missing = await runHook(geminiHookCommand(process.execPath, '/nonexistent/gemini-permission-hook.mjs'), before, { [GEMINI_HOOK_SOCKET_ENV]: '/x.sock' });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ decision: 'deny' });
  });

  it('changes nothing in a turn without a socket (another adapter sharing the home)', async () => {
    const result = await runHook(geminiHookCommand(), before);
    expect(result).toEqual({ code: 0, stdout: '{}' });
  });

  it('is a plain script next to the adapter, cheap to start: it imports only Node built-ins', () => {
    expect(geminiPermissionHookPath).toMatch(/bin[\\/]gemini-permission-hook\.mjs$/);
    const source = readFileSync(geminiPermissionHookPath, 'utf8');
    const imported = [...source.matchAll(/(?:^import .* from |import\()'([^']+)'/gm)].map((match) => match[1]);
    expect(imported).toEqual(['node:net', 'node:fs']);
    return new Promise<void>((resolve, reject) => execFile(process.execPath, ['--check', geminiPermissionHookPath], (error) => (error ? reject(error) : resolve())));
  });
});

describe('hook settings and the command line', () => {
  it('writes Troupe\'s hooks into the home, keeping the user\'s and replacing its own', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-hook-test-'));
    mkdirSync(join(scratch, '.gemini'));
    const mine = { matcher: 'write_file', hooks: [{ type: 'command', command: 'my-audit' }] };
    writeFileSync(join(scratch, '.gemini', 'settings.json'), JSON.stringify({ hooks: { BeforeTool: [mine] }, hooksConfig: { enabled: false, notifications: false } }));
    await writeGeminiHookSettings(scratch, {});
    const first = JSON.parse(readFileSync(join(scratch, '.gemini', 'settings.json'), 'utf8'));
    await writeGeminiHookSettings(scratch, { hooks: { stop: () => {} } });
    const settings = JSON.parse(readFileSync(join(scratch, '.gemini', 'settings.json'), 'utf8'));
    expect(settings.hooksConfig).toEqual({ enabled: true, notifications: false });
    expect(settings.hooks.BeforeTool).toHaveLength(2);
    expect(settings.hooks.BeforeTool[0]).toEqual(mine);
    expect(settings.hooks.BeforeTool[1].hooks[0]).toMatchObject({ name: expect.stringMatching(/^troupe-permissions-[0-9a-f]{16}$/), type: 'command', command: geminiHookCommand() });
    // A new name every turn: a workspace's hooksConfig.disabled cannot name it.
    expect(first.hooks.BeforeTool[1].hooks[0].name).not.toBe(settings.hooks.BeforeTool[1].hooks[0].name);
    expect(settings.hooks.BeforeTool[1].matcher).toBeUndefined();
    expect(settings.hooks.AfterAgent).toHaveLength(1);
    expect(settings.hooks.AfterTool).toBeUndefined();
    // The user's BeforeTool hook runs beside Troupe's: Troupe's answer then always carries the input to run.
    expect(await writeGeminiHookSettings(scratch, {})).toEqual({ otherBeforeToolHooks: true });
    const echoing = createGeminiHookHandler({ agent: 'a', permissions: { canUseTool: () => true }, alwaysAnswerInput: true });
    expect(await echoing({ hook_event_name: 'BeforeTool', tool_name: 'glob', tool_input: { pattern: '*' } }, signal)).toEqual({ decision: 'allow', hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { pattern: '*' } } });
  });

  it('refuses a workspace settings file that switches hooks off or adds BeforeTool hooks, naming the file and setting', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-hook-test-'));
    const home = join(scratch, 'home');
    const workspace = join(scratch, 'work');
    mkdirSync(join(workspace, '.gemini'), { recursive: true });
    await expect(assertGeminiWorkspaceKeepsHook(workspace, home)).resolves.toBeUndefined(); // no file
    const file = join(workspace, '.gemini', 'settings.json');
    writeFileSync(file, JSON.stringify({ hooksConfig: { enabled: false, disabled: ['troupe-permissions'] }, hooks: { BeforeTool: [{ hooks: [{ type: 'command', command: 'x' }] }], AfterTool: [{ hooks: [] }] } }));
    const error = await assertGeminiWorkspaceKeepsHook(workspace, home).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path.join('.'))).toEqual(['hooksConfig.enabled', 'hooks.BeforeTool']);
    expect(String(error)).toContain(file);
    // The workspace is the home: the CLI reads that file as the user's settings, where Troupe writes its own.
    await expect(assertGeminiWorkspaceKeepsHook(workspace, workspace)).resolves.toBeUndefined();
    writeFileSync(file, JSON.stringify({ hooksConfig: { disabled: ['troupe-permissions'], notifications: false }, hooks: { AfterTool: [] } }));
    await expect(assertGeminiWorkspaceKeepsHook(workspace, home)).resolves.toBeUndefined();
    writeFileSync(file, '{ // a comment\n}');
    await expect(assertGeminiWorkspaceKeepsHook(workspace, home)).rejects.toThrow(/is not valid JSON/);
  });

  it('runs with --yolo and the hook socket, and refuses a turn in the user\'s own home', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-hook-test-'));
    const trace = join(scratch, 'trace.jsonl');
    const adapter = createGeminiCliAdapter({ apiKey: 'k', home: join(scratch, 'home'), tmpDir: join(scratch, 'tmp'), permissionMode: 'ask', env: { [GEMINI_HOOK_TRACE_ENV]: trace }, permissions: { canUseTool: () => true } });
    const config = await adapter.getProcessConfig({ workDir: scratch }, undefined, { roleId: 'coder' } as never);
    try {
      expect(config.args).toContain('--yolo');
      expect(config.env?.[GEMINI_HOOK_SOCKET_ENV]).toMatch(/hook\.sock$/);
      // With a trace file, the host appends its own time per decision.
      const host = connectDecisionSocket(String(config.env?.[GEMINI_HOOK_SOCKET_ENV]), 'test');
      await host.request({ hook_event_name: 'BeforeTool', session_id: 's', tool_name: 'read_file', tool_input: { file_path: 'a' } });
      host.close();
      await vi.waitFor(() => expect(JSON.parse(readFileSync(trace, 'utf8'))).toMatchObject({ side: 'host', event: 'BeforeTool', host_ms: expect.any(Number) }));
    } finally {
      await config.cleanup?.();
    }
    const plain = await createGeminiCliAdapter({ apiKey: 'k', home: join(scratch, 'home') }).getProcessConfig({ workDir: scratch });
    expect(plain.args).not.toContain('--yolo');
    expect(plain.env?.[GEMINI_HOOK_SOCKET_ENV]).toBeUndefined();
    const userHome = createGeminiCliAdapter({ prepareHome: false, env: { GEMINI_API_KEY: undefined }, permissions: {} });
    await expect(userHome.getProcessConfig({ workDir: scratch })).rejects.toThrow(/permissions need a settings home/);
    expect(() => createGeminiCliAdapter({ policyFile: '/p.json', permissions: { policy: { allow: ['read_file'] } } })).toThrow(/either policyFile or permissions.policy/);
  });
});

describe('a recorded permission turn (Gemini CLI 0.61.0 with Troupe\'s hook, fake API)', () => {
  const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/permissions/deny-write-change-command.${name}`, import.meta.url));

  it('reads as before: the denied call is an error result with the reason, the others succeed', async () => {
    const result = await replayThroughAdapter(createGeminiCliAdapter(), { name: 'deny-write-change-command', stdoutFile: fixture('stdout.jsonl'), exitCode: 0 }, process.cwd());
    expect(result.status).toBe('completed');
    const results = result.parts.filter((part) => part.type === 'tool-result');
    expect(results.map((part) => [part.toolName ?? part.toolCallId.split('__')[0], part.isError])).toEqual([
      ['read_file', false],
      ['write_file', true],
      ['run_shell_command', false],
    ]);
    expect(JSON.stringify(results[1])).toContain('Tool execution blocked: DENIED-BY-TROUPE: no writes here');
    // The stream reports the model's input; the changed one is what ran (the recording's files: changed.txt only).
    const meta = JSON.parse(readFileSync(fixture('meta.json'), 'utf8')) as { files_after: Record<string, boolean> };
    expect(meta.files_after).toEqual({ 'denied.txt': false, 'original.txt': false, 'changed.txt': true });
  });

  it('the reason reached the model in the next request, as the write_file function response', () => {
    const [, second] = readFileSync(fixture('requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { contents: unknown });
    expect(JSON.stringify(second?.contents)).toContain('DENIED-BY-TROUPE: no writes here');
  });
});
