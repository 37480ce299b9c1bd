import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CapabilityUnsupportedError, ConfigError, InvalidArgumentError } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { resolveCodexAdapterSettings, type CodexAdapterSettings } from './codex-adapter-settings';
import { buildCodexCommandLine, type CodexCommandLineInput } from './codex-command-line';
import { fixturesDir } from './codex-test-support';

const PORT = 43210;
const BASE_URL = `http://127.0.0.1:${PORT}/v1`;
const KEY = 'sk-test-key-000';

const build = (settings: CodexAdapterSettings, input: Partial<Omit<CodexCommandLineInput, 'settings'>> = {}) =>
  buildCodexCommandLine({ settings: resolveCodexAdapterSettings(settings), member: {}, hostEnv: {}, ...input });

/**
 * The argv recorded in a fixture, without `codex` and the prompt, with the
 * recording's provider (`fake`, key in `FAKE_OPENAI_KEY`) renamed to ours.
 */
function recordedArgs(name: string): string[] {
  const meta = JSON.parse(readFileSync(join(fixturesDir, `${name}.meta.json`), 'utf8')) as { argv: string[] };
  return meta.argv.slice(1, -1).map((arg) =>
    arg
      .replaceAll('<PORT>', String(PORT))
      .replaceAll('model_provider=fake', 'model_provider=troupe')
      .replaceAll('model_providers.fake', 'model_providers.troupe')
      .replaceAll('name="fake"', 'name="troupe"')
      .replaceAll('FAKE_OPENAI_KEY', 'TROUPE_CODEX_API_KEY'),
  );
}

/** Our retry caps, right after `-m MODEL` (where `error500-no-retries` recorded them). */
function withRetries(args: string[], retries = 1): string[] {
  const at = args.indexOf('-m') + 2;
  const caps = ['-c', `model_providers.troupe.request_max_retries=${retries}`, '-c', `model_providers.troupe.stream_max_retries=${retries}`];
  return [...args.slice(0, at), ...caps, ...args.slice(at)];
}

describe('command line, as recorded from Codex 0.169.0', () => {
  const custom = { baseUrl: BASE_URL, apiKey: KEY };

  it('text: the recorded command line, retries capped at 1, then `--`', () => {
    const line = build(custom);
    expect(line.args).toEqual([...withRetries(recordedArgs('text')), '--']);
    expect(line.args).toMatchInlineSnapshot(`
      [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-c",
        "analytics.enabled=false",
        "--disable",
        "plugins",
        "-c",
        "model_provider=troupe",
        "-c",
        "model_providers.troupe={name="troupe",base_url="http://127.0.0.1:43210/v1",env_key="TROUPE_CODEX_API_KEY",wire_api="responses"}",
        "-m",
        "gpt-5.5",
        "-c",
        "model_providers.troupe.request_max_retries=1",
        "-c",
        "model_providers.troupe.stream_max_retries=1",
        "--",
      ]
    `);
    expect(line.provider).toBe('custom');
    expect(line.command).toBe('codex');
  });

  it('error500-no-retries: retries 0', () => {
    expect(build({ ...custom, requestMaxRetries: 0, streamMaxRetries: 0 }).args).toEqual([...recordedArgs('error500-no-retries'), '--']);
  });

  it('tool-exec-command / tool-apply-patch: auto-edit → -s workspace-write', () => {
    const args = build({ ...custom, permissionMode: 'auto-edit' }).args;
    expect(args).toEqual([...withRetries(recordedArgs('tool-exec-command')), '--']);
    expect(args).toEqual([...withRetries(recordedArgs('tool-apply-patch')), '--']);
  });

  it('tool-bypass-sandbox: full-auto → --dangerously-bypass-approvals-and-sandbox', () => {
    expect(build({ ...custom, permissionMode: 'full-auto' }).args).toEqual([...withRetries(recordedArgs('tool-bypass-sandbox')), '--']);
  });

  it('ask keeps the default read-only sandbox (no flag), as in tool-*-readonly-sandbox', () => {
    expect(build(custom).args).toEqual([...withRetries(recordedArgs('tool-exec-command-readonly-sandbox')), '--']);
  });

  it('telemetry-default: disableTelemetry false drops `-c analytics.enabled=false --disable plugins`', () => {
    expect(build({ ...custom, disableTelemetry: false }).args).toEqual([...withRetries(recordedArgs('telemetry-default')), '--']);
  });

  it('resume-2-exec-resume: `resume <thread_id>` after every flag, then `--`', () => {
    const line = build(custom, { resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81' });
    expect(line.args).toEqual([...withRetries(recordedArgs('resume-2-exec-resume')), '--']);
  });

  it('continueLastSession: `resume --last` where the recording had `resume <thread_id>` (codex exec resume --help)', () => {
    const recorded = withRetries(recordedArgs('resume-2-exec-resume'));
    expect(build(custom, { continueLastSession: true }).args).toEqual([...recorded.slice(0, -1), '--last', '--']);
  });

  it('forkSession: `fork <thread_id>` in place of `resume <thread_id>` (codex exec fork --help)', () => {
    const recorded = withRetries(recordedArgs('resume-2-exec-resume'));
    const line = build(custom, { resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81', forkSession: true });
    expect(line.args).toEqual([...recorded.slice(0, -2), 'fork', '01a2014c-03d8-78d0-984f-ef5f5cd30a81', '--']);
  });

  it('forkSession of the last session is refused (exec fork needs a thread id); fork alone or with both is a bad input', () => {
    const error = (() => {
      try {
        build(custom, { continueLastSession: true, forkSession: true });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CapabilityUnsupportedError);
    expect(error).toMatchObject({ adapterId: 'codex', capability: 'forkSession' });
    expect(() => build(custom, { forkSession: true })).toThrow(/context\.forkSession/);
    expect(() => build(custom, { resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81', continueLastSession: true })).toThrow(
      /context\.continueLastSession/,
    );
  });

  it('unknown-model-name: the model goes to -m', () => {
    expect(build({ ...custom, model: 'gpt-fake' }).args).toEqual([...withRetries(recordedArgs('unknown-model-name')), '--']);
  });

  it('openai-base-url-websocket-fallback: the built-in provider with a base URL → -c openai_base_url', () => {
    const line = build({ provider: 'built-in', baseUrl: BASE_URL, apiKey: KEY });
    expect(line.args).toEqual([...recordedArgs('openai-base-url-websocket-fallback'), '--']);
    // Codex 0.169 ignores OPENAI_API_KEY for its built-in provider; CODEX_API_KEY is read.
    expect(line.env).toEqual({ CODEX_API_KEY: KEY });
  });

  it('no base URL and no key: the built-in provider (ChatGPT login), no provider or retry flags', () => {
    const line = build({});
    expect(line.provider).toBe('built-in');
    expect(line.args).toEqual(['exec', '--json', '--skip-git-repo-check', '-c', 'analytics.enabled=false', '--disable', 'plugins', '-m', 'gpt-5.5', '--']);
    expect(line.env).toEqual({});
    expect(line.secrets).toEqual([]);
  });

  it('model null passes no -m (Codex picks its default)', () => {
    expect(build({ model: null }).args).not.toContain('-m');
  });

  it('extraArgs then the member additionalArgs, before `resume`', () => {
    const line = build(
      { extraArgs: ['--ephemeral'] },
      { member: { additionalArgs: ['-c', 'model_reasoning_effort="low"'] }, resumeSessionId: 'thread-1' },
    );
    expect(line.args.slice(-6)).toEqual(['--ephemeral', '-c', 'model_reasoning_effort="low"', 'resume', 'thread-1', '--']);
  });

  it('promptDelivery stdin: `-- -` (the prompt is read from stdin)', () => {
    expect(build({ promptDelivery: 'stdin' }).args.slice(-2)).toEqual(['--', '-']);
  });

  it('base URLs: a bare origin gets /v1; trailing slashes go', () => {
    const url = (baseUrl: string) => build({ baseUrl, apiKey: KEY }).args.find((arg) => arg.startsWith('model_providers.troupe={'));
    expect(url('http://127.0.0.1:8080')).toContain('base_url="http://127.0.0.1:8080/v1"');
    expect(url('http://127.0.0.1:8080/')).toContain('base_url="http://127.0.0.1:8080/v1"');
    expect(url('https://proxy.example/openai/v1/')).toContain('base_url="https://proxy.example/openai/v1"');
  });

  it('a custom provider without a base URL points at api.openai.com over HTTP', () => {
    expect(build({ apiKey: KEY }).args).toContain(
      'model_providers.troupe={name="troupe",base_url="https://api.openai.com/v1",env_key="TROUPE_CODEX_API_KEY",wire_api="responses"}',
    );
  });
});

describe('environment and key', () => {
  it('the key goes to TROUPE_CODEX_API_KEY and into secrets', () => {
    const line = build({ baseUrl: BASE_URL, apiKey: KEY });
    expect(line.env).toEqual({ TROUPE_CODEX_API_KEY: KEY });
    expect(line.secrets).toEqual([KEY]);
  });

  it('the key falls back to OPENAI_API_KEY, then CODEX_API_KEY, from member env, settings env, then host', () => {
    expect(build({}, { hostEnv: { OPENAI_API_KEY: 'sk-host' } }).env.TROUPE_CODEX_API_KEY).toBe('sk-host');
    expect(build({}, { hostEnv: { CODEX_API_KEY: 'sk-codex' } }).env.TROUPE_CODEX_API_KEY).toBe('sk-codex');
    expect(build({ env: { OPENAI_API_KEY: 'sk-settings' } }, { hostEnv: { OPENAI_API_KEY: 'sk-host' } }).env.TROUPE_CODEX_API_KEY).toBe(
      'sk-settings',
    );
    expect(
      build({ env: { OPENAI_API_KEY: 'sk-settings' } }, { member: { env: { OPENAI_API_KEY: 'sk-member' } } }).env.TROUPE_CODEX_API_KEY,
    ).toBe('sk-member');
    expect(build({ apiKey: 'sk-explicit' }, { hostEnv: { OPENAI_API_KEY: 'sk-host' } }).env.TROUPE_CODEX_API_KEY).toBe('sk-explicit');
    expect(build({}, { hostEnv: { OPENAI_API_KEY: '' } }).provider).toBe('built-in');
  });

  it('isolated HOME, CODEX_HOME, TMPDIR; member env over settings env', () => {
    const line = build(
      { home: '/h', codexHome: '/h/.codex', tmpDir: '/h/tmp', env: { A: 'settings', B: 'settings' } },
      { member: { env: { B: 'member' } } },
    );
    expect(line.env).toEqual({ A: 'settings', B: 'member', HOME: '/h', CODEX_HOME: '/h/.codex', TMPDIR: '/h/tmp' });
  });

  it('cwd is the work dir, else the member work dir', () => {
    expect(build({}, { workDir: '/a', member: { workDir: '/b' } }).cwd).toBe('/a');
    expect(build({}, { member: { workDir: '/b' } }).cwd).toBe('/b');
  });

  it('custom provider without a key → ConfigError on apiKey', () => {
    const error = (() => {
      try {
        build({ baseUrl: BASE_URL });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]?.path).toEqual(['apiKey']);
    expect(() => build({ provider: 'custom' })).toThrow(/needs an API key/);
  });

  it('retry caps with the built-in provider → ConfigError (Codex forbids overriding it)', () => {
    expect(() => build({ provider: 'built-in', requestMaxRetries: 0 })).toThrow(/Built-in providers cannot be overridden/);
    expect(() => build({ streamMaxRetries: 0 })).toThrow(ConfigError);
  });

  it('a malformed resume id → InvalidArgumentError', () => {
    expect(() => build({}, { resumeSessionId: '--last' })).toThrow(InvalidArgumentError);
    expect(() => build({}, { resumeSessionId: 'a b' })).toThrow(/resumeSessionId/);
  });
});

describe('system prompt', () => {
  it('developer mode: one TOML-escaped -c developer_instructions', () => {
    const prompt = 'You are "Max".\nUse C:\\tmp and """quotes""".';
    const args = build({}, { member: { systemInstruction: prompt } }).args;
    expect(args.filter((arg) => arg.startsWith('developer_instructions='))).toEqual([
      'developer_instructions="You are \\"Max\\".\\nUse C:\\\\tmp and \\"\\"\\"quotes\\"\\"\\"."',
    ]);
    expect(args[args.indexOf('developer_instructions="You are \\"Max\\".\\nUse C:\\\\tmp and \\"\\"\\"quotes\\"\\"\\"."') - 1]).toBe('-c');
  });

  it('two members get different prompts', () => {
    const a = build({}, { member: { systemInstruction: 'You are Max.' } }).args;
    const b = build({}, { member: { systemInstruction: 'You are Sarah.' } }).args;
    expect(a).toContain('developer_instructions="You are Max."');
    expect(b).toContain('developer_instructions="You are Sarah."');
    expect(a).not.toEqual(b);
  });

  it('replace mode: -c model_instructions_file with the file path', () => {
    const args = build({ systemPromptMode: 'replace' }, { member: { systemInstruction: 'X' }, instructionsFile: '/tmp/a "b"/i.md' }).args;
    expect(args).toContain('model_instructions_file="/tmp/a \\"b\\"/i.md"');
    expect(args.some((arg) => arg.startsWith('developer_instructions'))).toBe(false);
  });

  it('no or blank instruction: no flag', () => {
    expect(build({}, { member: { systemInstruction: '  ' } }).args.some((arg) => arg.includes('instructions'))).toBe(false);
  });
});
