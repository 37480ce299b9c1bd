/*
 * Registry entries with "adapter": "acp": the entry names the ACP agent (command,
 * baseArgs, env, apiKeyEnv); settings an ACP agent cannot take are refused by name.
 */
import { ConfigError } from '@troupe/core';
import { type AgentDefinition } from '@troupe/core/cli-turn';
import { describe, expect, it } from 'vitest';
import { createAcpAdapterPlugin } from './index';

const caps = { supportsSystemPrompt: false, completionDetection: 'jsonl' as const, completionTypes: ['acp.prompt-result', 'acp.error'] };

function entry(fields: Partial<AgentDefinition> = {}): AgentDefinition {
  return { name: 'gemini-acp', adapter: 'acp', command: 'gemini', baseArgs: ['--acp', '-m', 'gemini-2.5-flash'], capabilities: caps, ...fields } as AgentDefinition;
}

describe('createAcpAdapterPlugin with registry entries', () => {
  it('drives the agent the entry names: its command, baseArgs as arguments, env and the apiKeyEnv variable', async () => {
    const plugin = createAcpAdapterPlugin({ canUseTool: 'allow', env: { FROM_SETTINGS: '1' } });
    expect(plugin.type).toBe('acp');
    process.env.TROUPE_TEST_ACP_KEY = 'acp-key-from-host';
    let adapter;
    try {
      adapter = plugin.create(entry({ env: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' }, apiKeyEnv: 'TROUPE_TEST_ACP_KEY' } as Partial<AgentDefinition>));
    } finally {
      delete process.env.TROUPE_TEST_ACP_KEY;
    }
    expect(adapter.settings).toMatchObject({ adapterId: 'acp', command: 'gemini', args: ['--acp', '-m', 'gemini-2.5-flash'], canUseTool: 'allow' });
    expect(adapter.settings.env).toEqual({ FROM_SETTINGS: '1', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9', TROUPE_TEST_ACP_KEY: 'acp-key-from-host' });
    expect(adapter.getCompletionStrategy()).toEqual({ type: 'jsonl', completionTypes: ['acp.prompt-result', 'acp.error'] });
    const config = await adapter.getProcessConfig({}, process.cwd());
    expect(config.env).toMatchObject({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
  });

  it('refuses, by name, what an ACP agent cannot take from the registry, and an unset apiKeyEnv', () => {
    const plugin = createAcpAdapterPlugin({});
    const error = (() => {
      try {
        plugin.create(
          entry({
            model: 'gemini-2.5-pro',
            baseUrl: 'http://127.0.0.1:9',
            home: '/tmp/h',
            maxRetries: 0,
            apiKeyEnv: 'TROUPE_TEST_NEVER_SET_KEY',
            capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--system', completionDetection: 'idleTimeout', idleTimeoutMs: 1000 },
          } as Partial<AgentDefinition>),
        );
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const messages = (error as ConfigError).issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toEqual([
      'model: an ACP agent (adapter "acp") cannot take model from the registry; set it with the agent\'s own flag in baseArgs (e.g. ["--acp", "-m", "gemini-2.5-flash"])',
      'baseUrl: an ACP agent (adapter "acp") cannot take baseUrl from the registry; set it with the agent\'s own variable in env (e.g. GOOGLE_GEMINI_BASE_URL or ANTHROPIC_BASE_URL)',
      'home: an ACP agent (adapter "acp") cannot take home from the registry; set it with env.HOME (or the agent\'s own settings variable)',
      'maxRetries: an ACP agent (adapter "acp") cannot take maxRetries from the registry; set it with the agent\'s own setting (its settings file or env)',
      'capabilities.supportsSystemPrompt: ACP has no system prompt flag: the adapter puts the system prompt in the message; set it to false',
      'capabilities.completionDetection: an ACP agent\'s turn ends with its prompt response: use "jsonl" with completionTypes ["acp.prompt-result","acp.error"]',
      'apiKeyEnv: the environment variable TROUPE_TEST_NEVER_SET_KEY is not set (export it with the API key, or remove apiKeyEnv)',
    ]);
    expect(() => plugin.create(entry({ capabilities: { ...caps, completionTypes: ['result'] } }))).toThrow(/acp never prints "result"/);
  });

  it('without an entry, uses settings.command, and says what to add when there is none', () => {
    expect(createAcpAdapterPlugin({ command: 'claude-code-acp' }).create().settings.command).toBe('claude-code-acp');
    expect(() => createAcpAdapterPlugin({}).create()).toThrow(/add an entry with "adapter": "acp" and its "command"/);
  });
});

describe('an ACP registry entry with a policy', () => {
  it('governs the agent through the shared contract; refused with the ACP-only callback, malformed or as an unread file', () => {
    const canUseTool = () => true;
    const adapter = createAcpAdapterPlugin({ permissions: { canUseTool } }).create(entry({ policy: { deny: ['kind:execute'] } } as Partial<AgentDefinition>));
    expect(adapter.settings.permissions?.canUseTool).toBe(canUseTool);
    expect(adapter.settings.permissions?.policy).toMatchObject({ policy: { deny: ['kind:execute'] } });
    const refused = (settings: Parameters<typeof createAcpAdapterPlugin>[0], policy: unknown) => {
      try {
        createAcpAdapterPlugin(settings).create(entry({ policy } as Partial<AgentDefinition>));
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error('expected a ConfigError');
    };
    expect(refused({ canUseTool: 'allow' }, { deny: ['kind:execute'] })).toMatch(/policy: a policy needs the shared permission contract/);
    expect(refused({ permissions: {} }, { deny: ['kind:exec'] })).toMatch(/policy\.deny\[0\]: "kind:exec" names the unknown kind/);
    expect(refused({ permissions: {} }, 'policy.json')).toMatch(/policy: a policy file is read when the registry is loaded/);
  });
});
