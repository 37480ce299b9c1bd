import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRegistryFile, type AgentDefinition, type ParsedRegistry } from '@troupe/core/cli-turn';
import { CliUsageError } from '../cli-errors';
import { builtinAdapterFacts } from './builtin-adapter-facts';
import type { CliMessages } from '../i18n/cli-messages';

/** The adapters built into `troupe`, by name. */
export const BUILT_IN_AGENTS = ['claude', 'codex', 'gemini'] as const;
/** A built-in adapter's name. */
export type BuiltInAgent = (typeof BUILT_IN_AGENTS)[number];
/** Adapter types `troupe` has a dedicated adapter for: the built-in CLIs, and `acp` (any ACP agent a registry entry names). */
export const DEDICATED_ADAPTERS: readonly string[] = [...BUILT_IN_AGENTS, 'acp'];

/** Where the agent registry is looked for, in order. */
export interface RegistryLookup {
  /** `--registry FILE` (relative to `cwd`): must exist when given. */
  option?: string | undefined;
  /** The workspace: `<workspace>/.troupe/agents.json`. */
  workspaceRoot?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** The agent registry a command uses. */
export interface CliRegistry {
  path: string;
  parsed: ParsedRegistry;
  /** Registry files further down the lookup order, found but not used. */
  shadowed: string[];
}

/**
 * The registry files `troupe` looks for, in order: `--registry FILE`, then
 * `<workspace>/.troupe/agents.json`, then `~/.troupe/agents/config.json`.
 */
export function registryCandidates(lookup: RegistryLookup): { path: string; explicit: boolean }[] {
  const home = lookup.env.HOME || homedir();
  return [
    ...(lookup.option !== undefined ? [{ path: resolve(lookup.cwd, lookup.option), explicit: true }] : []),
    ...(lookup.workspaceRoot !== undefined ? [{ path: join(lookup.workspaceRoot, '.troupe', 'agents.json'), explicit: false }] : []),
    { path: join(home, '.troupe', 'agents', 'config.json'), explicit: false },
  ];
}

/**
 * Loads the first registry of the lookup order (schema 1.2; 1.1 is read with
 * a warning, given to `onWarning`). Undefined when there is none.
 *
 * @throws CliUsageError when `--registry FILE` does not exist.
 * @throws ConfigError for an unreadable or invalid registry, naming each bad field.
 */
export async function loadCliRegistry(lookup: RegistryLookup, messages: CliMessages, onWarning: (text: string) => void): Promise<CliRegistry | undefined> {
  const candidates = registryCandidates(lookup);
  const explicit = candidates.find((candidate) => candidate.explicit);
  if (explicit && !existsSync(explicit.path)) throw new CliUsageError(messages.usage.fileMissing('registry file', explicit.path));
  const found = candidates.filter((candidate) => existsSync(candidate.path));
  const [first, ...rest] = found;
  if (!first) return undefined;
  const parsed = await loadRegistryFile(first.path, { onWarning, adapters: builtinAdapterFacts() });
  return { path: first.path, parsed, shadowed: rest.map((candidate) => candidate.path) };
}

/** An agent a `--coder` / `--reviewer` value or a team member names. */
export interface AgentChoice {
  /** The name given: a registry entry's key or a built-in adapter. */
  name: string;
  /** The registry entry, when the name is one. */
  definition: AgentDefinition | undefined;
  /** The adapter that runs it (`claude`, `codex`, `gemini`, or a custom entry's type). */
  adapterType: string;
}

/** The registry entry named `name`, if any (own keys only). */
export function registryEntry(registry: CliRegistry | undefined, name: string): AgentDefinition | undefined {
  const agents = registry?.parsed.config.agents;
  return agents && Object.hasOwn(agents, name) ? agents[name] : undefined;
}

/**
 * Resolves an agent name: a registry entry first, then a built-in adapter.
 *
 * @throws CliUsageError listing the registry's entries and the built-in adapters.
 */
export function resolveAgentChoice(
  value: string,
  option: string,
  registry: CliRegistry | undefined,
  messages: CliMessages,
  command: string,
  extraChoices: readonly string[] = [],
): AgentChoice {
  const definition = registryEntry(registry, value);
  if (definition) return { name: value, definition, adapterType: definition.adapter ?? definition.name };
  if ((BUILT_IN_AGENTS as readonly string[]).includes(value)) return { name: value, definition: undefined, adapterType: value };
  const entries = Object.keys(registry?.parsed.config.agents ?? {});
  throw new CliUsageError(messages.usage.agent(option, entries, [...BUILT_IN_AGENTS, ...extraChoices], value, registry?.path), { command });
}

/** `claude`, or `my-codex (codex)` for an entry whose name is not its adapter. */
export function describeAgentChoice(choice: AgentChoice): string {
  return choice.name === choice.adapterType ? choice.name : `${choice.name} (${choice.adapterType})`;
}

/** The definitions source for `AgentManager`: registry entries by key (own keys only). */
export function registryDefinitions(registry: CliRegistry | undefined): (configId: string) => AgentDefinition | undefined {
  return (configId) => registryEntry(registry, configId);
}
