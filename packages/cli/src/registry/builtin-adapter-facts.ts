import { claudeCodeAdapterPlugin } from '@troupe/adapter-claude';
import { codexAdapterPlugin } from '@troupe/adapter-codex';
import { geminiCliAdapterPlugin } from '@troupe/adapter-gemini';
import { AdapterRegistry } from '@troupe/core/cli-turn';

/**
 * The built-in CLI adapters, for what they know of their CLIs: reading or
 * migrating a 1.1 registry fills each entry's `capabilities` from its
 * adapter's `registryCapabilities` (the vendor facts live with the adapter).
 */
export function builtinAdapterFacts(): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const plugin of [claudeCodeAdapterPlugin, codexAdapterPlugin, geminiCliAdapterPlugin]) adapters.register(plugin);
  return adapters;
}
