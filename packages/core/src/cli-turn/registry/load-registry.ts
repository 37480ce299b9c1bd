import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../../errors/config-error';
import { loadToolPolicyFile } from '../../permissions/tool-policy-file';
import { readConfigFile } from '../../util/read-config-file';
import { defaultAdapterRegistry, type AdapterRegistry } from '../adapter-registry';
import { convertLegacyAgent, type RemovedSystemPrompt } from './convert-legacy-registry';
import { isReservedAgentName, legacyAgentDefinitionSchema, registryConfigSchema, type RegistryConfig } from './registry-schema';

/** Newest registry schema this version reads. */
export const REGISTRY_SCHEMA_VERSION = '1.2';

/** Options for {@link parseRegistryConfig} and {@link loadRegistryFile}. */
export interface ParseRegistryOptions {
  /** Named in errors and warnings (a file path). Default `'registry'`. */
  source?: string;
  /** Receives each warning (1.1 fallback). Default: `process.emitWarning`. */
  onWarning?: (message: string) => void;
  /**
   * Where a 1.1 entry's CLI facts come from: the plugin registered under the
   * entry's name (or key) gives its `registryCapabilities`. Default: the
   * default adapter registry (register the adapters you use first, e.g.
   * `registerClaudeCodeAdapter()`). An entry no plugin knows gets its
   * capabilities from its legacy `completion` field.
   */
  adapters?: AdapterRegistry;
}

/** A registry read into schema 1.2, plus what the 1.1 fallback had to do. */
export interface ParsedRegistry {
  config: RegistryConfig;
  /** Schema version found in the input. */
  sourceVersion: string;
  /** True when any entry was read through the 1.1 fallback. */
  usedFallback: boolean;
  /** Every warning, the fallback notice first. */
  warnings: string[];
  /** Warnings about individual entries (role text removed, guessed capabilities). */
  conversionWarnings: string[];
  removedSystemPrompts: RemovedSystemPrompt[];
}

/**
 * Validates a registry (schema 1.2). A 1.1 registry, or a 1.2 agent entry
 * that still has `args` instead of `baseArgs`, is read as a fallback and
 * converted in memory, with a warning to run `migrateRegistry`.
 *
 * @throws ConfigError naming each invalid field (`agents.claude.command: …`),
 * or a schema version newer than this package reads.
 */
export function parseRegistryConfig(input: unknown, options: ParseRegistryOptions = {}): ParsedRegistry {
  const source = options.source ?? 'registry';
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(source, [{ path: [], message: 'expected a JSON object with "schemaVersion" and "agents"' }]);
  }
  const raw = unwrapLegacyAgents(input as Record<string, unknown>);
  const version = raw.schemaVersion === undefined ? '1.1' : String(raw.schemaVersion);
  if (!['1.0', '1.1', '1.2'].includes(version)) {
    const newer = Number.parseFloat(version) > 1.2;
    throw new ConfigError(source, [
      {
        path: ['schemaVersion'],
        message: newer
          ? `schema ${version} is newer than this @troupe/core reads (${REGISTRY_SCHEMA_VERSION}); upgrade @troupe/core`
          : `unknown schema version "${version}" (expected "1.2", or "1.1" to migrate)`,
      },
    ]);
  }
  const agents = raw.agents;
  if (agents === null || typeof agents !== 'object' || Array.isArray(agents)) {
    throw new ConfigError(source, [{ path: ['agents'], message: 'expected an object of agent definitions keyed by name' }]);
  }
  const adapters = options.adapters ?? defaultAdapterRegistry;
  const capabilitiesOf = (type: string) => (adapters.has(type) ? adapters.get(type).registryCapabilities : undefined);
  const conversionWarnings: string[] = [];
  let usedFallback = false;
  const removedSystemPrompts: RemovedSystemPrompt[] = [];
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(agents as Record<string, unknown>)) {
    if (isReservedAgentName(key)) {
      throw new ConfigError(source, [{ path: ['agents', key], message: `"${key}" cannot name an agent (a reserved JavaScript property name); rename it` }]);
    }
    const entry = value as Record<string, unknown> | null;
    if (entry && typeof entry === 'object' && entry.baseArgs === undefined && (entry.args !== undefined || version !== '1.2')) {
      const legacy = legacyAgentDefinitionSchema.safeParse(entry);
      if (!legacy.success) {
        throw ConfigError.fromZod(source, legacy.error, ['agents', key]);
      }
      const result = convertLegacyAgent(key, legacy.data, capabilitiesOf);
      usedFallback = true;
      conversionWarnings.push(...result.warnings);
      removedSystemPrompts.push(...result.removed);
      converted[key] = result.definition;
    } else converted[key] = entry;
  }
  usedFallback ||= version !== '1.2';
  const warnings = [
    ...(usedFallback
      ? [
          `${source} uses registry schema ${version} ("args"); read as a fallback. ` +
            'Run migrateRegistry() (or `troupe migrate-registry`) to convert it to 1.2.',
        ]
      : []),
    ...conversionWarnings,
  ];
  const parsed = registryConfigSchema.safeParse({ ...raw, schemaVersion: '1.2', agents: converted });
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message, 'TroupeWarning'));
  for (const warning of warnings) onWarning(warning);
  return { config: parsed.data, sourceVersion: version, usedFallback, warnings, conversionWarnings, removedSystemPrompts };
}

/**
 * Seed 001's 1.1 example has no `agents` wrapper and no version: the agent
 * entries are the top-level keys (`{ "claude": { "command": …, "args": … } }`).
 * Such an object is read as `{ schemaVersion: '1.1', agents: … }`.
 */
function unwrapLegacyAgents(raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.agents !== undefined || raw.schemaVersion !== undefined) return raw;
  const entries = Object.values(raw);
  const looksLikeAgents =
    entries.length > 0 &&
    entries.every((entry) => entry !== null && typeof entry === 'object' && !Array.isArray(entry) && typeof (entry as { command?: unknown }).command === 'string');
  return looksLikeAgents ? { schemaVersion: '1.1', agents: raw } : raw;
}

/**
 * Reads and validates a registry JSON file (see {@link parseRegistryConfig}).
 * An entry's `policy` that names a policy file (relative to the registry's
 * folder) is read and checked now, and the entry carries its rules from then
 * on: a malformed policy fails the load, naming the file and the rule.
 *
 * @throws ConfigError for unreadable files, invalid JSON (with the parser's
 * position) or invalid fields; for a policy file, naming it, its rule
 * (`deny[1]: …`) and the entry that points to it.
 */
export async function loadRegistryFile(path: string, options: ParseRegistryOptions = {}): Promise<ParsedRegistry> {
  const parsed = parseRegistryConfig(await readConfigFile(path), { ...options, source: options.source ?? path });
  const config = resolveRegistryPaths(parsed.config, dirname(resolve(path)));
  return { ...parsed, config: await readPolicyFiles(config, options.source ?? path) };
}

/** Replaces each entry's policy file path by the file's checked policy. */
async function readPolicyFiles(config: RegistryConfig, source: string): Promise<RegistryConfig> {
  const agents: RegistryConfig['agents'] = {};
  for (const [key, agent] of Object.entries(config.agents)) {
    if (typeof agent.policy !== 'string') {
      agents[key] = agent;
      continue;
    }
    try {
      agents[key] = { ...agent, policy: { ...(await loadToolPolicyFile(agent.policy)).policy } };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(`${error.source} (the policy of agents.${key} in ${source})`, error.issues, { cause: error });
    }
  }
  return { ...config, agents };
}

/**
 * Makes an entry's `home` and `policy` file absolute (`~/…` is the user's home; a relative path
 * is read from `baseDir`, the registry file's folder), and so its `command`
 * when it is a relative path (`./bin/claude`); a bare name stays a `PATH` lookup.
 */
export function resolveRegistryPaths(config: RegistryConfig, baseDir: string): RegistryConfig {
  const absolute = (path: string) => (path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : resolve(baseDir, path));
  const agents = Object.fromEntries(
    Object.entries(config.agents).map(([key, agent]) => [
      key,
      {
        ...agent,
        ...(agent.home !== undefined ? { home: absolute(agent.home) } : {}),
        ...(/[\\/]/.test(agent.command) && !isAbsolute(agent.command) ? { command: absolute(agent.command) } : {}),
        ...(typeof agent.policy === 'string' ? { policy: absolute(agent.policy) } : {}),
      },
    ]),
  );
  return { ...config, agents };
}
