import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager, type AgentDefinition } from '@troupe/core/cli-turn';
import { ConfigError, InvalidArgumentError, InvalidStateError } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  claudeCodeAdapterPlugin,
  createClaudeCodeAdapter,
  createClaudeCodeAdapterPlugin,
  registerClaudeCodeAdapter,
  resolveClaudeCodeSettings,
} from './index';

const fixturesDir = new URL('./__fixtures__/', import.meta.url).pathname;
const argvOf = (name: string) => (JSON.parse(readFileSync(`${fixturesDir}${name}.meta.json`, 'utf8')) as { argv: string[] }).argv;
const isRoot = process.getuid?.() === 0;

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('createClaudeCodeAdapter: command line', () => {
  it('defaults: print mode, stream-json in and out, --verbose, partial messages; message on stdin; cwd = workDir', async () => {
    const adapter = createClaudeCodeAdapter();
    const config = await adapter.getProcessConfig({}, '/repo');
    expect(config).toEqual({
      command: 'claude',
      args: ['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--include-partial-messages'],
      cwd: '/repo',
      env: { CLAUDE_CODE_MAX_RETRIES: '2', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      messageDelivery: 'stdin',
      installHint: 'npm install -g @anthropic-ai/claude-code',
      secrets: [],
    });
    expect(adapter.getCompletionStrategy()).toEqual({ type: 'turn-end' });
    expect(adapter.capabilities).toEqual({
      systemPrompt: 'flag',
      resume: true,
      continueSession: true,
      forkSession: true,
      streamingText: true,
      mcpServers: true,
      outputSchema: 'structured-field',
    });
    expect(adapter.adapterId).toBe('claude');
  });

  it.each([
    ['text', {}],
    ['tool', { permissionMode: 'auto-edit' }],
    ['tool-skip-permissions-is-sandbox', { permissionMode: 'full-auto' }],
    ['slow-partial-messages', { includePartialMessages: true }],
    ['append-system-prompt', {}, 'FIXTURE-APPENDED-SYSTEM-PROMPT'],
    ['system-prompt', { systemPromptMode: 'replace' }, 'You are FIXTURE-REPLACED-SYSTEM-PROMPT.'],
    ['resume-2-resume-flag', {}, undefined, '766389a5-2e15-4706-bb1d-13c76850782f'],
  ] as const)('matches the recorded command line of %s (prompt on stdin instead of argv)', async (name, settings, systemInstruction?, resumeSessionId?) => {
    const adapter = createClaudeCodeAdapter({ inputFormat: 'text', includePartialMessages: false, ...settings });
    const config = await adapter.getProcessConfig(systemInstruction ? { systemInstruction } : {}, '/workspace', resumeSessionId ? { resumeSessionId } : {});
    const recorded = argvOf(name);
    // The recording passed the prompt as argv[2]; the adapter sends it on stdin (fixture stdin-prompt).
    expect([config.command, ...(config.args ?? [])]).toEqual([...recorded.slice(0, 2), ...recorded.slice(3)]);
  });

  it('matches the stdin-prompt and stream-json-input recordings exactly', async () => {
    const text = await createClaudeCodeAdapter({ inputFormat: 'text', includePartialMessages: false }).getProcessConfig({}, '/workspace');
    expect(['claude', ...(text.args ?? [])]).toEqual(argvOf('stdin-prompt'));
    const json = await createClaudeCodeAdapter({ includePartialMessages: false }).getProcessConfig({}, '/workspace');
    expect(['claude', ...(json.args ?? [])].sort()).toEqual([...argvOf('stream-json-input-two-turns')].sort());
  });

  it('member systemInstruction goes in --append-system-prompt, never in the message', async () => {
    const adapter = createClaudeCodeAdapter();
    const member = { systemInstruction: 'You are Max, a tech lead.' };
    const config = await adapter.getProcessConfig(member, '/repo');
    const args = config.args ?? [];
    expect(args.slice(args.indexOf('--append-system-prompt'), args.indexOf('--append-system-prompt') + 2)).toEqual([
      '--append-system-prompt',
      'You are Max, a tech lead.',
    ]);
    const message = adapter.prepareMessage('Review src/index.ts', member);
    expect(message).toBe('{"type":"user","message":{"role":"user","content":"Review src/index.ts"}}');
    expect(message).not.toContain('Max');
  });

  it('two members on the same CLI get their own prompts', async () => {
    const adapter = createClaudeCodeAdapter();
    const max = await adapter.getProcessConfig({ systemInstruction: 'You are Max.' }, '/repo');
    const sarah = await adapter.getProcessConfig({ systemInstruction: 'You are Sarah.' }, '/repo');
    expect(max.args).toContain('You are Max.');
    expect(max.args).not.toContain('You are Sarah.');
    expect(sarah.args).toContain('You are Sarah.');
    expect(sarah.args).not.toContain('You are Max.');
  });

  it('text input format sends the plain message', () => {
    expect(createClaudeCodeAdapter({ inputFormat: 'text' }).prepareMessage('Say "hi"\nnow', {})).toBe('Say "hi"\nnow');
  });

  it('appends extraArgs then member additionalArgs last, merges env settings < member, workDir argument wins', async () => {
    const adapter = createClaudeCodeAdapter({
      model: 'claude-opus-5-5',
      extraArgs: ['--add-dir', '/shared'],
      env: { CLAUDE_CODE_MAX_RETRIES: '5', FROM_SETTINGS: 'settings', SHARED: 'settings' },
    });
    const config = await adapter.getProcessConfig(
      { additionalArgs: ['--max-turns', '3'], env: { SHARED: 'member' }, workDir: '/member-dir' },
      '/given-dir',
    );
    expect(config.args?.slice(-6)).toEqual(['--model', 'claude-opus-5-5', '--add-dir', '/shared', '--max-turns', '3']);
    expect(config.env).toMatchObject({ CLAUDE_CODE_MAX_RETRIES: '5', FROM_SETTINGS: 'settings', SHARED: 'member' });
    expect(config.cwd).toBe('/given-dir');
    expect((await adapter.getProcessConfig({ workDir: '/member-dir' })).cwd).toBe('/member-dir');
  });

  it('resumes with --resume <session id> and refuses ids that could read as flags', async () => {
    const adapter = createClaudeCodeAdapter();
    const config = await adapter.getProcessConfig({}, '/repo', { resumeSessionId: '766389a5-2e15-4706-bb1d-13c76850782f' });
    expect(config.args?.slice(-2)).toEqual(['--resume', '766389a5-2e15-4706-bb1d-13c76850782f']);
    await expect(adapter.getProcessConfig({}, '/repo', { resumeSessionId: '--dangerously-skip-permissions' })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it('continue: matches the recorded resume-3-continue-flag command line (--continue, no id)', async () => {
    const adapter = createClaudeCodeAdapter({ inputFormat: 'text', includePartialMessages: false });
    const config = await adapter.getProcessConfig({}, '/workspace', { continueLastSession: true });
    const recorded = argvOf('resume-3-continue-flag');
    expect([config.command, ...(config.args ?? [])]).toEqual([...recorded.slice(0, 2), ...recorded.slice(3)]);
  });

  it('forkSession: --fork-session after --resume <id> or --continue; refused alone or with both', async () => {
    const adapter = createClaudeCodeAdapter({ inputFormat: 'text', includePartialMessages: false });
    const id = '766389a5-2e15-4706-bb1d-13c76850782f';
    expect((await adapter.getProcessConfig({}, '/repo', { resumeSessionId: id, forkSession: true })).args?.slice(-3)).toEqual([
      '--resume',
      id,
      '--fork-session',
    ]);
    expect((await adapter.getProcessConfig({}, '/repo', { continueLastSession: true, forkSession: true })).args?.slice(-2)).toEqual([
      '--continue',
      '--fork-session',
    ]);
    await expect(adapter.getProcessConfig({}, '/repo', { forkSession: true })).rejects.toThrow(/context\.forkSession/);
    await expect(adapter.getProcessConfig({}, '/repo', { resumeSessionId: id, continueLastSession: true })).rejects.toThrow(
      /context\.continueLastSession/,
    );
  });

  it('a session id of the wrong shape given to ensureAgentStarted is an InvalidArgumentError naming it', async () => {
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => createClaudeCodeAdapter({ command: process.execPath }) });
    const manager = new AgentManager({ adapters });
    const error = await manager.ensureAgentStarted('coder', 'claude', {}, { resume: 'not/a/session' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('"not/a/session"');
    expect((error as Error).message).toContain('Claude Code session id');
    expect(manager.isRunning('coder')).toBe(false);
    await manager.cleanup();
  });

  it('rejects a bad member config with a ConfigError naming the field', async () => {
    const adapter = createClaudeCodeAdapter();
    const error = await Promise.resolve(adapter.getProcessConfig({ additionalArgs: [42] } as never, '/repo')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('additionalArgs[0]');
  });
});

describe('createClaudeCodeAdapter: environment per setting', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('baseUrl → ANTHROPIC_BASE_URL (trailing slash dropped), apiKey → ANTHROPIC_API_KEY and secrets', async () => {
    const config = await createClaudeCodeAdapter({ baseUrl: 'http://127.0.0.1:8080/', apiKey: 'sk-ant-test-123456' }).getProcessConfig({}, '/repo');
    expect(config.env).toMatchObject({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080', ANTHROPIC_API_KEY: 'sk-ant-test-123456' });
    expect(config.secrets).toEqual(['sk-ant-test-123456']);
  });

  it('without apiKey the host ANTHROPIC_API_KEY is inherited (not set, not removed)', async () => {
    const config = await createClaudeCodeAdapter().getProcessConfig({}, '/repo');
    expect(config.inheritEnv).toBeUndefined();
    expect(Object.keys(config.env ?? {})).not.toContain('ANTHROPIC_API_KEY');
  });

  it('maxRetries → CLAUDE_CODE_MAX_RETRIES; disableNonessentialTraffic false leaves the variable unset', async () => {
    const config = await createClaudeCodeAdapter({ maxRetries: 0, disableNonessentialTraffic: false }).getProcessConfig({}, '/repo');
    expect(config.env).toEqual({ CLAUDE_CODE_MAX_RETRIES: '0' });
  });

  it('permission modes: ask adds nothing, auto-edit → acceptEdits, full-auto → skip permissions (+ IS_SANDBOX=1 as root)', async () => {
    const ask = await createClaudeCodeAdapter({ permissionMode: 'ask' }).getProcessConfig({}, '/repo');
    expect(ask.args?.join(' ')).not.toMatch(/permission/);
    const autoEdit = await createClaudeCodeAdapter({ permissionMode: 'auto-edit' }).getProcessConfig({}, '/repo');
    expect(autoEdit.args?.join(' ')).toContain('--permission-mode acceptEdits');
    expect(autoEdit.env?.IS_SANDBOX).toBeUndefined();
    const fullAuto = await createClaudeCodeAdapter({ permissionMode: 'full-auto' }).getProcessConfig({}, '/repo');
    expect(fullAuto.args).toContain('--dangerously-skip-permissions');
    expect(fullAuto.env?.IS_SANDBOX).toBe(isRoot ? '1' : undefined);
  });

  it('includePartialMessages false drops the flag and streamingText', async () => {
    const adapter = createClaudeCodeAdapter({ includePartialMessages: false });
    expect((await adapter.getProcessConfig({}, '/repo')).args).not.toContain('--include-partial-messages');
    expect(adapter.capabilities.streamingText).toBe(false);
  });

  it('home and tmpDir → HOME and TMPDIR, created when missing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'troupe-claude-adapter-'));
    dirs.push(root);
    const home = join(root, 'home', 'nested');
    const tmp = join(root, 'tmp');
    const config = await createClaudeCodeAdapter({ home, tmpDir: tmp }).getProcessConfig({}, '/repo');
    expect(config.env).toMatchObject({ HOME: home, TMPDIR: tmp });
    expect(existsSync(home) && existsSync(tmp)).toBe(true);
  });

  it('command and installHint are configurable', async () => {
    const config = await createClaudeCodeAdapter({ command: '/opt/claude/bin/claude', installHint: 'brew install claude' }).getProcessConfig({}, '/repo');
    expect(config.command).toBe('/opt/claude/bin/claude');
    expect(config.installHint).toBe('brew install claude');
  });

  it('adds the arguments the parser relies on when baseArgs lacks them', async () => {
    const config = await createClaudeCodeAdapter({ baseArgs: ['--output-format=stream-json'], includePartialMessages: false, inputFormat: 'text' }).getProcessConfig(
      {},
      '/repo',
    );
    expect(config.args).toEqual(['-p', '--output-format=stream-json', '--verbose']);
  });
});

describe('settings validation', () => {
  it.each([
    [{ permissionMode: 'yolo' }, 'permissionMode'],
    [{ systemPromptMode: 'prepend' }, 'systemPromptMode'],
    [{ baseUrl: 'http://127.0.0.1:8080/v1' }, 'baseUrl: must not end with /v1'],
    [{ baseUrl: 'ftp://example.com' }, 'baseUrl: expected an http(s) URL'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries: expected a whole number'],
    [{ command: '  ' }, 'command: expected a non-empty command name or path'],
    [{ env: { A: 1 } }, 'env.A'],
    [{ extraArgs: '--foo' }, 'extraArgs'],
    [{ permisionMode: 'ask' }, 'permisionMode'],
    [{ apiKey: '' }, 'apiKey: expected a non-empty API key'],
  ])('%j → ConfigError naming %s', (settings, expected) => {
    const error = configError(() => createClaudeCodeAdapter(settings as never));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('Claude Code adapter settings');
    expect(error.message).toContain(expected);
  });

  it('lists every bad field at once', () => {
    const error = configError(() => resolveClaudeCodeSettings({ permissionMode: 'x', maxRetries: 'many' }));
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['permissionMode', 'maxRetries']);
  });

  it('baseArgs asking for another output format is a ConfigError', () => {
    const error = configError(() => createClaudeCodeAdapter({ baseArgs: ['-p', '--output-format', 'json'] }));
    expect(error.message).toContain('baseArgs: --output-format must be stream-json');
  });

  it('does not leak the API key into error messages', () => {
    const error = configError(() => createClaudeCodeAdapter({ apiKey: 'sk-ant-secret-999999', maxRetries: -1 }));
    expect(error.message).not.toContain('sk-ant-secret-999999');
  });
});

describe('plugin and registration', () => {
  it('registers under "claude" and unregisters', () => {
    const registry = new AdapterRegistry();
    const unregister = registerClaudeCodeAdapter(registry);
    expect(registry.types()).toEqual(['claude']);
    expect(registry.create('claude').adapterId).toBe('claude');
    expect(() => registerClaudeCodeAdapter(registry)).toThrow(InvalidStateError);
    unregister();
    expect(registry.has('claude')).toBe(false);
  });

  it('the default plugin describes itself', () => {
    expect(claudeCodeAdapterPlugin.type).toBe('claude');
    expect(claudeCodeAdapterPlugin.displayName).toBe('Claude Code');
    expect(claudeCodeAdapterPlugin.create().settings.command).toBe('claude');
  });

  it('takes command, baseArgs and the system prompt flag from a registry definition', async () => {
    const definition: AgentDefinition = {
      name: 'claude',
      command: '/usr/local/bin/claude',
      baseArgs: ['-p', '--output-format', 'stream-json', '--verbose', '--add-dir', '/shared'],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] },
    };
    const adapter = createClaudeCodeAdapterPlugin({ maxRetries: 0 }).create(definition);
    const config = await adapter.getProcessConfig({ systemInstruction: 'You are Max.' }, '/repo');
    expect(config.command).toBe('/usr/local/bin/claude');
    expect(config.args?.slice(0, 6)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--add-dir', '/shared']);
    expect(config.args).toContain('--system-prompt');
    expect(config.args).not.toContain('--append-system-prompt');
    expect(config.env?.CLAUDE_CODE_MAX_RETRIES).toBe('0');
  });

  it('every registry field reaches the process: model, baseUrl, apiKeyEnv, home, maxRetries, env, completion', async () => {
    process.env.TROUPE_TEST_CLAUDE_KEY = 'sk-ant-registry-test';
    try {
      const definition: AgentDefinition = {
        name: 'claude',
        command: '/opt/claude',
        baseArgs: [],
        capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'idleTimeout', idleTimeoutMs: 4000 },
        model: 'claude-sonnet-5-5',
        baseUrl: 'http://127.0.0.1:4012',
        apiKeyEnv: 'TROUPE_TEST_CLAUDE_KEY',
        home: join(fixturesDir, 'no-such-home-created-lazily'),
        maxRetries: 1,
        env: { CLAUDE_EXTRA: '1' },
      };
      const adapter = claudeCodeAdapterPlugin.create(definition);
      expect(adapter.settings).toMatchObject({ model: 'claude-sonnet-5-5', baseUrl: 'http://127.0.0.1:4012', apiKey: 'sk-ant-registry-test', maxRetries: 1 });
      expect(adapter.settings.env).toEqual({ CLAUDE_EXTRA: '1' });
      expect(adapter.settings.home).toBe(definition.home);
      expect(adapter.getCompletionStrategy()).toEqual({ type: 'idleTimeout', timeoutMs: 4000 });
      expect(claudeCodeAdapterPlugin.create({ ...definition, capabilities: { ...definition.capabilities, completionDetection: 'jsonl', completionTypes: ['result'] } }).getCompletionStrategy()).toEqual({
        type: 'turn-end',
      });
    } finally {
      delete process.env.TROUPE_TEST_CLAUDE_KEY;
    }
  });

  it('rejects a registry definition with a foreign system prompt flag', () => {
    const definition = {
      name: 'claude',
      command: 'claude',
      baseArgs: [],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--instructions', completionDetection: 'jsonl', completionTypes: ['result'] },
    } satisfies AgentDefinition;
    const error = configError(() => claudeCodeAdapterPlugin.create(definition));
    expect(error.message).toContain('capabilities.systemPromptFlag');
  });

  it('bad plugin settings fail at once', () => {
    expect(() => createClaudeCodeAdapterPlugin({ permissionMode: 'nope' as never })).toThrow(ConfigError);
    expect(() => registerClaudeCodeAdapter(new AdapterRegistry(), { maxRetries: -3 })).toThrow(ConfigError);
  });

  it('a missing binary fails the turn with COMMAND_NOT_FOUND and the install hint', async () => {
    const registry = new AdapterRegistry();
    registerClaudeCodeAdapter(registry, { command: 'troupe-no-such-claude-binary' });
    const manager = new AgentManager({ adapters: registry });
    try {
      await manager.ensureAgentStarted('coder', 'claude', { workDir: fixturesDir });
      const error = await manager.sendAndReceive('coder', 'hi').catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('COMMAND_NOT_FOUND');
      expect((error as Error).message).toContain('npm install -g @anthropic-ai/claude-code');
    } finally {
      await manager.cleanup();
    }
  });
});
