import { ConfigError } from '@troupe/core';
import {
  defaultAdapterRegistry,
  readRegistryAgentSettings,
  registryPolicySettings,
  withCompletionStrategy,
  type AdapterRegistry,
  type AgentAdapterPlugin,
  type AgentCapabilities,
  type AgentDefinition,
  type RegistryAgentSettings,
} from '@troupe/core/cli-turn';
import { createClaudeCodeAdapter, type ClaudeCodeAdapter } from './claude-code-adapter';
import { CLAUDE_CODE_RESULT_TYPE } from './claude-code-events';
import { resolveClaudeCodeSettings, type ClaudeCodeSettings } from './claude-code-settings';

/** Claude Code as a registry entry's capabilities (filled into a migrated 1.1 entry). */
const CLAUDE_CODE_CAPABILITIES: AgentCapabilities = {
  supportsSystemPrompt: true,
  systemPromptFlag: '--append-system-prompt',
  completionDetection: 'jsonl',
  completionTypes: [CLAUDE_CODE_RESULT_TYPE],
};

/** The Claude Code adapter plugin: `create()` builds a {@link ClaudeCodeAdapter}. */
export interface ClaudeCodeAdapterPlugin extends AgentAdapterPlugin {
  readonly type: 'claude';
  readonly displayName: 'Claude Code';
  create(definition?: AgentDefinition): ClaudeCodeAdapter;
}

/**
 * A plugin that builds Claude Code adapters with the given settings. When the
 * registry gives an {@link AgentDefinition}, every field it sets overrides the
 * settings (see {@link claudeCodeSettingsFromDefinition}), and its
 * `capabilities.completionDetection` (`idleTimeout`, `exit`) replaces the
 * `result`-line detection.
 *
 * @throws ConfigError for invalid settings (at once, not on first use).
 *
 * @example
 * ```ts
 * registry.register(createClaudeCodeAdapterPlugin({ baseUrl: 'http://127.0.0.1:8080', maxRetries: 0 }));
 * ```
 */
export function createClaudeCodeAdapterPlugin(settings: ClaudeCodeSettings = {}): ClaudeCodeAdapterPlugin {
  resolveClaudeCodeSettings(settings); // fail fast on bad settings
  return {
    type: 'claude',
    displayName: 'Claude Code',
    registryCapabilities: CLAUDE_CODE_CAPABILITIES,
    create(definition?: AgentDefinition): ClaudeCodeAdapter {
      if (!definition) return createClaudeCodeAdapter(settings);
      const entry = readRegistryAgentSettings(definition, CLAUDE_CODE_FACTS);
      return withCompletionStrategy(createClaudeCodeAdapter(applyEntry(entry, definition, settings)), entry.completion);
    },
  };
}

/** The Claude Code plugin with default settings (`type: 'claude'`). */
export const claudeCodeAdapterPlugin: ClaudeCodeAdapterPlugin = createClaudeCodeAdapterPlugin();

/**
 * Registers the Claude Code adapter under `claude`, so `AgentManager` finds
 * it by that name. Returns the function that unregisters it.
 *
 * @throws InvalidStateError when `claude` is already registered in `registry`.
 * @throws ConfigError for invalid settings.
 *
 * @example
 * ```ts
 * import { AgentManager } from '@troupe/core/cli-turn';
 * import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
 *
 * const unregister = registerClaudeCodeAdapter();
 * const manager = new AgentManager();
 * await manager.ensureAgentStarted('max', 'claude', { systemInstruction: 'You are Max, a tech lead.' });
 * console.log(await manager.sendAndReceive('max', 'Review src/index.ts'));
 * await manager.cleanup();
 * unregister();
 * ```
 */
export function registerClaudeCodeAdapter(
  registry: AdapterRegistry = defaultAdapterRegistry,
  settings?: ClaudeCodeSettings,
): () => void {
  return registry.register(settings === undefined ? claudeCodeAdapterPlugin : createClaudeCodeAdapterPlugin(settings));
}

/** The completion event Claude Code prints (its `result` line), to check registry entries against. */
const CLAUDE_CODE_FACTS = { adapterId: 'claude', completionTypes: [CLAUDE_CODE_RESULT_TYPE], enforcesPolicy: true } as const;

/**
 * Adapter settings from a registry 1.2 entry over `settings`: its `command`,
 * `baseArgs`, `capabilities.systemPromptFlag`, `model`, `baseUrl`, the key in
 * `apiKeyEnv`, `home`, `maxRetries` (`CLAUDE_CODE_MAX_RETRIES`), `env` and `policy` (an object, or a policy file path).
 * The entry's completion detection is applied by the plugin.
 *
 * @throws ConfigError naming a field the adapter cannot honour (`usePty`, an unset `apiKeyEnv`…).
 */
export function claudeCodeSettingsFromDefinition(definition: AgentDefinition, settings: ClaudeCodeSettings = {}): ClaudeCodeSettings {
  return applyEntry(readRegistryAgentSettings(definition, CLAUDE_CODE_FACTS), definition, settings);
}

function applyEntry(entry: RegistryAgentSettings, definition: AgentDefinition, settings: ClaudeCodeSettings): ClaudeCodeSettings {
  return {
    ...settings,
    command: entry.command,
    baseArgs: entry.baseArgs,
    ...systemPromptModeOf(definition),
    ...(entry.model !== undefined ? { model: entry.model } : {}),
    ...(entry.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
    ...(entry.apiKey !== undefined ? { apiKey: entry.apiKey } : {}),
    ...(entry.home !== undefined ? { home: entry.home } : {}),
    ...(entry.maxRetries !== undefined ? { maxRetries: entry.maxRetries } : {}),
    ...(entry.env !== undefined ? { env: { ...settings.env, ...entry.env } } : {}),
    ...registryPolicySettings(entry, settings.permissions),
  };
}


function systemPromptModeOf(definition: AgentDefinition): Pick<ClaudeCodeSettings, 'systemPromptMode'> {
  const flag = definition.capabilities?.systemPromptFlag;
  if (flag === undefined) return {};
  if (flag === '--append-system-prompt') return { systemPromptMode: 'append' };
  if (flag === '--system-prompt') return { systemPromptMode: 'replace' };
  throw new ConfigError(`agent registry entry "${definition.name}"`, [
    {
      path: ['capabilities', 'systemPromptFlag'],
      message: `Claude Code takes --append-system-prompt or --system-prompt, got ${JSON.stringify(flag)}`,
    },
  ]);
}
