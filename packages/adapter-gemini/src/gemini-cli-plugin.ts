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
} from '@troupe/core/cli-turn';
import { createGeminiCliAdapter, type GeminiCliAdapter } from './gemini-cli-adapter';
import { GEMINI_CLI_RESULT_TYPE } from './gemini-cli-events';
import type { GeminiCliSettings } from './gemini-cli-settings';

/** Gemini CLI as a registry entry's capabilities (filled into a migrated 1.1 entry): no system-prompt flag; its `result` line ends a turn. */
const GEMINI_CLI_CAPABILITIES: AgentCapabilities = { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: [GEMINI_CLI_RESULT_TYPE] };

/** Flags the adapter always sets itself; dropped from a registry entry's `baseArgs`. */
const OWN_FLAGS_WITH_VALUE = new Set(['-o', '--output-format']);
const OWN_FLAGS = new Set(['-p', '--prompt', '--skip-trust']);
const MODEL_FLAGS = new Set(['-m', '--model']);
/** What the adapter knows of Gemini CLI: a turn ends with its `result` line; its BeforeTool hook enforces a policy. */
const GEMINI_CLI_FACTS = { adapterId: 'gemini', completionTypes: [GEMINI_CLI_RESULT_TYPE], enforcesPolicy: true } as const;

/**
 * Settings from a registry 1.2 entry: its `command`, a `-m`/`--model` in its
 * `baseArgs` as the model, and the rest of `baseArgs` as `extraArgs`
 * (without `-o stream-json`, `-p` and `--skip-trust`, which the adapter sets);
 * then `model` (over `-m`), `baseUrl`, the key in `apiKeyEnv`, `home`, `env`,
 * `maxRetries` (`general.maxAttempts` = retries + 1, written to the
 * prepared home) and `policy` (an object as `permissions.policy` over
 * `settings.permissions`, whose callback and hooks it keeps; a path as
 * `policyFile`, read when each turn starts), when set.
 *
 * @throws ConfigError naming a field the adapter cannot honour (`usePty`, an
 * unset `apiKeyEnv`, more than 9 retries…).
 */
export function geminiCliSettingsFromDefinition(definition: AgentDefinition, settings: GeminiCliSettings = {}): GeminiCliSettings {
  const entry = readRegistryAgentSettings(definition, GEMINI_CLI_FACTS);
  if (entry.maxRetries !== undefined && entry.maxRetries > 9) {
    throw new ConfigError(`agent registry entry "${definition.name}"`, [
      { path: ['maxRetries'], message: `Gemini CLI makes at most 10 attempts per request (general.maxAttempts), so at most 9 retries; got ${entry.maxRetries}` },
    ]);
  }
  const fromArgs = settingsFromBaseArgs(definition);
  const model = entry.model ?? fromArgs.model;
  return {
    command: entry.command,
    ...(model ? { model } : {}),
    ...(fromArgs.extraArgs.length > 0 ? { extraArgs: fromArgs.extraArgs } : {}),
    ...(entry.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
    ...(entry.apiKey !== undefined ? { apiKey: entry.apiKey } : {}),
    ...(entry.home !== undefined ? { home: entry.home } : {}),
    ...(entry.env !== undefined ? { env: entry.env } : {}),
    ...(entry.maxRetries !== undefined ? { maxAttempts: entry.maxRetries + 1, prepareHome: true } : {}),
    ...registryPolicySettings(entry, settings.permissions),
  };
}


function settingsFromBaseArgs(definition: AgentDefinition): { model: string | undefined; extraArgs: string[] } {
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
  return { model, extraArgs };
}

/**
 * A plugin building Gemini CLI adapters with the given settings; a registry
 * entry, when given to `create`, supplies the command, extra arguments and
 * every other field it sets (see {@link geminiCliSettingsFromDefinition}), and
 * its `capabilities.completionDetection` (`idleTimeout`, `exit`) replaces the
 * `result`-line detection.
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
    registryCapabilities: GEMINI_CLI_CAPABILITIES,
    create(definition?: AgentDefinition): GeminiCliAdapter {
      if (!definition) return createGeminiCliAdapter(settings);
      const { model, extraArgs, env, ...fromDefinition } = geminiCliSettingsFromDefinition(definition, settings);
      const adapter = createGeminiCliAdapter({
        ...settings,
        ...fromDefinition,
        // A model in the entry's own field wins; one in its baseArgs yields to the plugin's.
        ...(definition.model !== undefined || (settings.model === undefined && model) ? { model } : {}),
        extraArgs: [...(extraArgs ?? []), ...(settings.extraArgs ?? [])],
        ...(env !== undefined ? { env: { ...settings.env, ...env } } : {}),
      });
      return withCompletionStrategy(adapter, readRegistryAgentSettings(definition, GEMINI_CLI_FACTS).completion);
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
