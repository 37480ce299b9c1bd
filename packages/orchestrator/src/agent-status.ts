import { IllegalStatusTransitionError } from './orchestrator-errors';
import type { AgentRuntimeStatus, AgentTerminalStatus } from './orchestrator-types';

/**
 * The agent status machine (seed 004: Idle → Running → Completed | Error |
 * Terminated, with Forking), as the allowed next statuses of each status:
 *
 * - `idle` → `running` (it got a slot), `terminated`, `error` (it could not start);
 * - `running` → `forking`, `completed`, `error`, `terminated`;
 * - `forking` → `running` (its sub-agents ended and it got a slot back), `error`, `terminated`;
 * - `completed`, `error`, `terminated` are final.
 */
export const AGENT_STATUS_TRANSITIONS: Readonly<Record<AgentRuntimeStatus, readonly AgentRuntimeStatus[]>> = Object.freeze({
  idle: Object.freeze(['running', 'terminated', 'error'] as const),
  running: Object.freeze(['forking', 'completed', 'error', 'terminated'] as const),
  forking: Object.freeze(['running', 'error', 'terminated'] as const),
  completed: Object.freeze([] as const),
  error: Object.freeze([] as const),
  terminated: Object.freeze([] as const),
});

/** True for `completed`, `error` and `terminated`. */
export function isTerminalStatus(status: AgentRuntimeStatus): status is AgentTerminalStatus {
  return status === 'completed' || status === 'error' || status === 'terminated';
}

/** Whether the machine allows `from` → `to`. */
export function canTransition(from: AgentRuntimeStatus, to: AgentRuntimeStatus): boolean {
  return AGENT_STATUS_TRANSITIONS[from].includes(to);
}

/** Throws {@link IllegalStatusTransitionError} unless `from` → `to` is allowed. */
export function assertTransition(agentId: string, from: AgentRuntimeStatus, to: AgentRuntimeStatus): void {
  if (!canTransition(from, to)) throw new IllegalStatusTransitionError(agentId, from, to, AGENT_STATUS_TRANSITIONS[from]);
}
