import { TroupeError, type TroupeErrorCode } from '@troupe/core';

/**
 * A team member's agent cannot be started at all: its adapter is unknown, or
 * the adapter rejects the member's settings. Retrying cannot help, so the
 * conversation ends (reason `error`) and `start()` rejects with this error.
 * `code` is the underlying error's code (`ADAPTER_NOT_FOUND`,
 * `CONFIG_INVALID`…); `cause` is that error.
 */
export class TeamMemberError extends TroupeError {
  /** The member whose agent could not start. */
  readonly memberId: string;
  /** The member's `agentConfigId`. */
  readonly agentConfigId: string;

  constructor(memberId: string, agentConfigId: string, cause: unknown) {
    const code: TroupeErrorCode = TroupeError.isInstance(cause) ? cause.code : 'INVALID_STATE';
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(code, `Team member "${memberId}" cannot start its agent "${agentConfigId}": ${reason}`, { cause });
    this.name = 'TeamMemberError';
    this.memberId = memberId;
    this.agentConfigId = agentConfigId;
  }
}

/** Error codes meaning a member's agent is misconfigured rather than failing this once. */
const FATAL_CODES: ReadonlySet<TroupeErrorCode> = new Set(['ADAPTER_NOT_FOUND', 'CONFIG_INVALID', 'INVALID_ARGUMENT', 'CAPABILITY_UNSUPPORTED']);

/** True for errors that no retry of the member's turn can fix. */
export function isMemberConfigurationError(error: unknown): boolean {
  return TroupeError.isInstance(error) && FATAL_CODES.has(error.code);
}
