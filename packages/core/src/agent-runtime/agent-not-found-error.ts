import { TroupeError } from '../errors/troupe-error';

/**
 * No agent is registered under the requested id. The message lists the ids
 * that are, so a typo is obvious.
 */
export class AgentNotFoundError extends TroupeError {
  /** The id that was asked for. */
  readonly agentId: string;
  /** The ids that are registered, sorted. */
  readonly registered: readonly string[];

  constructor(agentId: string, registered: readonly string[]) {
    const list = registered.length > 0 ? registered.join(', ') : '(none registered)';
    super('AGENT_NOT_FOUND', `No agent registered as "${agentId}". Registered agents: ${list}.`);
    this.name = 'AgentNotFoundError';
    this.agentId = agentId;
    this.registered = registered;
  }
}
