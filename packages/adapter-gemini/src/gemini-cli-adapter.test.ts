import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapabilityUnsupportedError, ConfigError, InvalidArgumentError } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeGeminiEnvScript, runTurns, withScript } from './testing/gemini-test-kit';
import { createGeminiCliAdapter, type GeminiCliAdapter, type GeminiCliSettings } from './index';

let scratch: string;
const adapters: GeminiCliAdapter[] = [];
const make = (settings: GeminiCliSettings = {}) => {
  const adapter = createGeminiCliAdapter(settings);
  adapters.push(adapter);
  return adapter;
};

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'troupe-gemini-test-'));
});
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.dispose()));
  rmSync(scratch, { recursive: true, force: true });
});

interface Report {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  systemMd: string | null;
}

describe('command line', () => {
  it('defaults: the recorded flags, -p last so the message is its value, cwd = workDir', async () => {
    const config = await make().getProcessConfig({}, scratch);
    expect(config.command).toBe('gemini');
    expect(config.args).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '-p']);
    expect(config.messageDelivery).toBe('argument');
    expect(config.cwd).toBe(scratch);
    expect(config.installHint).toBe('npm install -g @google/gemini-cli');
    expect(make().getCompletionStrategy()).toEqual({ type: 'turn-end' });
  });

  it('permission modes map to the recorded flags', async () => {
    const argsFor = async (permissionMode: GeminiCliSettings['permissionMode']) => (await make({ permissionMode }).getProcessConfig({})).args;
    expect(await argsFor('ask')).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '-p']);
    expect(await argsFor('auto-edit')).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '--approval-mode', 'auto_edit', '-p']);
    expect(await argsFor('full-auto')).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '--yolo', '-p']);
  });

  it('model, skipTrust, resume, extraArgs and member args', async () => {
    const adapter = make({ command: '/opt/gemini', model: 'gemini-2.5-pro', skipTrust: false, extraArgs: ['--include-directories', '/lib'] });
    const config = await adapter.getProcessConfig({ additionalArgs: ['--debug'] }, scratch, { resumeSessionId: 'abc-123' });
    expect(config.command).toBe('/opt/gemini');
    expect(config.args).toEqual(['-o', 'stream-json', '-m', 'gemini-2.5-pro', '--resume', 'abc-123', '--include-directories', '/lib', '--debug', '-p']);
    // model 'auto' leaves -m out, so the CLI's router picks (one extra request per turn).
    expect((await make({ model: 'auto' }).getProcessConfig({})).args).toEqual(['-o', 'stream-json', '--skip-trust', '-p']);
  });

  it('rejects an empty resume session id', async () => {
    await expect(make().getProcessConfig({}, scratch, { resumeSessionId: ' ' })).rejects.toThrow(InvalidArgumentError);
  });

  it('continueLastSession: --resume latest, as in the resume-2-resume-latest recording', async () => {
    const meta = JSON.parse(readFileSync(new URL('./__fixtures__/resume-2-resume-latest.meta.json', import.meta.url), 'utf8')) as { argv: string[] };
    const config = await make().getProcessConfig({}, scratch, { continueLastSession: true });
    // The recording gave `-p PROMPT` first; the adapter puts `-p` last (the message is its value).
    expect([config.command, ...(config.args ?? [])]).toEqual([...meta.argv.slice(0, 1), ...meta.argv.slice(3), '-p']);
  });

  it('refuses session ids that --resume would read otherwise (a flag, `latest`, an index number)', async () => {
    for (const resumeSessionId of ['--yolo', 'latest', '5', 'a b']) {
      await expect(make().getProcessConfig({}, scratch, { resumeSessionId })).rejects.toThrow(/context\.resumeSessionId/);
    }
  });

  it('forkSession is refused by name: the adapter says it cannot, AgentManager refuses before spawning', async () => {
    expect(make().capabilities.forkSession).toBe(false);
    await expect(make().getProcessConfig({}, scratch, { resumeSessionId: 'abc-123', forkSession: true })).rejects.toBeInstanceOf(
      CapabilityUnsupportedError,
    );
    const registry = new AdapterRegistry();
    registry.register({ type: 'gemini', create: () => make({ command: process.execPath }) });
    const manager = new AgentManager({ adapters: registry });
    const error = await manager
      .ensureAgentStarted('coder', 'gemini', { workDir: scratch }, { resume: '6066eb2e-575a-4b71-95d8-8928473c19cb', forkSession: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CapabilityUnsupportedError);
    expect(error).toMatchObject({ adapterId: 'gemini', capability: 'forkSession' });
    expect((error as Error).message).toMatch(/"gemini".*forkSession/);
    expect(manager.isRunning('coder')).toBe(false);
    await manager.cleanup();
  });

  it('a message starting with "-" gets a leading space (yargs would read it as a flag); others are untouched', () => {
    const adapter = make();
    expect(adapter.prepareMessage('--help me', {})).toBe(' --help me');
    expect(adapter.prepareMessage('Fix the bug', { systemInstruction: 'You are Max.' })).toBe('Fix the bug');
  });
});

describe('environment', () => {
  it('defaults: one process (no relaunch), telemetry off, host HOME and key inherited', async () => {
    const config = await make().getProcessConfig({});
    expect(config.env).toEqual({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_TELEMETRY_ENABLED: 'false' });
    expect(config.secrets).toBeUndefined();
  });

  it('baseUrl and apiKey: exported, key listed as a secret, a private home prepared', async () => {
    const adapter = make({ baseUrl: 'http://127.0.0.1:9999', apiKey: 'fake-gemini-key' });
    const config = await adapter.getProcessConfig({});
    const home = await adapter.getHome();
    expect(home).toMatch(/troupe-gemini-home-/);
    expect(config.env).toEqual({
      HOME: home,
      GEMINI_CLI_HOME: home,
      TMPDIR: join(home as string, 'tmp'),
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9999',
      GEMINI_API_KEY: 'fake-gemini-key',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
    });
    expect(config.secrets).toEqual(['fake-gemini-key']);
    expect(statSync(join(home as string, 'tmp')).isDirectory()).toBe(true);
  });

  it('noRelaunch false removes GEMINI_CLI_NO_RELAUNCH (any value disables the relaunch); telemetry can stay on', async () => {
    const config = await make({ noRelaunch: false, disableTelemetry: false }).getProcessConfig({});
    expect(config.env).toEqual({ GEMINI_CLI_NO_RELAUNCH: undefined });
    expect(Object.hasOwn(config.env ?? {}, 'GEMINI_CLI_NO_RELAUNCH')).toBe(true);
  });

  it('settings env, then member env, layer over the adapter env', async () => {
    const config = await make({ env: { A: 'settings', B: 'settings', GOOGLE_API_KEY: undefined } }).getProcessConfig({ env: { B: 'member' } });
    expect(config.env).toMatchObject({ A: 'settings', B: 'member', GOOGLE_API_KEY: undefined });
  });

  it('home and tmpDir given: used as is; the given home is never removed by dispose', async () => {
    const home = join(scratch, 'home');
    const tmp = join(scratch, 'tmp');
    const adapter = make({ home, tmpDir: tmp, apiKey: 'k-123456' });
    const config = await adapter.getProcessConfig({});
    expect(config.env).toMatchObject({ HOME: home, GEMINI_CLI_HOME: home, TMPDIR: tmp });
    expect(existsSync(join(home, '.gemini', 'settings.json'))).toBe(true);
    expect(statSync(tmp).isDirectory()).toBe(true);
    await adapter.dispose();
    expect(existsSync(join(home, '.gemini', 'settings.json'))).toBe(true);
  });
});

describe('settings home', () => {
  it('writes selectedType gemini-api-key, telemetry and auto-update off, general.maxAttempts (default 2)', async () => {
    const adapter = make({ apiKey: 'fake-gemini-key' });
    const home = (await adapter.getHome()) as string;
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')) as unknown;
    expect(settings).toMatchInlineSnapshot(`
      {
        "general": {
          "enableAutoUpdate": false,
          "enableAutoUpdateNotification": false,
          "maxAttempts": 2,
        },
        "privacy": {
          "usageStatisticsEnabled": false,
        },
        "security": {
          "auth": {
            "selectedType": "gemini-api-key",
          },
        },
        "telemetry": {
          "enabled": false,
        },
      }
    `);
    expect(statSync(join(home, '.gemini', 'settings.json')).mode & 0o777).toBe(0o600);
    await adapter.dispose();
    expect(existsSync(home)).toBe(false);
  });

  it('keeps the other keys of an existing settings.json and applies maxAttempts', async () => {
    const home = join(scratch, 'home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ ui: { theme: 'Dracula' }, general: { vimMode: true, maxAttempts: 10 } }));
    await make({ home, maxAttempts: 5, disableTelemetry: false, prepareHome: true }).getHome();
    expect(JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'))).toEqual({
      ui: { theme: 'Dracula' },
      general: { vimMode: true, maxAttempts: 5, enableAutoUpdate: false, enableAutoUpdateNotification: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    });
  });

  it('an unreadable settings.json is a ConfigError naming the file', async () => {
    const home = join(scratch, 'home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), '{ not json');
    const error = await make({ home, prepareHome: true }).getProcessConfig({}).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain(join(home, '.gemini', 'settings.json'));
  });

  it('GEMINI_API_KEY only in the environment: a private home is prepared, so the key works with no settings file (exit 41 otherwise)', async () => {
    const userHome = join(scratch, 'user-home');
    mkdirSync(userHome);
    const savedHome = process.env.HOME;
    const savedCliHome = process.env.GEMINI_CLI_HOME;
    process.env.HOME = userHome;
    delete process.env.GEMINI_CLI_HOME;
    try {
      const adapter = make({ env: { GEMINI_API_KEY: 'env-only-key' } });
      const home = (await adapter.getHome()) as string;
      expect(home).toMatch(/troupe-gemini-home-/);
      expect(JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')).security.auth.selectedType).toBe('gemini-api-key');
      expect((await adapter.getProcessConfig({})).env).toMatchObject({ HOME: home, GEMINI_CLI_HOME: home, GEMINI_API_KEY: 'env-only-key' });
      expect(existsSync(join(userHome, '.gemini'))).toBe(false);
      // Without a key in the environment, the user's home is used as it is.
      expect(await make({ env: { GEMINI_API_KEY: undefined } }).getHome()).toBeUndefined();
    } finally {
      process.env.HOME = savedHome;
      if (savedCliHome !== undefined) process.env.GEMINI_CLI_HOME = savedCliHome;
    }
  });

  it('GEMINI_API_KEY in the environment but the user\'s settings choose an auth type: their home is left alone', async () => {
    const home = join(scratch, 'home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const own = JSON.stringify({ security: { auth: { selectedType: 'oauth-personal' } } });
    writeFileSync(join(home, '.gemini', 'settings.json'), own);
    const config = await make({ home, env: { GEMINI_API_KEY: 'env-key' } }).getProcessConfig({});
    expect(config.env).toMatchObject({ HOME: home });
    expect(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')).toBe(own);
  });

  it('prepareHome false with a home: HOME is set, nothing is written', async () => {
    const home = join(scratch, 'home');
    const config = await make({ home, apiKey: 'k-123456', prepareHome: false }).getProcessConfig({});
    expect(config.env).toMatchObject({ HOME: home });
    expect(existsSync(join(home, '.gemini'))).toBe(false);
  });
});

describe('system prompt through GEMINI_SYSTEM_MD', () => {
  it('written to a private file for the turn, never in the message, removed once the process exited', async () => {
    const adapter = make();
    const member = { systemInstruction: 'You are Max, a tech lead.', workDir: scratch };
    const [result] = await runTurns(withScript(adapter, fakeGeminiEnvScript), ['-v: is the build green?'], member);
    expect(result?.outcome.status).toBe('completed');
    const report = JSON.parse(result?.text ?? '') as Report;
    expect(report.systemMd).toBe('You are Max, a tech lead.');
    expect(report.env.GEMINI_SYSTEM_MD).toMatch(/troupe-gemini-system-[^/]+\/system\.md$/);
    expect(report.cwd).toBe(scratch);
    // The real argv: the adapter's flags, then -p and the message (a leading "-" escaped by a space).
    expect(report.argv).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '-p', ' -v: is the build green?']);
    expect(report.argv.join(' ')).not.toContain('Max');
    expect(existsSync(report.env.GEMINI_SYSTEM_MD as string)).toBe(false);
  });

  it('two members get two different files; no prompt, no variable', async () => {
    const adapter = make();
    const max = await adapter.getProcessConfig({ systemInstruction: 'You are Max.' });
    const sarah = await adapter.getProcessConfig({ systemInstruction: 'You are Sarah.' });
    const nobody = await adapter.getProcessConfig({});
    const maxFile = max.env?.GEMINI_SYSTEM_MD as string;
    const sarahFile = sarah.env?.GEMINI_SYSTEM_MD as string;
    expect(maxFile).not.toBe(sarahFile);
    expect(readFileSync(maxFile, 'utf8')).toBe('You are Max.');
    expect(readFileSync(sarahFile, 'utf8')).toBe('You are Sarah.');
    expect(nobody.env).not.toHaveProperty('GEMINI_SYSTEM_MD');
    await max.cleanup?.();
    await sarah.cleanup?.();
    expect(existsSync(maxFile)).toBe(false);
    expect(existsSync(sarahFile)).toBe(false);
  });

  it('a private home resumes only its own sessions: another adapter\'s id is a ConfigError naming home, before any spawn', async () => {
    const owner = make({ apiKey: 'fake-key' }); // apiKey, no home: a private temporary home
    const [first, second] = await runTurns(withScript(owner, fakeGeminiEnvScript), ['one', 'two']);
    expect(first?.sessionId).toBe('fake-session-1');
    expect((JSON.parse(second?.text ?? '') as Report).argv).toContain('--resume'); // its own session: resumed
    const other = make({ apiKey: 'fake-key' });
    for (const context of [{ resumeSessionId: 'fake-session-1' }, { continueLastSession: true }]) {
      const error = await other.getProcessConfig({}, scratch, context).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/home: cannot resume .*private temporary home.*set home to the same folder/);
    }
    // With a home of its own choosing, the adapter leaves it to the CLI.
    const shared = make({ apiKey: 'fake-key', home: join(scratch, 'home') });
    expect((await shared.getProcessConfig({}, scratch, { resumeSessionId: 'fake-session-1' })).args).toContain('fake-session-1');
  });

  it('a resumed turn gets the prompt file again (the CLI reads it at every start)', async () => {
    const adapter = make();
    const [first, second] = await runTurns(withScript(adapter, fakeGeminiEnvScript), ['one', 'two'], { systemInstruction: 'Be brief.' });
    const secondReport = JSON.parse(second?.text ?? '') as Report;
    expect(first?.sessionId).toBe('fake-session-1');
    expect(secondReport.argv).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', '--resume', 'fake-session-1', '-p', 'two']);
    expect(secondReport.systemMd).toBe('Be brief.');
  });
});

describe('settings validation', () => {
  const configError = (settings: unknown) => {
    try {
      createGeminiCliAdapter(settings as GeminiCliSettings);
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      return (error as ConfigError).issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    }
    throw new Error('expected a ConfigError');
  };

  it('names each bad field', () => {
    expect(configError({ maxAttempts: 0, permissionMode: 'yolo', home: 'relative/home', baseUrl: 'not a url', typo: 1 })).toEqual([
      'baseUrl: baseUrl must be an absolute http(s) URL, e.g. http://127.0.0.1:8080',
      'permissionMode: Invalid option: expected one of "ask"|"auto-edit"|"full-auto"',
      'maxAttempts: Too small: expected number to be >=1',
      'home: home must be an absolute path',
      ': Unrecognized key: "typo"',
    ]);
    expect(configError({ maxAttempts: 11, apiKey: 'k' })).toEqual(['maxAttempts: Gemini CLI caps maxAttempts at 10']);
    expect(configError({ baseUrl: 'ftp://example.com' })).toEqual(['baseUrl: baseUrl must use http:// or https://']);
  });

  it('maxAttempts without a prepared home is rejected (it lives in settings.json)', () => {
    expect(configError({ maxAttempts: 3 })).toEqual([expect.stringMatching(/^maxAttempts: maxAttempts is written to \$HOME\/\.gemini\/settings\.json/)]);
    expect(() => createGeminiCliAdapter({ maxAttempts: 3, prepareHome: true })).not.toThrow();
  });
});
