import { AdapterRegistry, ConfigError, defaultAdapterRegistry, InvalidStateError, type AgentDefinition } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { codexAdapterPlugin, createCodexAdapterPlugin, registerCodexAdapter } from './codex-adapter-plugin';

const definition: AgentDefinition = {
  name: 'codex',
  command: '/opt/codex/bin/codex',
  baseArgs: ['exec', '--json', '--skip-git-repo-check', '--ephemeral'],
  capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
};

describe('codexAdapterPlugin', () => {
  it('is the codex type, named Codex CLI', () => {
    expect(codexAdapterPlugin.type).toBe('codex');
    expect(codexAdapterPlugin.displayName).toBe('Codex CLI');
    expect(codexAdapterPlugin.create().adapterId).toBe('codex');
  });

  it('takes command and baseArgs from a registry entry', async () => {
    const config = await codexAdapterPlugin.create(definition).getProcessConfig({}, '/tmp');
    expect(config.command).toBe('/opt/codex/bin/codex');
    expect(config.args?.slice(0, 4)).toEqual(['exec', '--json', '--skip-git-repo-check', '--ephemeral']);
    expect((await codexAdapterPlugin.create().getProcessConfig({}, '/tmp')).command).toBe('codex');
  });

  it('a registry entry whose baseArgs cannot work → ConfigError', () => {
    expect(() => codexAdapterPlugin.create({ ...definition, baseArgs: ['exec'] })).toThrow(ConfigError);
  });

  it('createCodexAdapterPlugin validates its settings at once', () => {
    expect(() => createCodexAdapterPlugin({ permissionMode: 'always' as never })).toThrow(ConfigError);
    const plugin = createCodexAdapterPlugin({ model: 'gpt-fake' });
    expect(plugin.create(definition)).toBeDefined();
  });

  it('builds through an AdapterRegistry, by type or registry entry', async () => {
    const registry = new AdapterRegistry();
    registerCodexAdapter(registry, createCodexAdapterPlugin({ model: 'gpt-fake' }));
    const byEntry = registry.create(definition);
    const args = (await byEntry.getProcessConfig({}, '/tmp')).args ?? [];
    expect(args[args.indexOf('-m') + 1]).toBe('gpt-fake');
    expect(registry.create('codex').adapterId).toBe('codex');
  });
});

describe('registerCodexAdapter', () => {
  it('registers and returns the unregister function', () => {
    const registry = new AdapterRegistry();
    const unregister = registerCodexAdapter(registry);
    expect(registry.types()).toEqual(['codex']);
    expect(() => registerCodexAdapter(registry)).toThrow(InvalidStateError);
    unregister();
    expect(registry.has('codex')).toBe(false);
  });

  it('uses the default registry by default', () => {
    const unregister = registerCodexAdapter();
    try {
      expect(defaultAdapterRegistry.get('codex')).toBe(codexAdapterPlugin);
    } finally {
      unregister();
    }
    expect(defaultAdapterRegistry.has('codex')).toBe(false);
  });
});
