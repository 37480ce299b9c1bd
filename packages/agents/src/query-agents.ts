import { CapabilityUnsupportedError, ConfigError, InvalidArgumentError, type AgentAdapter } from '@troupe/core';
import { agentDefinitionSchema, createGenericAdapter, loadRegistryFile, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core/cli-turn';
import { AgentNotInstalledError, missingPackage } from './query-errors';

/**
 * A registry entry read from an agent registry file (`~/.troupe/agents/config.json`, schema 1.2 or 1.1): the
 * file's path and the entry's name.
 */
export interface QueryRegistryAgent {
  /** Path of the registry file. */
  registry: string;
  /** The entry's name in it (its key under `agents`). */
  name: string;
}

/**
 * Which agent `query()` runs: a built-in name (`'claude'`, `'codex'`, `'gemini'`), an ACP agent (`'acp:gemini'`
 * for Gemini CLI's `--acp` mode, `'acp:<command>'` for any other ACP agent started by that command, e.g.
 * `'acp:claude-code-acp'`), a registry entry (an `AgentDefinition` object, or `{ registry, name }` to read one
 * from a registry file), or an adapter object (a custom `AgentAdapter`).
 */
export type QueryAgent = 'claude' | 'codex' | 'gemini' | `acp:${string}` | AgentDefinition | QueryRegistryAgent | AgentAdapter;

/** Builds a plugin of an adapter type from the settings `query()` gives the built-in adapters (`command`: the ACP agent's). */
type PluginFactory = (settings: { model?: string; command?: string }) => AgentAdapterPlugin;

/** An adapter type `query()` loads from its package on demand. */
interface BuiltInAdapterType {
  /** Registry type (`AgentDefinition.adapter`). */
  readonly type: string;
  /** The name `query({ agent })` takes for it, when it has one. */
  readonly agentName: string | undefined;
  readonly displayName: string;
  /** Packages the import needs, the adapter package first. */
  readonly packages: readonly string[];
  /** Whether the adapter passes a model to its CLI. */
  readonly takesModel: boolean;
  load(): Promise<PluginFactory>;
}

// Each import is written out, so bundlers see it; none runs until its agent is asked for.
const BUILT_IN_TYPES: readonly BuiltInAdapterType[] = [
  {
    type: 'claude',
    agentName: 'claude',
    displayName: 'Claude Code',
    packages: ['@troupe/adapter-claude'],
    takesModel: true,
    load: async () => (await import('@troupe/adapter-claude')).createClaudeCodeAdapterPlugin,
  },
  {
    type: 'codex',
    agentName: 'codex',
    displayName: 'Codex CLI',
    packages: ['@troupe/adapter-codex'],
    takesModel: true,
    load: async () => (await import('@troupe/adapter-codex')).createCodexAdapterPlugin,
  },
  {
    type: 'gemini',
    agentName: 'gemini',
    displayName: 'Gemini CLI',
    packages: ['@troupe/adapter-gemini'],
    takesModel: true,
    load: async () => (await import('@troupe/adapter-gemini')).createGeminiCliAdapterPlugin,
  },
  {
    type: 'gemini-acp',
    agentName: 'acp:gemini',
    displayName: 'Gemini CLI over ACP',
    packages: ['@troupe/adapter-gemini', '@troupe/adapter-acp'],
    takesModel: true,
    load: async () => {
      const { createGeminiAcpAdapterPlugin } = await import('@troupe/adapter-gemini/acp');
      return (settings) => createGeminiAcpAdapterPlugin(settings);
    },
  },
  {
    type: 'acp',
    agentName: undefined,
    displayName: 'ACP agent',
    packages: ['@troupe/adapter-acp'],
    takesModel: false,
    load: async () => {
      const { createAcpAdapterPlugin } = await import('@troupe/adapter-acp');
      return ({ command }) => createAcpAdapterPlugin(command !== undefined ? { command } : {});
    },
  },
];

/** The agent `query()` resolved: its adapter, a maker of fresh ones (one per turn), and the name errors call it by. */
export interface ResolvedQueryAgent {
  adapter: AgentAdapter;
  label: string;
  /** A new adapter of the same settings (an adapter object given as the agent is returned as it is). */
  create(): AgentAdapter;
}

/**
 * The adapter of `agent`, its package imported now. `model` goes to the adapter's settings (a registry entry's
 * `model` is overridden); an agent that cannot take one refuses it.
 *
 * @throws AgentNotInstalledError for an unknown name or an adapter package that is not installed.
 * @throws CapabilityUnsupportedError when `model` is given to an agent that cannot pass it on.
 * @throws InvalidArgumentError / ConfigError for a malformed agent or registry entry.
 */
export async function resolveQueryAgent(agent: QueryAgent, model: string | undefined): Promise<ResolvedQueryAgent> {
  if (typeof agent === 'string') return resolveAgentName(agent, model);
  if (agent === null || typeof agent !== 'object') {
    throw new InvalidArgumentError('agent', `expected an agent name ('claude', 'codex', 'gemini', 'acp:…'), a registry entry or an adapter, got ${agent === null ? 'null' : typeof agent}`);
  }
  // A registry entry is a loose object: tell the three shapes apart by their own fields.
  if ('specificationVersion' in agent) return resolveAdapter(agent as AgentAdapter, model);
  if ('registry' in agent && !('command' in agent)) return resolveDefinition(await readRegistryEntry(agent as QueryRegistryAgent), model);
  const parsed = agentDefinitionSchema.safeParse(agent);
  if (!parsed.success) throw ConfigError.fromZod('the registry entry given as agent', parsed.error);
  return resolveDefinition(parsed.data, model);
}

async function resolveAgentName(name: string, model: string | undefined): Promise<ResolvedQueryAgent> {
  const builtIn = BUILT_IN_TYPES.find((type) => type.agentName === name);
  if (builtIn) {
    const plugin = (await loadBuiltIn(builtIn, name))(model !== undefined ? { model } : {});
    return { adapter: plugin.create(), label: name, create: () => plugin.create() };
  }
  if (name.startsWith('acp:') && name.length > 'acp:'.length) {
    const acp = BUILT_IN_TYPES.find((type) => type.type === 'acp') as BuiltInAdapterType;
    refuseModel(name, model);
    const plugin = (await loadBuiltIn(acp, name))({ command: name.slice('acp:'.length) });
    return { adapter: plugin.create(), label: name, create: () => plugin.create() };
  }
  const installed = await installedAgents();
  // The packages of the named agents that are not installed yet (Gemini over ACP comes with its two).
  const missing = BUILT_IN_TYPES.filter((type) => type.type !== 'gemini-acp' && !installed.includes(type.agentName ?? 'acp:<command>'));
  const install = missing.map((type) => `npm install ${type.packages.join(' ')} (agent ${type.agentName !== undefined ? `"${type.agentName}"` : '"acp:<command>"'})`);
  throw new AgentNotInstalledError(
    name,
    installed,
    `Unknown agent ${JSON.stringify(name)}. ${installedSentence(installed)} To add one: ${install.length > 0 ? `${install.join(', ')}; or ` : ''}` +
      'pass an adapter object (agent: createMyAdapter()) or a registry entry ({ name, command, baseArgs, capabilities }).',
  );
}

function resolveAdapter(adapter: AgentAdapter, model: string | undefined): ResolvedQueryAgent {
  if (adapter.specificationVersion !== 'v1' || typeof adapter.getProcessConfig !== 'function' || typeof adapter.parseLine !== 'function') {
    throw new InvalidArgumentError('agent', `expected an AgentAdapter (specificationVersion 'v1', getProcessConfig, parseLine…), got specificationVersion ${JSON.stringify(adapter.specificationVersion)}`);
  }
  const label = typeof adapter.adapterId === 'string' ? adapter.adapterId : 'adapter';
  if (model !== undefined) {
    throw new CapabilityUnsupportedError(
      label,
      'model',
      `The agent "${label}" is an adapter object: query() cannot give it a model; set the model in the adapter's own settings (e.g. createClaudeCodeAdapter({ model }))`,
    );
  }
  return { adapter, label, create: () => adapter };
}

async function resolveDefinition(definition: AgentDefinition, model: string | undefined): Promise<ResolvedQueryAgent> {
  const type = definition.adapter ?? definition.name;
  const label = definition.name;
  const builtIn = BUILT_IN_TYPES.find((candidate) => candidate.type === type);
  if (!builtIn) {
    // A CLI without a dedicated adapter: driven by the entry alone.
    refuseModel(label, model);
    return { adapter: createGenericAdapter(definition), label, create: () => createGenericAdapter(definition) };
  }
  if (!builtIn.takesModel) refuseModel(label, model);
  const plugin = (await loadBuiltIn(builtIn, label))({});
  const settings = model !== undefined ? { ...definition, model } : definition;
  return { adapter: plugin.create(settings), label, create: () => plugin.create(settings) };
}

async function readRegistryEntry(agent: QueryRegistryAgent): Promise<AgentDefinition> {
  if (typeof agent.registry !== 'string' || typeof agent.name !== 'string') {
    throw new InvalidArgumentError('agent', 'expected { registry: <path of the registry file>, name: <the entry\'s name> }');
  }
  const { config } = await loadRegistryFile(agent.registry);
  const definition = Object.hasOwn(config.agents, agent.name) ? config.agents[agent.name] : undefined;
  if (!definition) {
    throw new InvalidArgumentError('agent.name', `the registry ${agent.registry} has no agent "${agent.name}" (its agents: ${Object.keys(config.agents).sort().join(', ') || 'none'})`);
  }
  return definition;
}

function refuseModel(label: string, model: string | undefined): void {
  if (model === undefined) return;
  throw new CapabilityUnsupportedError(
    label,
    'model',
    `The agent "${label}" has no adapter setting for a model, so query() cannot honour model "${model}"; pass the CLI's own model flag or variable in its registry entry (baseArgs, env), or leave model out`,
  );
}

/** Imports an adapter type's package; a package that is not installed is named with its install command. */
async function loadBuiltIn(type: BuiltInAdapterType, agent: string): Promise<PluginFactory> {
  try {
    return await type.load();
  } catch (error) {
    const missing = missingPackage(error, type.packages);
    if (missing === undefined) throw error;
    const installed = await installedAgents();
    throw new AgentNotInstalledError(
      agent,
      installed,
      `The agent "${agent}" (${type.displayName}) needs the package ${missing}, which is not installed: npm install ${type.packages.join(' ')}. ${installedSentence(installed)}`,
      { packageName: missing, cause: error },
    );
  }
}

/**
 * The agent names that would load now: the built-in names whose packages resolve, and `acp:<command>` when
 * `@troupe/adapter-acp` does.
 */
export async function installedAgents(): Promise<string[]> {
  const names: string[] = [];
  for (const type of BUILT_IN_TYPES) {
    const loaded = await type.load().then(
      () => true,
      () => false,
    );
    if (!loaded) continue;
    names.push(type.agentName ?? 'acp:<command>');
  }
  return names;
}

function installedSentence(installed: readonly string[]): string {
  return installed.length > 0 ? `Installed agents: ${installed.join(', ')}.` : 'No agent adapter package is installed.';
}
