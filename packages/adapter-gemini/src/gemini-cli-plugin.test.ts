import { AdapterRegistry, defaultAdapterRegistry, agentDefinitionSchema } from '@troupe/core/cli-turn';
import { InvalidStateError } from '@troupe/core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGeminiCliAdapterPlugin, geminiCliAdapterPlugin, geminiCliSettingsFromDefinition, registerGeminiCliAdapter } from './index';

describe('geminiCliAdapterPlugin', () => {
  it('is the `gemini` type, named Gemini CLI, and builds adapters with id gemini', async () => {
    expect(geminiCliAdapterPlugin.type).toBe('gemini');
    expect(geminiCliAdapterPlugin.displayName).toBe('Gemini CLI');
    const adapter = geminiCliAdapterPlugin.create();
    expect(adapter.adapterId).toBe('gemini');
    expect((await adapter.getProcessConfig({})).command).toBe('gemini');
  });

  it('from a registry entry: its command, its -m as the model, other baseArgs as extra args', async () => {
    const definition = agentDefinitionSchema.parse({
      name: 'gemini',
      command: '/usr/local/bin/gemini',
      baseArgs: ['-o', 'stream-json', '--model=gemini-2.5-pro', '--skip-trust', '--include-directories', '/lib', '-p'],
      capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] },
    });
    expect(geminiCliSettingsFromDefinition(definition)).toEqual({
      command: '/usr/local/bin/gemini',
      model: 'gemini-2.5-pro',
      extraArgs: ['--include-directories', '/lib'],
    });
    const adapter = createGeminiCliAdapterPlugin({ permissionMode: 'full-auto', extraArgs: ['--debug'] }).create(definition);
    const config = await adapter.getProcessConfig({});
    expect(config.command).toBe('/usr/local/bin/gemini');
    expect(config.args).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-pro', '--yolo', '--include-directories', '/lib', '--debug', '-p']);
  });
});

describe('registry fields', () => {
  const base = agentDefinitionSchema.parse({
    name: 'gemini',
    command: '/usr/local/bin/gemini',
    baseArgs: ['-m', 'gemini-2.5-pro'],
    capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] },
  });

  it('model (over -m), baseUrl, apiKeyEnv, home, env and maxRetries reach the process; the home is prepared', async () => {
    const home = mkdtempSync(join(tmpdir(), 'troupe-gemini-registry-'));
    process.env.TROUPE_TEST_GEMINI_KEY = 'gemini-registry-key';
    try {
      const adapter = geminiCliAdapterPlugin.create({
        ...base,
        model: 'gemini-2.5-flash-lite',
        baseUrl: 'http://127.0.0.1:4011',
        apiKeyEnv: 'TROUPE_TEST_GEMINI_KEY',
        home,
        env: { GEMINI_EXTRA: '1' },
        maxRetries: 0,
      });
      const config = await adapter.getProcessConfig({});
      expect(config.args?.slice(0, 5)).toEqual(['-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash-lite']);
      expect(config.env).toMatchObject({ HOME: home, GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4011', GEMINI_API_KEY: 'gemini-registry-key', GEMINI_EXTRA: '1' });
      expect(config.secrets).toEqual(['gemini-registry-key']);
      const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
      expect(settings.security.auth.selectedType).toBe('gemini-api-key');
      expect(settings.general.maxAttempts).toBe(1);
    } finally {
      delete process.env.TROUPE_TEST_GEMINI_KEY;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('idleTimeout is honoured; more than 9 retries and usePty are refused by name', () => {
    const idle = geminiCliAdapterPlugin.create({ ...base, capabilities: { supportsSystemPrompt: false, completionDetection: 'idleTimeout', idleTimeoutMs: 3000 } });
    expect(idle.getCompletionStrategy()).toEqual({ type: 'idleTimeout', timeoutMs: 3000 });
    expect(() => geminiCliAdapterPlugin.create({ ...base, maxRetries: 12 })).toThrow(/maxRetries: Gemini CLI makes at most 10 attempts/);
    expect(() => geminiCliAdapterPlugin.create({ ...base, usePty: true })).toThrow(/usePty: pseudo-terminals are not supported/);
  });
});

describe('registerGeminiCliAdapter', () => {
  it('registers into a given registry and returns an unregister function', () => {
    const registry = new AdapterRegistry();
    const unregister = registerGeminiCliAdapter(registry);
    expect(registry.types()).toEqual(['gemini']);
    expect(registry.create('gemini').adapterId).toBe('gemini');
    expect(() => registerGeminiCliAdapter(registry)).toThrow(InvalidStateError);
    unregister();
    expect(registry.has('gemini')).toBe(false);
  });

  it('defaults to the process-wide registry; settings make a custom plugin', async () => {
    const unregister = registerGeminiCliAdapter(undefined, { model: 'gemini-2.5-pro' });
    try {
      const adapter = defaultAdapterRegistry.create('gemini');
      expect((await adapter.getProcessConfig({})).args).toContain('gemini-2.5-pro');
    } finally {
      unregister();
    }
    expect(defaultAdapterRegistry.has('gemini')).toBe(false);
  });
});
