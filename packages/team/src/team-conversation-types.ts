import type { SerializedError } from '@troupe/core';
import type { TeamMember } from './team-config-schema';
import type { TeamMemberWorkspace } from './team-member-workspaces';

/**
 * Why a conversation ended:
 * - `human-done`: a human member's message carried `[DONE]`;
 * - `human-end`: a human member sent `/end`;
 * - `stopped`: `coordinator.stop()` was called;
 * - `aborted`: the `abortSignal` given to the run aborted;
 * - `max-turns`: the turn cap (`settings.maxTurns`) was reached;
 * - `token-budget` / `cost-budget`: `settings.budget` was used up;
 * - `member-failed`: an AI member's turn failed and `settings.onMemberError` is `stop`;
 * - `too-many-failures`: `settings.maxConsecutiveFailures` turns failed in a row;
 * - `error`: the run could not go on (a member's configuration is invalid, a human-turn handler threw); `start()` rejects.
 */
export type TeamCompletionReason =
  | 'human-done'
  | 'human-end'
  | 'stopped'
  | 'aborted'
  | 'max-turns'
  | 'token-budget'
  | 'cost-budget'
  | 'member-failed'
  | 'too-many-failures'
  | 'error';

/** Why a member got the turn. */
export type TeamTurnCause = 'start' | 'next-marker' | 'round-robin' | 'fallback';

/**
 * How an AI member's turn failed (`workspace-escaped`: an isolated member wrote into the parent checkout;
 * `invalid-output`: a member with an `outputSchema` gave no valid object, a `StructuredOutputError`).
 */
export type TeamMemberFailureKind = 'failed' | 'timed-out' | 'agent-error' | 'empty-reply' | 'workspace-escaped' | 'invalid-output';

/** Tokens and cost spent by AI turns so far. */
export interface TeamUsage {
  inputTokens: number;
  outputTokens: number;
  /** Sum of `inputTokens + outputTokens`, the figure `budget.maxTokens` is checked against. */
  totalTokens: number;
  /** US dollars, from CLIs that report cost. */
  costUsd: number;
}

/** One entry of the conversation: a member's message or a notice from the coordinator. */
export interface TeamMessage {
  /** The message store id (`<channelId>#<seq>`). */
  id: string;
  /** Position in this conversation, from 1. */
  seq: number;
  /** The turn that produced it (0 for the opening message). */
  turn: number;
  /** `member` for what a member (or the opening speaker) said, `notice` for the coordinator's own notes. */
  kind: 'member' | 'notice';
  /** The speaking member's id; undefined for the opening message of an outside speaker and for notices. */
  speakerId: string | undefined;
  /** Name used in agents' context lines (`name: content`): the member's name, `user` or `system`. */
  speakerName: string;
  /** `ai` or `human` for members; undefined otherwise. */
  speakerType: 'ai' | 'human' | undefined;
  /** The text without routing markers. */
  content: string;
  /** The message carried `[DONE]`. */
  isDone: boolean;
  /** Its `[NEXT]` targets, as written. */
  next: string[];
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** The validated object of a reply by a member with an `outputSchema`; absent otherwise. */
  object?: unknown;
}

/** A failed AI turn, as reported in the conversation. */
export interface TeamMemberFailure {
  turn: number;
  memberId: string;
  kind: TeamMemberFailureKind;
  /** Redacted error. */
  error: SerializedError;
}

/** What a finished conversation returns. */
export interface TeamRunResult {
  /** Conversation id (also in every `team:*` event). */
  conversationId: string;
  reason: TeamCompletionReason;
  /** A sentence saying why, for people. */
  detail: string;
  /** Member turns taken (the opening message is not a turn). */
  turns: number;
  messages: TeamMessage[];
  usage: TeamUsage;
  failures: TeamMemberFailure[];
  /**
   * Isolated members' workspaces (`isolation: 'worktree'`): each one's branch, diff and diffstat. Workspaces with no
   * change are removed (`removed: true`); the others are kept for review or merge. Absent when no member is isolated.
   */
  workspaces?: TeamMemberWorkspace[];
  /** Set when `reason` is `error`. */
  error?: SerializedError;
}

/** What a UI gets when a human member is to speak. */
export interface HumanTurnRequest {
  member: TeamMember;
  turn: number;
  /** The conversation so far. */
  messages: readonly TeamMessage[];
  /** Aborts when the turn is answered otherwise (`injectMessage`) or the conversation ends. */
  signal: AbortSignal;
}

/**
 * Supplies a human member's turn: the text they typed (markers and `/end`
 * allowed). The coordinator calls it whenever a human member is to speak.
 */
export type HumanTurnHandler = (request: HumanTurnRequest) => string | PromiseLike<string>;

/** Where the coordinator is. */
export type TeamConversationState = 'idle' | 'running' | 'waiting-for-human' | 'completed';
