import { AdapterNotFoundError } from '../errors/adapter-not-found-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { AgentCapabilities, AgentDefinition } from './registry/registry-schema';
import { processSingleton } from '../util/process-singleton';
import type { AgentAdapter } from '../adapter/v1/agent-adapter-v1';

/**
 * A registered adapter type: a factory that builds an adapter, optionally
 * from a registry entry (command path, base args, capabilities).
 */
export interface AgentAdapterPlugin {
  /** Registry key, e.g. `claude`. */
  readonly type: string;
  /** Human name, e.g. `Claude Code`. */
  readonly displayName?: string;
  /** Builds an adapter; `definition` is the registry entry when there is one. */
  create(definition?: AgentDefinition): AgentAdapter;
  /**
   * What this adapter's CLI does, as a registry entry's `capabilities` (its
   * system-prompt flag, how its turns end). Filled into an entry of this type
   * when a 1.1 registry, which had none of this, is migrated to 1.2. The
   * vendor's facts live with its adapter, not in core.
   */
  readonly registryCapabilities?: AgentCapabilities;
}

const TYPE_PATTERN = /^[a-z0-9][a-z0-9._:-]*$/;

/**
 * Adapter types by name. Replaces the seed's hard-coded factory: adapter
 * packages (and users) register at runtime.
 *
 * @example
 * ```ts
 * const adapters = new AdapterRegistry();
 * const unregister = adapters.register({ type: 'echo', create: () => echoAdapter });
 * adapters.create('echo');
 * unregister();
 * ```
 */
export class AdapterRegistry {
  private readonly plugins = new Map<string, AgentAdapterPlugin>();

  /**
   * Registers an adapter type; returns a function that unregisters it.
   *
   * @throws InvalidArgumentError for a malformed plugin.
   * @throws InvalidStateError when the type is already registered.
   */
  register(plugin: AgentAdapterPlugin): () => void {
    if (plugin === null || typeof plugin !== 'object') throw new InvalidArgumentError('plugin', 'expected { type, create }');
    if (typeof plugin.type !== 'string' || !TYPE_PATTERN.test(plugin.type)) {
      throw new InvalidArgumentError('plugin.type', `expected a lower-case name like "claude", got ${JSON.stringify(plugin.type)}`);
    }
    if (typeof plugin.create !== 'function') throw new InvalidArgumentError('plugin.create', `expected a function for "${plugin.type}"`);
    if (this.plugins.has(plugin.type)) {
      throw new InvalidStateError(`An adapter for "${plugin.type}" is already registered; unregister it first`, {
        code: 'ADAPTER_ALREADY_REGISTERED',
      });
    }
    this.plugins.set(plugin.type, plugin);
    return () => {
      if (this.plugins.get(plugin.type) === plugin) this.plugins.delete(plugin.type);
    };
  }

  /** The plugin for a type. @throws AdapterNotFoundError listing the registered types. */
  get(type: string): AgentAdapterPlugin {
    const plugin = this.plugins.get(type);
    if (!plugin) throw new AdapterNotFoundError(type, this.types());
    return plugin;
  }

  /** True when a type is registered. */
  has(type: string): boolean {
    return this.plugins.has(type);
  }

  /** Registered types, sorted. */
  types(): string[] {
    return [...this.plugins.keys()].sort();
  }

  /**
   * Builds an adapter by type name, or from a registry entry (its `adapter`
   * field, else its `name`).
   */
  create(typeOrDefinition: string | AgentDefinition): AgentAdapter {
    if (typeof typeOrDefinition === 'string') return this.get(typeOrDefinition).create();
    const type = typeOrDefinition.adapter ?? typeOrDefinition.name;
    return this.get(type).create(typeOrDefinition);
  }
}

/**
 * The process-wide registry the adapter packages register into. One per
 * process: the ESM and CJS builds of core (a `require` of an adapter next to
 * an `import` of core) share it, so an adapter registered through either is
 * found through both.
 */
export const defaultAdapterRegistry: AdapterRegistry = processSingleton('core.adapter-registry.v1', () => new AdapterRegistry());

/**
 * Registers an adapter type in the default registry; returns a function that
 * unregisters it.
 */
export function registerAdapter(plugin: AgentAdapterPlugin): () => void {
  return defaultAdapterRegistry.register(plugin);
}
