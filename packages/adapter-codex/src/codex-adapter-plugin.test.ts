import { AdapterRegistry, defaultAdapterRegistry, type AgentDefinition } from '@troupe/core/cli-turn';
import { ConfigError, InvalidStateError } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { codexAdapterPlugin, codexSettingsFromDefinition, createCodexAdapterPlugin, registerCodexAdapter } from './codex-adapter-plugin';

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

  it('every registry field reaches the command line: model, baseUrl (model_providers), apiKeyEnv, home, maxRetries, env', async () => {
    process.env.TROUPE_TEST_CODEX_KEY = 'sk-registry-test';
    try {
      const adapter = codexAdapterPlugin.create({
        ...definition,
        model: 'gpt-5.5-mini',
        baseUrl: 'http://127.0.0.1:4010/v1',
        apiKeyEnv: 'TROUPE_TEST_CODEX_KEY',
        home: '/tmp/troupe-codex-home-test',
        maxRetries: 0,
        env: { CODEX_EXTRA: '1' },
      });
      const config = await adapter.getProcessConfig({}, '/tmp');
      const args = config.args ?? [];
      expect(args[args.indexOf('-m') + 1]).toBe('gpt-5.5-mini');
      expect(args).toContain('model_provider=troupe');
      expect(args).toContain('model_providers.troupe={name="troupe",base_url="http://127.0.0.1:4010/v1",env_key="TROUPE_CODEX_API_KEY",wire_api="responses"}');
      expect(args).toContain('model_providers.troupe.request_max_retries=0');
      expect(args).toContain('model_providers.troupe.stream_max_retries=0');
      expect(config.env).toMatchObject({
        TROUPE_CODEX_API_KEY: 'sk-registry-test',
        HOME: '/tmp/troupe-codex-home-test',
        CODEX_HOME: '/tmp/troupe-codex-home-test/.codex',
        CODEX_EXTRA: '1',
      });
      expect(config.secrets).toEqual(['sk-registry-test']);
      expect(adapter.getCompletionStrategy()).toEqual({ type: 'turn-end' });
    } finally {
      delete process.env.TROUPE_TEST_CODEX_KEY;
    }
  });

  it('completionDetection idleTimeout is honoured; a completion event Codex never prints is refused', () => {
    const idle = codexAdapterPlugin.create({ ...definition, capabilities: { supportsSystemPrompt: false, completionDetection: 'idleTimeout', idleTimeoutMs: 2000 } });
    expect(idle.getCompletionStrategy()).toEqual({ type: 'idleTimeout', timeoutMs: 2000 });
    expect(() => codexAdapterPlugin.create({ ...definition, capabilities: { ...definition.capabilities, completionTypes: ['result'] } })).toThrow(
      /capabilities\.completionTypes: codex never prints "result"/,
    );
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

describe('codex registry entry policy', () => {
  it("an entry's policy governs the adapter (permissions.policy, app-server); a malformed one or an unread file is refused", () => {
    const canUseTool = () => true;
    const settings = codexSettingsFromDefinition({ ...definition, policy: { deny: ['kind:fetch'] } }, { permissions: { canUseTool, policy: { allow: ['kind:execute'] } } });
    const permissions = settings.permissions!;
    expect(permissions.canUseTool).toBe(canUseTool);
    expect(permissions.policy).toMatchObject({ policy: { deny: ['kind:fetch'] } });
    expect(() => createCodexAdapterPlugin().create({ ...definition, policy: { deny: ['Bash(rm *'] } })).toThrow(/policy\.deny\[0\]: "Bash\(rm \*" is not a rule/);
    expect(() => createCodexAdapterPlugin().create({ ...definition, policy: 'policy.json' })).toThrow(/policy: a policy file is read when the registry is loaded/);
  });
});
