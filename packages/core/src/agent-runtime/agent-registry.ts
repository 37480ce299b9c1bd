import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { AgentNotFoundError } from './agent-not-found-error';
import { assertAgentId } from './define-agent';
import type { RunnableAgent } from '../agents/runnable-agent';

/**
 * Runnable agents by id (the seed's `registerAgents`): the {@link Executor}
 * finds agents here. Registration returns its own undo.
 *
 * @example
 * ```ts
 * const agents = new AgentRegistry();
 * const unregister = agents.register(looper);
 * agents.get('looper');
 * unregister();
 * agents.get('looper'); // AgentNotFoundError: … Registered agents: (none registered)
 * ```
 */
export class AgentRegistry {
  private readonly agents = new Map<string, RunnableAgent>();

  /**
   * Registers an agent; returns a function that unregisters it (only it:
   * a later agent registered under the same id stays).
   *
   * @throws InvalidArgumentError for something that is not a runnable agent.
   * @throws InvalidStateError when the id is taken.
   */
  register(agent: RunnableAgent): () => void {
    if (agent === null || typeof agent !== 'object') throw new InvalidArgumentError('agent', 'expected a RunnableAgent { id, description, start }');
    assertAgentId(agent.id);
    if (typeof agent.start !== 'function') throw new InvalidArgumentError('agent.start', `agent "${agent.id}" has no start function`);
    if (typeof agent.description !== 'string') {
      throw new InvalidArgumentError('agent.description', `agent "${agent.id}" needs a description string`);
    }
    if (this.agents.has(agent.id)) {
      throw new InvalidStateError(`An agent is already registered as "${agent.id}"; unregister it first`);
    }
    this.agents.set(agent.id, agent);
    return () => {
      if (this.agents.get(agent.id) === agent) this.agents.delete(agent.id);
    };
  }

  /** The agent with this id. @throws AgentNotFoundError listing the registered ids. */
  get(id: string): RunnableAgent {
    const agent = this.agents.get(id);
    if (!agent) throw new AgentNotFoundError(String(id), this.ids());
    return agent;
  }

  /** True when an agent has this id. */
  has(id: string): boolean {
    return this.agents.has(id);
  }

  /** Registered ids, sorted. */
  ids(): string[] {
    return [...this.agents.keys()].sort();
  }

  /** Registered agents, sorted by id. */
  list(): RunnableAgent[] {
    return this.ids().map((id) => this.agents.get(id) as RunnableAgent);
  }
}
