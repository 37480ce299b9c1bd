import { defaultAdapterRegistry, type AdapterRegistry, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core';
import { createAcpAdapter, type AcpAdapter } from './acp-adapter';
import { resolveAcpAdapterSettings, type AcpAdapterSettings } from './acp-adapter-settings';

/**
 * A plugin building ACP adapters with the given settings (type: the
 * settings' `adapterId`, default `acp`). A registry entry given to `create`
 * supplies the command and its base arguments (e.g. `{ "command": "gemini",
 * "baseArgs": ["--acp"] }`).
 *
 * @throws ConfigError for invalid settings (at once, not on first use).
 *
 * @example
 * ```ts
 * registerAdapter(createAcpAdapterPlugin({ adapterId: 'claude-acp', command: 'claude-code-acp', canUseTool: 'ask' }));
 * ```
 */
export function createAcpAdapterPlugin(settings: AcpAdapterSettings): AgentAdapterPlugin & { create(definition?: AgentDefinition): AcpAdapter } {
  const { adapterId } = resolveAcpAdapterSettings(settings);
  return {
    type: adapterId,
    displayName: `ACP agent (${settings.command})`,
    create(definition?: AgentDefinition): AcpAdapter {
      if (!definition) return createAcpAdapter(settings);
      return createAcpAdapter({ ...settings, command: definition.command, args: [...definition.baseArgs] });
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
