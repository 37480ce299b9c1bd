import { InvalidArgumentError } from '@troupe/core';
import type { TeamMessage } from './team-conversation-types';

/** A line of conversation as an agent sees it. */
export type AgentMessageLine = Pick<TeamMessage, 'speakerName' | 'content'>;

/** Input of {@link buildAgentMessage}. */
export interface BuildAgentMessageInput {
  /** Earlier messages for the `[CONTEXT]` section, oldest first (none: no section). */
  context: readonly AgentMessageLine[];
  /** The message the member is to answer. */
  message: AgentMessageLine;
}

/**
 * Builds what an AI member receives for its turn (seed 001 §7): a
 * `[CONTEXT]` section with earlier messages as `speaker: content`, a blank
 * line, then `[MESSAGE]` with the message to answer. There is no `[SYSTEM]`
 * section: the adapter delivers the member's system prompt itself, once (a
 * CLI flag, a file, or prepended by `prepareMessage`), so it is never doubled.
 *
 * @example
 * ```ts
 * buildAgentMessage({
 *   context: [{ speakerName: 'user', content: 'Design the /users endpoint' }],
 *   message: { speakerName: 'Max', content: 'GET /users?page=1. Sarah? [NEXT: sarah]' },
 * });
 * // "[CONTEXT]\nuser: Design the /users endpoint\n\n[MESSAGE]\nMax: GET /users?page=1. Sarah? [NEXT: sarah]"
 * ```
 */
export function buildAgentMessage(input: BuildAgentMessageInput): string {
  if (input === null || typeof input !== 'object' || !Array.isArray(input.context) || typeof input.message?.content !== 'string') {
    throw new InvalidArgumentError('input', 'expected { context: [{ speakerName, content }…], message: { speakerName, content } }');
  }
  const parts: string[] = [];
  if (input.context.length > 0) {
    parts.push('[CONTEXT]');
    for (const line of input.context) parts.push(`${line.speakerName}: ${line.content}`);
    parts.push('');
  }
  parts.push('[MESSAGE]', `${input.message.speakerName}: ${input.message.content}`);
  return parts.join('\n');
}

/** Options for {@link selectAgentContext}. */
export interface SelectAgentContextOptions {
  /** Window size: how many earlier messages to show a member whose session cannot be resumed. */
  contextMessageCount: number;
  /**
   * For a member whose CLI session resumes: the `seq` of the last message it
   * saw. Only later messages are sent (all of them, whatever the window), since
   * the CLI already holds the rest.
   */
  seenThroughSeq?: number;
}

/**
 * Picks, from a conversation, the message a member answers (the latest
 * member message) and the context to send with it: the last
 * `contextMessageCount` member messages before it, or with `seenThroughSeq`,
 * only those the member has not seen. Coordinator notices are never sent to
 * agents.
 *
 * It reads the conversation backwards from its end (messages are in `seq`
 * order) and stops once the window is full or it reaches the member's
 * position (`seenThroughSeq`), so a turn costs the same at turn 20,000 as at
 * turn 100: only what is sent is visited.
 */
export function selectAgentContext(
  conversation: readonly TeamMessage[],
  options: SelectAgentContextOptions,
): { context: TeamMessage[]; message: TeamMessage | undefined } {
  let index = conversation.length - 1;
  while (index >= 0 && (conversation[index] as TeamMessage).kind !== 'member') index--;
  const message = conversation[index];
  if (message === undefined) return { context: [], message };
  const seen = options.seenThroughSeq;
  const count = seen !== undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(options.contextMessageCount));
  const context: TeamMessage[] = [];
  for (index--; index >= 0 && context.length < count; index--) {
    const entry = conversation[index] as TeamMessage;
    if (seen !== undefined && entry.seq <= seen) break;
    if (entry.kind === 'member') context.push(entry);
  }
  return { context: context.reverse(), message };
}
