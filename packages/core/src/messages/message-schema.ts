import { z } from 'zod';

/** Who wrote a message. */
export const messageRoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);
/** Who wrote a message. */
export type MessageRole = z.infer<typeof messageRoleSchema>;

/**
 * A message stored in a channel (the seeds' "tab"): a chat turn, an agent's
 * reply, or an `[AUTO]` progress note.
 */
export const messageSchema = z.object({
  /** Unique id, assigned by the store (`<channelId>#<seq>`). */
  id: z.string(),
  /** Channel the message belongs to. */
  channelId: z.string().min(1),
  /** Position in the channel, starting at 1, strictly increasing. */
  seq: z.number().int().positive(),
  role: messageRoleSchema,
  /** Display name of the author (member, agent id, `looper`…). */
  speaker: z.string().optional(),
  content: z.string(),
  /** Milliseconds since the epoch when the store accepted it. */
  timestamp: z.number(),
  /** Free-form, JSON-serializable extra data. */
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/** A stored message. */
export type Message = z.infer<typeof messageSchema>;

/** What callers pass to `MessageStore.append`: the store fills in id, seq, channel and timestamp. */
export const messageInputSchema = messageSchema
  .pick({ role: true, speaker: true, content: true, metadata: true })
  .partial({ role: true });
/** Input to `MessageStore.append`. `role` defaults to `'assistant'`. */
export type MessageInput = z.input<typeof messageInputSchema>;
