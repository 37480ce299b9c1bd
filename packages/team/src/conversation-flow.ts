import type { TeamMember } from './team-config-schema';
import type { TeamCompletionReason, TeamMemberFailureKind, TeamTurnCause } from './team-conversation-types';

// What the conversation's run loop passes around between turns, and the texts of its notices.

/** A stop asked for (by `stop()`, or a human's `[DONE]` / `/end`). */
export interface StopRequest {
  reason: Extract<TeamCompletionReason, 'stopped' | 'human-end'>;
  detail: string;
}

/** A human member whose answer the conversation waits for. */
export interface PendingHuman {
  member: TeamMember;
  settle: (text: string) => void;
}

/** Who speaks next, and why. */
export interface NextSpeaker {
  member: TeamMember;
  cause: TeamTurnCause;
}

/** Thrown inside the run loop to end the conversation. */
export class Completion {
  constructor(
    readonly reason: TeamCompletionReason,
    readonly detail: string,
  ) {}
}

/** How a failed member turn is described in the conversation's notice. */
export function describeFailure(kind: TeamMemberFailureKind): string {
  switch (kind) {
    case 'timed-out':
      return 'did not answer in time';
    case 'agent-error':
      return 'reported an error';
    case 'empty-reply':
      return 'gave an empty reply';
    case 'failed':
      return 'failed';
    case 'workspace-escaped':
      return 'wrote outside its workspace';
    case 'invalid-output':
      return 'gave no valid typed result';
  }
}

/** The notice for a `[NEXT]` naming no member. */
export function unknownTargets(names: readonly string[]): string {
  return `No member named ${names.map((name) => JSON.stringify(name)).join(', ')} in [NEXT]`;
}
