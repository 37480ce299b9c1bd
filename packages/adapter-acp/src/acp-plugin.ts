import { ConfigError } from '@troupe/core';
import {
  defaultAdapterRegistry,
  withCompletionStrategy,
  type AdapterRegistry,
  type AgentAdapterPlugin,
  type AgentDefinition,
} from '@troupe/core/cli-turn';
import { createAcpAdapter, type AcpAdapter } from './acp-adapter';
import { resolveAcpAdapterSettings, type AcpAdapterSettings } from './acp-adapter-settings';
import { readAcpRegistryEntry } from './acp-registry-entry';

/** Settings of {@link createAcpAdapterPlugin}: the command may come from each registry entry instead. */
export type AcpAdapterPluginSettings = Omit<AcpAdapterSettings, 'command'> & { command?: string };

/**
 * A plugin building ACP adapters with the given settings (type: the
 * settings' `adapterId`, default `acp`). A registry entry given to `create`
 * supplies the agent: its `command`, `baseArgs` (e.g. `{ "command": "gemini",
 * "baseArgs": ["--acp"] }`), `env` and `apiKeyEnv` (see
 * {@link readAcpRegistryEntry}); without an entry, `settings.command` is the agent.
 *
 * @throws ConfigError for invalid settings (at once, not on first use), and
 * from `create` for a registry entry's refused fields or when no command is known.
 *
 * @example
 * ```ts
 * registerAdapter(createAcpAdapterPlugin({ adapterId: 'claude-acp', command: 'claude-code-acp', canUseTool: 'ask' }));
 * ```
 */
export function createAcpAdapterPlugin(settings: AcpAdapterPluginSettings): Omit<AgentAdapterPlugin, 'create'> & { create(definition?: AgentDefinition): AcpAdapter } {
  // Validated now (a placeholder command when the entries will give it).
  const { adapterId } = resolveAcpAdapterSettings({ ...settings, command: settings.command ?? 'acp-agent' });
  return {
    type: adapterId,
    displayName: settings.command !== undefined ? `ACP agent (${settings.command})` : 'ACP agent (command from the registry entry)',
    create(definition?: AgentDefinition): AcpAdapter {
      if (definition) {
        const entry = readAcpRegistryEntry(definition, settings);
        return withCompletionStrategy(createAcpAdapter(entry.settings), entry.completion);
      }
      const { command } = settings;
      if (command === undefined) {
        throw new ConfigError(`${adapterId} adapter`, [
          { path: ['command'], message: `the ${adapterId} adapter drives the ACP agent a registry entry names: add an entry with "adapter": "${adapterId}" and its "command"` },
        ]);
      }
      return createAcpAdapter({ ...settings, command });
    },
  };
}

/**
 * Registers an ACP adapter type (in the process-wide registry unless another
 * is given). Returns a function that unregisters it.
 *
 * @throws InvalidStateError when the type is already registered; ConfigError for invalid settings.
 */
export function registerAcpAdapter(registry: AdapterRegistry = defaultAdapterRegistry, settings: AcpAdapterSettings): () => void {
  return registry.register(createAcpAdapterPlugin(settings));
}
