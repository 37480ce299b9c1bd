import { z } from 'zod';
import { messageSchemasOf } from './message-schemas-of';

const schemas = messageSchemasOf(z);

/** Who wrote a message. */
export const messageRoleSchema = schemas.messageRoleSchema;
/** Who wrote a message. */
export type MessageRole = z.infer<typeof messageRoleSchema>;

/**
 * A message stored in a channel (the seeds' "tab"): a chat turn, an agent's
 * reply, or an `[AUTO]` progress note.
 */
export const messageSchema = schemas.messageSchema;
/** A stored message. */
export type Message = z.infer<typeof messageSchema>;

/** What callers pass to `MessageStore.append`: the store fills in id, seq, channel and timestamp. */
export const messageInputSchema = schemas.messageInputSchema;
/** Input to `MessageStore.append`. `role` defaults to `'assistant'`. */
export type MessageInput = z.input<typeof messageInputSchema>;
