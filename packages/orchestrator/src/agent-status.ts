import { IllegalStatusTransitionError } from './orchestrator-errors';
import type { AgentRuntimeStatus, AgentTerminalStatus } from './orchestrator-types';

/**
 * The agent status machine (seed 004: Idle → Running → Completed | Error |
 * Terminated, with Forking, and Waiting for the user's input after an
 * answer), as the allowed next statuses of each status:
 *
 * - `idle` → `running` (it got a slot), `terminated`, `error` (it could not start);
 * - `running` → `forking`, `waiting` (its turn ended and it waits for input), `completed`, `error`, `terminated`;
 * - `forking` → `running` (its sub-agents ended and it got a slot back), `error`, `terminated`;
 * - `waiting` → `running` (it got the next message and a slot), `completed` (`completeAgent`), `terminated`, `error`;
 * - `completed`, `error`, `terminated` are final.
 */
export const AGENT_STATUS_TRANSITIONS: Readonly<Record<AgentRuntimeStatus, readonly AgentRuntimeStatus[]>> = Object.freeze({
  idle: Object.freeze(['running', 'terminated', 'error'] as const),
  running: Object.freeze(['forking', 'waiting', 'completed', 'error', 'terminated'] as const),
  forking: Object.freeze(['running', 'error', 'terminated'] as const),
  waiting: Object.freeze(['running', 'completed', 'error', 'terminated'] as const),
  completed: Object.freeze([] as const),
  error: Object.freeze([] as const),
  terminated: Object.freeze([] as const),
});

/** True for `completed`, `error` and `terminated` (a `waiting` agent is not ended: it can go on). */
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
