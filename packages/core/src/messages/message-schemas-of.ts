import type { z as Zod } from 'zod';

/**
 * The message schemas built with the given zod: message-schema.ts exports
 * them built with the `zod` module core imports; {@link checkMessageInput}
 * builds them only to word the error of a malformed message.
 */
export function messageSchemasOf(z: typeof Zod) {
  const messageRoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);
  const messageSchema = z.object({
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
  const messageInputSchema = messageSchema.pick({ role: true, speaker: true, content: true, metadata: true }).partial({ role: true });
  return { messageRoleSchema, messageSchema, messageInputSchema };
}
