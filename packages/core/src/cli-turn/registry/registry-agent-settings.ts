import type { AgentAdapterV1 } from '../../adapter/v1/agent-adapter-v1';
import { ConfigError, type ConfigIssue } from '../../errors/config-error';
import type { CompletionStrategy } from '../../adapter/v1/completion-strategy';
import type { AgentDefinition } from './registry-schema';

/** What an adapter knows about its CLI, to check a registry entry against. */
export interface RegistryAdapterFacts {
  /** Adapter id, named in messages (`codex`). */
  adapterId: string;
  /** The event types that end a turn of this CLI, as recorded (`['turn.completed', 'turn.failed']`). */
  completionTypes: readonly string[];
  /** Where the entry's `apiKeyEnv` variable is read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A registry entry's settings, in the terms every adapter maps to its own. */
export interface RegistryAgentSettings {
  command: string;
  baseArgs: string[];
  model: string | undefined;
  baseUrl: string | undefined;
  /** The value of the `apiKeyEnv` variable: a secret, to pass on and redact, never to print. */
  apiKey: string | undefined;
  env: Record<string, string> | undefined;
  home: string | undefined;
  maxRetries: number | undefined;
  /**
   * The entry's completion detection when it differs from the adapter's own
   * (`idleTimeout`, `exit`, or fewer completion types); `undefined` keeps the adapter's.
   */
  completion: CompletionStrategy | undefined;
}

/**
 * Reads a registry 1.2 entry for an adapter, so no setting is ignored: each
 * field is either returned for the adapter to apply, or refused with a
 * {@link ConfigError} naming it.
 *
 * - `capabilities.completionDetection`: `jsonl` with the CLI's own event types
 *   keeps the adapter's strategy; `jsonl` with a subset, `idleTimeout`
 *   (`idleTimeoutMs`, the turn ends after that long without output) and `exit`
 *   are returned as `completion`; an event type the CLI never prints is refused
 *   (the turn would never end).
 * - `apiKeyEnv` is read from the environment (the entry's `env` first); a
 *   variable that is not set is refused.
 * - `usePty: true` is refused: adapters read the CLI's output through pipes.
 *
 * @throws ConfigError naming every refused field (`agents.codex.capabilities.completionTypes: …`).
 *
 * @example
 * ```ts
 * const settings = readRegistryAgentSettings(definition, { adapterId: 'codex', completionTypes: ['turn.completed', 'turn.failed'] });
 * const adapter = withCompletionStrategy(createCodexAdapter({ command: settings.command, model: settings.model }), settings.completion);
 * ```
 */
export function readRegistryAgentSettings(definition: AgentDefinition, facts: RegistryAdapterFacts): RegistryAgentSettings {
  const issues: ConfigIssue[] = [];
  if (definition.usePty === true) {
    issues.push({ path: ['usePty'], message: `pseudo-terminals are not supported: the ${facts.adapterId} adapter reads the CLI's output through pipes; remove usePty or set it to false` });
  }
  const completion = completionOf(definition, facts, issues);
  let apiKey: string | undefined;
  if (definition.apiKeyEnv !== undefined) {
    const env = { ...(facts.env ?? process.env), ...definition.env };
    apiKey = env[definition.apiKeyEnv] || undefined;
    if (apiKey === undefined) {
      issues.push({ path: ['apiKeyEnv'], message: `the environment variable ${definition.apiKeyEnv} is not set (export it with the API key, or remove apiKeyEnv)` });
    }
  }
  if (issues.length > 0) throw new ConfigError(`agent registry entry "${definition.name}"`, issues);
  return {
    command: definition.command,
    baseArgs: [...definition.baseArgs],
    model: definition.model,
    baseUrl: definition.baseUrl,
    apiKey,
    env: definition.env ? { ...definition.env } : undefined,
    home: definition.home,
    maxRetries: definition.maxRetries,
    completion,
  };
}

function completionOf(definition: AgentDefinition, facts: RegistryAdapterFacts, issues: ConfigIssue[]): CompletionStrategy | undefined {
  const capabilities = definition.capabilities;
  switch (capabilities.completionDetection) {
    case 'idleTimeout':
      return { type: 'idleTimeout', timeoutMs: capabilities.idleTimeoutMs ?? 2000 };
    case 'exit':
      return { type: 'exit' };
    case 'jsonl': {
      const types = capabilities.completionTypes ?? facts.completionTypes;
      const unknown = types.filter((type) => !facts.completionTypes.includes(type));
      if (unknown.length > 0) {
        issues.push({
          path: ['capabilities', 'completionTypes'],
          message:
            `${facts.adapterId} never prints ${unknown.map((type) => JSON.stringify(type)).join(', ')}, so its turns would never end; ` +
            `it ends a turn with ${facts.completionTypes.map((type) => JSON.stringify(type)).join(' or ')}`,
        });
        return undefined;
      }
      const same = facts.completionTypes.every((type) => types.includes(type));
      return same ? undefined : { type: 'jsonl', completionTypes: [...types] };
    }
  }
}

/**
 * The adapter with another completion strategy (a registry entry's), or the
 * adapter itself when `strategy` is undefined. Everything else, methods of
 * class-based adapters included, is inherited from `adapter`.
 */
export function withCompletionStrategy<T extends AgentAdapterV1>(adapter: T, strategy: CompletionStrategy | undefined): T {
  if (strategy === undefined) return adapter;
  const frozen = Object.freeze({ ...strategy });
  return Object.create(adapter, { getCompletionStrategy: { value: () => frozen, enumerable: true } }) as T;
}
