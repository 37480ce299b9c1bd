import { AbortError, InvalidArgumentError, InvalidStateError, TroupeError, type TroupeErrorOptions } from '@troupe/core';
import type { AgentRuntimeStatus } from './orchestrator-types';

const TRANSITION_MARKER = Symbol.for('troupe.orchestrator.illegal-status-transition');
const FAILED_MARKER = Symbol.for('troupe.orchestrator.agent-failed');
const TERMINATED_MARKER = Symbol.for('troupe.orchestrator.agent-terminated');
const TIMEOUT_MARKER = Symbol.for('troupe.orchestrator.agent-timeout');

/** An agent was asked to move between two statuses the status machine does not connect (code `INVALID_STATE`). */
export class IllegalStatusTransitionError extends InvalidStateError {
  private readonly [TRANSITION_MARKER] = true;
  readonly agentId: string;
  readonly from: AgentRuntimeStatus;
  readonly to: AgentRuntimeStatus;

  constructor(agentId: string, from: AgentRuntimeStatus, to: AgentRuntimeStatus, allowed: readonly AgentRuntimeStatus[]) {
    const next = allowed.length > 0 ? `allowed from ${from}: ${allowed.join(', ')}` : `${from} is final`;
    super(`Agent "${agentId}" cannot go from ${from} to ${to} (${next})`);
    this.name = 'IllegalStatusTransitionError';
    this.agentId = agentId;
    this.from = from;
    this.to = to;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is IllegalStatusTransitionError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[TRANSITION_MARKER] === true;
  }
}

/** No agent has this id in the orchestrator (code `INVALID_ARGUMENT`). */
export class UnknownAgentError extends InvalidArgumentError {
  readonly agentId: string;

  constructor(agentId: string) {
    super('agentId', `no agent "${agentId}" in this orchestrator`);
    this.name = 'UnknownAgentError';
    this.agentId = agentId;
  }
}

/**
 * An agent ended in `error`: its model failed, it timed out, or it gave up
 * (`task_finish` with `success: false`). `cause` holds the underlying error
 * (a `ModelError`, {@link AgentTimeoutError}…). Code `AGENT_ERROR`.
 */
export class AgentFailedError extends TroupeError {
  private readonly [FAILED_MARKER] = true;
  readonly agentId: string;

  constructor(agentId: string, message: string, options: TroupeErrorOptions = {}) {
    super('AGENT_ERROR', `Agent "${agentId}" failed: ${message}`, options);
    this.name = 'AgentFailedError';
    this.agentId = agentId;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is AgentFailedError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[FAILED_MARKER] === true;
  }
}

/** An agent was terminated (by `terminateAgent`, a cascade from an ancestor, or its run's signal). Code `ABORTED`. */
export class AgentTerminatedError extends AbortError {
  private readonly [TERMINATED_MARKER] = true;
  readonly agentId: string;
  /** The reason given to `terminateAgent`. */
  readonly reason: string;

  constructor(agentId: string, reason: string, options: TroupeErrorOptions = {}) {
    super(`Agent "${agentId}" was terminated: ${reason}`, options);
    this.name = 'AgentTerminatedError';
    this.agentId = agentId;
    this.reason = reason;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is AgentTerminatedError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[TERMINATED_MARKER] === true;
  }
}

/** An agent ran past its strategy's `timeoutMs` (the cause of an {@link AgentFailedError}; code `ABORTED`). */
export class AgentTimeoutError extends AbortError {
  private readonly [TIMEOUT_MARKER] = true;
  readonly agentId: string;
  readonly timeoutMs: number;

  constructor(agentId: string, timeoutMs: number) {
    super(`Agent "${agentId}" timed out after ${timeoutMs} ms`);
    this.name = 'AgentTimeoutError';
    this.agentId = agentId;
    this.timeoutMs = timeoutMs;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is AgentTimeoutError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[TIMEOUT_MARKER] === true;
  }
}

const SESSION_MARKER = Symbol.for('troupe.orchestrator.session-error');

/**
 * The orchestrator's session store failed, or holds data it cannot use (a
 * record of another version, a corrupt message). `operation` says what it
 * was doing, `cause` holds the store's error. Code `STORE_ERROR`. Nothing is
 * deleted or overwritten because of it.
 */
export class OrchestratorSessionError extends TroupeError {
  private readonly [SESSION_MARKER] = true;
  readonly sessionId: string;
  /** What the orchestrator was doing: `load`, `save-agent`, `append-message`, `save-fork`… */
  readonly operation: string;
  /** The agent concerned, when there is one. */
  readonly agentId: string | undefined;

  constructor(sessionId: string, operation: string, message: string, options: TroupeErrorOptions & { agentId?: string } = {}) {
    super('STORE_ERROR', `Orchestrator session "${sessionId}" (${operation}${options.agentId ? `, agent "${options.agentId}"` : ''}): ${message}`, options);
    this.name = 'OrchestratorSessionError';
    this.sessionId = sessionId;
    this.operation = operation;
    this.agentId = options.agentId;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is OrchestratorSessionError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[SESSION_MARKER] === true;
  }
}
