import { defaultAdapterRegistry, type AdapterRegistry, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core/cli-turn';
import { createGeminiAcpAdapter, type GeminiAcpAdapter, type GeminiAcpOptions } from './gemini-acp-adapter';
import { geminiCliSettingsFromDefinition } from './gemini-cli-plugin';
import type { GeminiCliSettings } from './gemini-cli-settings';

/**
 * A plugin building Gemini ACP adapters (type `gemini-acp`) with the given
 * settings; a registry entry, when given to `create`, supplies the command,
 * the model and extra arguments, as for the `gemini` type.
 *
 * @example
 * ```ts
 * registerAdapter(createGeminiAcpAdapterPlugin({ apiKey: process.env.GEMINI_API_KEY, permissionMode: 'auto-edit' }));
 * ```
 */
export function createGeminiAcpAdapterPlugin(
  settings: GeminiCliSettings = {},
  options: GeminiAcpOptions = {},
): AgentAdapterPlugin & { create(definition?: AgentDefinition): GeminiAcpAdapter } {
  return {
    type: 'gemini-acp',
    displayName: 'Gemini CLI (ACP)',
    create(definition?: AgentDefinition): GeminiAcpAdapter {
      if (!definition) return createGeminiAcpAdapter(settings, options);
      const fromDefinition = geminiCliSettingsFromDefinition(definition);
      return createGeminiAcpAdapter({
        ...settings,
        command: fromDefinition.command ?? settings.command,
        ...(settings.model === undefined && fromDefinition.model ? { model: fromDefinition.model } : {}),
        extraArgs: [...(fromDefinition.extraArgs ?? []).filter((arg) => arg !== '--acp' && arg !== '--experimental-acp'), ...(settings.extraArgs ?? [])],
      }, options);
    },
  };
}

/** The Gemini ACP adapter type (`gemini-acp`) with default settings. */
export const geminiAcpAdapterPlugin = createGeminiAcpAdapterPlugin();

/**
 * Registers the `gemini-acp` adapter type (in the process-wide registry
 * unless another is given). Returns a function that unregisters it.
 *
 * @throws InvalidStateError when a `gemini-acp` type is already registered.
 */
export function registerGeminiAcpAdapter(registry: AdapterRegistry = defaultAdapterRegistry, settings?: GeminiCliSettings): () => void {
  return registry.register(settings ? createGeminiAcpAdapterPlugin(settings) : geminiAcpAdapterPlugin);
}
