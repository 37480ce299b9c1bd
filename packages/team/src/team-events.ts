import { defineEventGroup, serializedErrorSchema } from '@troupe/core';
import { z } from 'zod';

const ids = {
  /** The team's `name`. */
  teamName: z.string(),
  /** The message store channel, so `bus.on('team:…', fn, { channelId })` filters by conversation channel. */
  channelId: z.string(),
  conversationId: z.string(),
};

/** A conversation entry as it travels in `team:message`. */
export const teamMessageSchema = z.object({
  id: z.string(),
  seq: z.number().int().positive(),
  turn: z.number().int().nonnegative(),
  kind: z.enum(['member', 'notice']),
  speakerId: z.string().optional(),
  speakerName: z.string(),
  speakerType: z.enum(['ai', 'human']).optional(),
  content: z.string(),
  isDone: z.boolean(),
  next: z.array(z.string()),
  timestamp: z.number(),
  object: z.unknown().optional(),
});

/** Tokens and cost as they travel in `team:completed`. */
export const teamUsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  costUsd: z.number(),
});

/**
 * Payload schemas of the team events (`team:*`), registered with core's
 * event schema registry by {@link registerTeamEvents}.
 */
export const teamEventSchemas = {
  /** The conversation began: its members in round-robin order. Its work is charged to the run `{ kind: 'team', id: conversationId }`. */
  'team:started': z.object({ ...ids, memberIds: z.array(z.string()), maxTurns: z.number().int().positive() }),
  /** A member got the turn (`cause`: why this member). Human turns wait for input after this event. */
  'team:turn-started': z.object({
    ...ids,
    turn: z.number().int().positive(),
    memberId: z.string(),
    memberName: z.string(),
    memberType: z.enum(['ai', 'human']),
    cause: z.enum(['start', 'next-marker', 'round-robin', 'fallback']),
  }),
  /** A message joined the conversation (also appended to the message store's channel). */
  'team:message': z.object({ ...ids, message: teamMessageSchema }),
  /** An AI member's turn failed; `policy` says what the conversation does about it. */
  'team:member-failed': z.object({
    ...ids,
    turn: z.number().int().positive(),
    memberId: z.string(),
    kind: z.enum(['failed', 'timed-out', 'agent-error', 'empty-reply', 'workspace-escaped', 'invalid-output']),
    error: serializedErrorSchema,
    policy: z.enum(['continue', 'stop']),
  }),
  /** The conversation ended, with the reason. */
  'team:completed': z.object({
    ...ids,
    reason: z.enum([
      'human-done',
      'human-end',
      'stopped',
      'aborted',
      'max-turns',
      'token-budget',
      'cost-budget',
      'member-failed',
      'too-many-failures',
      'error',
    ]),
    detail: z.string(),
    turns: z.number().int().nonnegative(),
    messageCount: z.number().int().nonnegative(),
    usage: teamUsageSchema,
    failures: z.number().int().nonnegative(),
    error: serializedErrorSchema.optional(),
  }),
} as const;

/** Payload types of the `team:*` events. */
export type TeamEventPayloads = { [K in keyof typeof teamEventSchemas]: z.infer<(typeof teamEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `team:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends TeamEventPayloads {}
}

/**
 * Registers the `team:*` payload schemas with core's event schema registry
 * (so `parseEvent` validates them across processes). Idempotent, and
 * tolerant of another copy of this package having registered them first.
 * Every coordinator calls it; importing the package has no side effects.
 */
export const registerTeamEvents: () => void = /* @__PURE__ */ defineEventGroup('team', teamEventSchemas);
