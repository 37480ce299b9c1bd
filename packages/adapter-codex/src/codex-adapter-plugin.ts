import { defaultAdapterRegistry, type AdapterRegistry, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core';
import { CODEX_ADAPTER_ID, createCodexAdapter, type CodexAdapter } from './codex-adapter';
import type { CodexAdapterSettings } from './codex-adapter-settings';

/** The Codex adapter plugin: `{ type: 'codex', displayName: 'Codex CLI', create(definition?) }`. */
export interface CodexAdapterPlugin extends AgentAdapterPlugin {
  readonly type: 'codex';
  create(definition?: AgentDefinition): CodexAdapter;
}

/**
 * Builds a Codex plugin whose adapters use `settings`; a registry entry
 * (`AgentDefinition`) given to `create` overrides `command` and `baseArgs`.
 * Its `capabilities` are not read: the adapter knows Codex's completion
 * events and flags.
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
    create(definition?: AgentDefinition): CodexAdapter {
      if (!definition) return createCodexAdapter(settings);
      return createCodexAdapter({ ...settings, command: definition.command, baseArgs: [...definition.baseArgs] });
    },
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
