import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@troupe/core';
import {
  createGenericAdapter,
  loadRegistryFile,
  migrateRegistry,
  parseRegistryConfig,
  readRegistryAgentSettings,
  withCompletionStrategy,
  type AgentDefinition,
} from '@troupe/core/cli-turn';
import { MockAgentAdapter } from '@troupe/core/testing';

const codex: AgentDefinition = {
  name: 'codex',
  command: 'codex',
  baseArgs: ['exec', '--json'],
  capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
};
const facts = { adapterId: 'codex', completionTypes: ['turn.completed', 'turn.failed'] };

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readRegistryAgentSettings', () => {
  it('returns every field for the adapter; the CLI\'s own completion events keep the adapter\'s strategy', () => {
    const settings = readRegistryAgentSettings(
      { ...codex, model: 'gpt-5.5', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'MY_KEY', env: { A: '1' }, home: '/tmp/h', maxRetries: 0 },
      { ...facts, env: { MY_KEY: 'sk-secret' } },
    );
    expect(settings).toEqual({
      command: 'codex',
      baseArgs: ['exec', '--json'],
      model: 'gpt-5.5',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-secret',
      env: { A: '1' },
      home: '/tmp/h',
      maxRetries: 0,
      completion: undefined,
    });
  });

  it('honours idleTimeout, exit and a subset of the completion events', () => {
    const idle = { ...codex, capabilities: { supportsSystemPrompt: false, completionDetection: 'idleTimeout' as const, idleTimeoutMs: 2500 } };
    expect(readRegistryAgentSettings(idle, facts).completion).toEqual({ type: 'idleTimeout', timeoutMs: 2500 });
    const exit = { ...codex, capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' as const } };
    expect(readRegistryAgentSettings(exit, facts).completion).toEqual({ type: 'exit' });
    const subset = { ...codex, capabilities: { ...codex.capabilities, completionTypes: ['turn.completed'] } };
    expect(readRegistryAgentSettings(subset, facts).completion).toEqual({ type: 'jsonl', completionTypes: ['turn.completed'] });
  });

  it('refuses what it cannot honour, naming each field, and never prints the key', () => {
    const error = configError(() =>
      readRegistryAgentSettings(
        { ...codex, usePty: true, apiKeyEnv: 'UNSET_KEY_FOR_TEST', capabilities: { ...codex.capabilities, completionTypes: ['result'] } },
        { ...facts, env: {} },
      ),
    );
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['usePty', 'capabilities.completionTypes', 'apiKeyEnv']);
    expect(error.message).toContain('codex never prints "result", so its turns would never end; it ends a turn with "turn.completed" or "turn.failed"');
    expect(error.message).toContain('the environment variable UNSET_KEY_FOR_TEST is not set');
    expect(error.source).toBe('agent registry entry "codex"');
  });

  it('withCompletionStrategy replaces only the strategy', () => {
    const adapter = new MockAgentAdapter();
    expect(withCompletionStrategy(adapter, undefined)).toBe(adapter);
    const idle = withCompletionStrategy(adapter, { type: 'idleTimeout', timeoutMs: 10 });
    expect(idle.getCompletionStrategy()).toEqual({ type: 'idleTimeout', timeoutMs: 10 });
    expect(idle.adapterId).toBe(adapter.adapterId);
    // A class-based adapter keeps its methods.
    expect(idle.prepareMessage('hi', {})).toBe(adapter.prepareMessage('hi', {}));
  });
});

describe('registry 1.2 agent fields', () => {
  it('validates model, baseUrl, apiKeyEnv, env, home and maxRetries by path', () => {
    const bad = { schemaVersion: '1.2', agents: { codex: { ...codex, baseUrl: 'ftp://x', apiKeyEnv: 'sk-not-a-name', maxRetries: -1, env: { A: 1 } } } };
    const paths = configError(() => parseRegistryConfig(bad, { onWarning: () => {} })).issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['agents.codex.baseUrl', 'agents.codex.apiKeyEnv', 'agents.codex.maxRetries', 'agents.codex.env.A']));
  });

  it('loadRegistryFile makes home and relative commands absolute (registry folder, ~)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-registry-paths-'));
    const path = join(dir, 'agents.json');
    writeFileSync(
      path,
      JSON.stringify({
        schemaVersion: '1.2',
        agents: {
          a: { ...codex, name: 'codex', command: './bin/codex', home: 'homes/codex' },
          b: { ...codex, name: 'codex', command: 'codex', home: '~/.codex-b' },
        },
      }),
    );
    const { config } = await loadRegistryFile(path);
    expect(config.agents.a).toMatchObject({ command: join(dir, 'bin', 'codex'), home: join(dir, 'homes', 'codex') });
    expect(config.agents.b).toMatchObject({ command: 'codex', home: join(homedir(), '.codex-b') });
  });
});

describe('seed 001 1.1 example (no "agents" wrapper, no version)', () => {
  const seedExample = {
    claude: { command: 'claude', args: ['--append-system-prompt', 'Always end with [DONE]. Keep responses concise.'] },
  };

  it('is read as schema 1.1, with the fallback warning', () => {
    const warnings: string[] = [];
    const parsed = parseRegistryConfig(seedExample, { onWarning: (warning) => warnings.push(warning) });
    expect(parsed.sourceVersion).toBe('1.1');
    expect(parsed.config.agents.claude).toMatchObject({ name: 'claude', baseArgs: [], legacySystemPrompt: 'Always end with [DONE]. Keep responses concise.' });
    expect(warnings[0]).toMatch(/schema 1\.1/);
  });

  it('migrates to the wrapped 1.2 form', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-registry-seed-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify(seedExample));
    const result = await migrateRegistry(path);
    expect(result).toMatchObject({ changed: true, fromVersion: '1.1' });
    const migrated = JSON.parse(readFileSync(path, 'utf8'));
    expect(migrated.schemaVersion).toBe('1.2');
    expect(Object.keys(migrated.agents)).toEqual(['claude']);
  });

  it('an object that is neither still fails with a clear message', () => {
    expect(() => parseRegistryConfig({ claude: 'claude' })).toThrow(/agents/);
  });
});

describe('createGenericAdapter and the new fields', () => {
  const generic: AgentDefinition = { name: 'mycli', command: 'mycli', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } };

  it('passes env and home to the process', async () => {
    const config = await createGenericAdapter({ ...generic, env: { MY_MODE: 'fast' }, home: '/tmp/mycli-home' }).getProcessConfig({ env: { EXTRA: '1' } });
    expect(config.env).toEqual({ MY_MODE: 'fast', HOME: '/tmp/mycli-home', EXTRA: '1' });
  });

  it('refuses the fields it cannot map to an unknown CLI', () => {
    const error = configError(() => createGenericAdapter({ ...generic, model: 'm', baseUrl: 'http://127.0.0.1:1', usePty: true }));
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['model', 'baseUrl', 'usePty']);
    expect(error.message).toContain('put the flag in baseArgs or the variable in env');
  });
});
