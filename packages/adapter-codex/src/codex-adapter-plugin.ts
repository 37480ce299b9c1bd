import { join } from 'node:path';
import { ConfigError } from '@troupe/core';
import {
  defaultAdapterRegistry,
  readRegistryAgentSettings,
  withCompletionStrategy,
  type AdapterRegistry,
  type AgentAdapterPlugin,
  type AgentCapabilities,
  type AgentDefinition,
  type RegistryAgentSettings,
} from '@troupe/core/cli-turn';
import { CODEX_ADAPTER_ID, CODEX_COMPLETION_TYPES, createCodexAdapter, type CodexAdapter } from './codex-adapter';
import type { CodexAdapterSettings } from './codex-adapter-settings';

/** Codex as a registry entry's capabilities (filled into a migrated 1.1 entry): no system-prompt flag; `turn.completed` / `turn.failed` end a turn. */
const CODEX_CAPABILITIES: AgentCapabilities = { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: [...CODEX_COMPLETION_TYPES] };

/** The Codex adapter plugin: `{ type: 'codex', displayName: 'Codex CLI', create(definition?) }`. */
export interface CodexAdapterPlugin extends AgentAdapterPlugin {
  readonly type: 'codex';
  create(definition?: AgentDefinition): CodexAdapter;
}

/**
 * Builds a Codex plugin whose adapters use `settings`; a registry entry
 * (`AgentDefinition`) given to `create` overrides every field it sets (see
 * {@link codexSettingsFromDefinition}), and its
 * `capabilities.completionDetection` (`idleTimeout`, `exit`) replaces the
 * `turn.completed` / `turn.failed` detection.
 *
 * @example
 * ```ts
 * registerAdapter(createCodexAdapterPlugin({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'sk-local' }));
 * ```
 */
export function createCodexAdapterPlugin(settings: CodexAdapterSettings = {}): CodexAdapterPlugin {
  // Validate once now, so a bad setting fails at registration rather than at the first turn.
  createCodexAdapter(settings);
  return {
    type: CODEX_ADAPTER_ID,
    displayName: 'Codex CLI',
    registryCapabilities: CODEX_CAPABILITIES,
    create(definition?: AgentDefinition): CodexAdapter {
      if (!definition) return createCodexAdapter(settings);
      const entry = readRegistryAgentSettings(definition, CODEX_FACTS);
      return withCompletionStrategy(createCodexAdapter(applyEntry(entry, settings, definition.name)), entry.completion);
    },
  };
}

const CODEX_FACTS = { adapterId: CODEX_ADAPTER_ID, completionTypes: CODEX_COMPLETION_TYPES, enforcesPolicy: true };

/**
 * Adapter settings from a registry 1.2 entry over `settings`: its `command`,
 * `baseArgs`, `model`, `baseUrl` (served through the adapter's own
 * `model_providers.troupe` entry, so Codex talks to that endpoint over plain
 * HTTP), the key in `apiKeyEnv`, `home` (`HOME`, with `CODEX_HOME` in its
 * `.codex`), `maxRetries` (both of the provider's retry loops), `env` and
 * `policy` (as `permissions.policy`, which routes turns through `codex app-server`).
 * The entry's completion detection is applied by the plugin.
 *
 * @throws ConfigError naming a field the adapter cannot honour (`usePty`, an unset `apiKeyEnv`…).
 */
export function codexSettingsFromDefinition(definition: AgentDefinition, settings: CodexAdapterSettings = {}): CodexAdapterSettings {
  return applyEntry(readRegistryAgentSettings(definition, CODEX_FACTS), settings, definition.name);
}

function applyEntry(entry: RegistryAgentSettings, settings: CodexAdapterSettings, name: string): CodexAdapterSettings {
  if (entry.policyFile !== undefined) {
    throw new ConfigError(`agent registry entry "${name}"`, [
      { path: ['policy'], message: 'a policy file is read when the registry is loaded from its file (loadRegistryFile); here give the policy object' },
    ]);
  }
  return {
    ...settings,
    command: entry.command,
    baseArgs: entry.baseArgs,
    ...(entry.model !== undefined ? { model: entry.model } : {}),
    ...(entry.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
    ...(entry.apiKey !== undefined ? { apiKey: entry.apiKey } : {}),
    ...(entry.home !== undefined ? { home: entry.home, codexHome: join(entry.home, '.codex') } : {}),
    ...(entry.maxRetries !== undefined ? { requestMaxRetries: entry.maxRetries, streamMaxRetries: entry.maxRetries } : {}),
    ...(entry.env !== undefined ? { env: { ...settings.env, ...entry.env } } : {}),
    // The entry's policy replaces the settings' one; the callback and hooks can only come from code.
    ...(entry.policy !== undefined ? { permissions: { ...settings.permissions, policy: entry.policy } } : {}),
  };
}

/** The Codex plugin with default settings. */
export const codexAdapterPlugin: CodexAdapterPlugin = createCodexAdapterPlugin();

/**
 * Registers the Codex adapter (default settings, or a plugin of your own
 * from {@link createCodexAdapterPlugin}) in a registry; returns the function
 * that unregisters it.
 *
 * @throws InvalidStateError when a `codex` adapter is already registered there.
 *
 * @example
 * ```ts
 * const unregister = registerCodexAdapter();
 * await manager.ensureAgentStarted('coder', 'codex');
 * unregister();
 * ```
 */
export function registerCodexAdapter(
  registry: AdapterRegistry = defaultAdapterRegistry,
  plugin: CodexAdapterPlugin = codexAdapterPlugin,
): () => void {
  return registry.register(plugin);
}
