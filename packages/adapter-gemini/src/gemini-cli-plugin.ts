import { defaultAdapterRegistry, type AdapterRegistry, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core';
import { createGeminiCliAdapter, type GeminiCliAdapter } from './gemini-cli-adapter';
import type { GeminiCliSettings } from './gemini-cli-settings';

/** Flags the adapter always sets itself; dropped from a registry entry's `baseArgs`. */
const OWN_FLAGS_WITH_VALUE = new Set(['-o', '--output-format']);
const OWN_FLAGS = new Set(['-p', '--prompt', '--skip-trust']);
const MODEL_FLAGS = new Set(['-m', '--model']);

/**
 * Settings from a registry 1.2 entry: its `command`, a `-m`/`--model` in its
 * `baseArgs` as the model, and the rest of `baseArgs` as `extraArgs`
 * (without `-o stream-json`, `-p` and `--skip-trust`, which the adapter sets).
 */
export function geminiCliSettingsFromDefinition(definition: AgentDefinition): GeminiCliSettings {
  const extraArgs: string[] = [];
  let model: string | undefined;
  const args = definition.baseArgs ?? [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (OWN_FLAGS.has(flag)) continue;
    if (OWN_FLAGS_WITH_VALUE.has(flag)) {
      if (inline === undefined) i++;
      continue;
    }
    if (MODEL_FLAGS.has(flag)) {
      model = inline ?? args[++i];
      continue;
    }
    extraArgs.push(arg);
  }
  return {
    command: definition.command,
    ...(model ? { model } : {}),
    ...(extraArgs.length > 0 ? { extraArgs } : {}),
  };
}

/**
 * A plugin building Gemini CLI adapters with the given settings; a registry
 * entry, when given to `create`, supplies the command and extra arguments.
 *
 * @example
 * ```ts
 * registerAdapter(createGeminiCliAdapterPlugin({ apiKey: process.env.GEMINI_API_KEY, permissionMode: 'full-auto' }));
 * ```
 */
export function createGeminiCliAdapterPlugin(settings: GeminiCliSettings = {}): AgentAdapterPlugin & { create(definition?: AgentDefinition): GeminiCliAdapter } {
  return {
    type: 'gemini',
    displayName: 'Gemini CLI',
    create(definition?: AgentDefinition): GeminiCliAdapter {
      if (!definition) return createGeminiCliAdapter(settings);
      const fromDefinition = geminiCliSettingsFromDefinition(definition);
      return createGeminiCliAdapter({
        ...settings,
        command: fromDefinition.command ?? settings.command,
        ...(settings.model === undefined && fromDefinition.model ? { model: fromDefinition.model } : {}),
        extraArgs: [...(fromDefinition.extraArgs ?? []), ...(settings.extraArgs ?? [])],
      });
    },
  };
}

/** The Gemini CLI adapter type (`gemini`) with default settings, for an {@link AdapterRegistry}. */
export const geminiCliAdapterPlugin = createGeminiCliAdapterPlugin();

/**
 * Registers the `gemini` adapter type (in the process-wide registry unless
 * another is given). Returns a function that unregisters it.
 *
 * @throws InvalidStateError when a `gemini` type is already registered.
 *
 * @example
 * ```ts
 * const unregister = registerGeminiCliAdapter();
 * await manager.ensureAgentStarted('coder', 'gemini', { workDir: '/repo' });
 * unregister();
 * ```
 */
export function registerGeminiCliAdapter(registry: AdapterRegistry = defaultAdapterRegistry, settings?: GeminiCliSettings): () => void {
  return registry.register(settings ? createGeminiCliAdapterPlugin(settings) : geminiCliAdapterPlugin);
}
