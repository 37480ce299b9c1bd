import type { AgentAdapterV1 } from '../../adapter/v1/agent-adapter-v1';
import { ConfigError, type ConfigIssue } from '../../errors/config-error';
import type { CompletionStrategy } from '../../adapter/v1/completion-strategy';
import { compileToolPolicy, type CompiledToolPolicy } from '../../permissions/tool-policy';
import type { ToolPermissionOptions } from '../../permissions/decide-tool-use';
import type { AgentDefinition } from './registry-schema';

/** What an adapter knows about its CLI, to check a registry entry against. */
export interface RegistryAdapterFacts {
  /** Adapter id, named in messages (`codex`). */
  adapterId: string;
  /** The event types that end a turn of this CLI, as recorded (`['turn.completed', 'turn.failed']`). */
  completionTypes: readonly string[];
  /** Where the entry's `apiKeyEnv` variable is read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The adapter decides its CLI's tool calls through the permission contract, so it can take the entry's `policy`.
   * Without it an entry with a policy is refused: a policy nothing enforces would let every call through.
   */
  enforcesPolicy?: boolean;
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
  /** The entry's policy object, checked (the adapter's `permissions.policy`); `loadRegistryFile` has read a policy file into it. */
  policy: CompiledToolPolicy | undefined;
  /** The entry's policy file path when it was not read yet (an entry parsed without its file): for an adapter that reads it. */
  policyFile: string | undefined;
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
 * - `policy` is refused unless the adapter `enforcesPolicy`; an object is
 *   returned compiled as `policy`, a path as `policyFile`.
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
  let policy: CompiledToolPolicy | undefined;
  if (definition.policy !== undefined && facts.enforcesPolicy !== true) {
    issues.push({ path: ['policy'], message: `the ${facts.adapterId} adapter cannot decide its CLI's tool calls yet, so it cannot enforce a policy; remove policy or use an adapter that can (claude, codex, acp)` });
  } else if (definition.policy !== undefined && (definition.policy === null || typeof definition.policy !== 'object' || Array.isArray(definition.policy)) && typeof definition.policy !== 'string') {
    issues.push({ path: ['policy'], message: 'expected a policy object or the path of a policy file' });
  } else if (definition.policy !== undefined && typeof definition.policy !== 'string') {
    try {
      policy = compileToolPolicy(definition.policy);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues.map((issue) => ({ ...issue, path: ['policy', ...issue.path] })));
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
    policy,
    policyFile: typeof definition.policy === 'string' ? definition.policy : undefined,
  };
}

/**
 * An adapter's `permissions` and `policyFile` settings under a registry entry's `policy`: the entry's checked policy
 * object replaces the code's `permissions.policy` (a callback and hooks can only come from code, and are kept); a policy
 * file path not read yet (an entry parsed without its registry file) becomes `policyFile`, for an adapter that reads it
 * when a turn starts. No entry policy: nothing changes (`{}`).
 */
export function registryPolicySettings(
  entry: Pick<RegistryAgentSettings, 'policy' | 'policyFile'>,
  permissions: ToolPermissionOptions | undefined,
): { permissions?: ToolPermissionOptions; policyFile?: string | undefined } {
  const { policy: _codePolicy, ...rest } = permissions ?? {};
  if (entry.policy !== undefined) return { permissions: { ...rest, policy: entry.policy }, policyFile: undefined };
  if (entry.policyFile !== undefined) return { permissions: rest, policyFile: entry.policyFile };
  return {};
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
