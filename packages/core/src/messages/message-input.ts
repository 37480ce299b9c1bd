import { ConfigError } from '../errors/config-error';
import { requireZod } from '../util/require-zod';
import type { MessageInput, MessageRole } from './message-schema';
import { messageSchemasOf } from './message-schemas-of';

/** A message input once checked: what `messageInputSchema` would return. */
export interface CheckedMessageInput {
  role?: MessageRole;
  speaker?: string;
  content: string;
  metadata?: Record<string, unknown>;
}

const ROLES: ReadonlySet<unknown> = new Set<MessageRole>(['user', 'assistant', 'system', 'tool']);

/** An object zod takes as plain (Object.prototype or no prototype, no own `constructor`). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.hasOwn(value, 'constructor')) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** `metadata` copied as zod's `z.record(z.string(), z.unknown())` returns it, or undefined when zod must judge it. */
function plainRecord(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = value[key];
  return copy;
}

/**
 * Checks a `MessageStore.append` input as `messageInputSchema` does, without
 * loading zod for well-formed input: a plain check first, and zod (loaded
 * then) for anything else, so a malformed message gets zod's issues.
 *
 * @throws ConfigError naming each invalid field.
 */
export function checkMessageInput(channelId: string, input: MessageInput): CheckedMessageInput {
  if (isPlainObject(input)) {
    const { role, speaker, content, metadata } = input;
    const record = metadata === undefined ? undefined : plainRecord(metadata);
    if ((role === undefined || ROLES.has(role)) && (speaker === undefined || typeof speaker === 'string') && typeof content === 'string' && (metadata === undefined || record)) {
      return {
        content,
        ...(role !== undefined ? { role } : {}),
        ...(speaker !== undefined ? { speaker } : {}),
        ...(record !== undefined ? { metadata: record } : {}),
      };
    }
  }
  const parsed = messageSchemasOf(requireZod()).messageInputSchema.safeParse(input);
  if (!parsed.success) throw ConfigError.fromZod(`message for channel "${channelId}"`, parsed.error);
  return parsed.data;
}
