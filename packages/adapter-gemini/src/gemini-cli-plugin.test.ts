import { AdapterRegistry, defaultAdapterRegistry, InvalidStateError, agentDefinitionSchema } from '@troupe/core';
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
