import { describe, expect, it } from 'vitest';
import { ConfigError, MessageStore, messageInputSchema } from '@troupe/core';

/** Inputs of every shape: well-formed ones, and each field missing, mistyped or odd. */
const INPUTS: unknown[] = [
  { content: 'hi' },
  { role: 'user', speaker: 'ann', content: '', metadata: { a: 1, nested: { b: [2] } } },
  { role: 'tool', content: 'x', metadata: {} },
  { role: 'assistant', content: 'x', extra: 'dropped' },
  { role: 'assistant', content: 'x', speaker: undefined, metadata: undefined },
  { content: 'x', metadata: Object.assign(Object.create(null) as object, { a: 1 }) },
  { content: 'x', metadata: { [Symbol('s')]: 1 } },
  { content: 'x', metadata: [] },
  { content: 'x', metadata: null },
  { content: 'x', metadata: new Map() },
  { content: 'x', metadata: JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown },
  { role: 'bogus', content: 'x' },
  { role: 'USER', content: 'x' },
  { content: 1 },
  { speaker: 3, content: 'x' },
  {},
  null,
  'text',
  [],
  new (class Message {
    content = 'x';
  })(),
];

describe('MessageStore.append checks a message as messageInputSchema does (zod only for a malformed one)', () => {
  it('stores what the schema returns, and refuses what it refuses with the same issues', () => {
    for (const input of INPUTS) {
      const parsed = messageInputSchema.safeParse(input);
      const store = new MessageStore(undefined, { now: () => 1 });
      if (parsed.success) {
        const message = store.append('c', input as never);
        expect(message).toStrictEqual({
          id: 'c#1',
          channelId: 'c',
          seq: 1,
          role: parsed.data.role ?? 'assistant',
          content: parsed.data.content,
          timestamp: 1,
          ...(parsed.data.speaker !== undefined ? { speaker: parsed.data.speaker } : {}),
          ...(parsed.data.metadata !== undefined ? { metadata: parsed.data.metadata } : {}),
        });
        // A copy: changing the caller's metadata afterwards does not change the stored message.
        const metadata = (input as { metadata?: Record<string, unknown> }).metadata;
        if (metadata && message.metadata) expect(message.metadata).not.toBe(metadata);
      } else {
        const error = (() => {
          try {
            store.append('c', input as never);
          } catch (caught) {
            return caught;
          }
          return undefined;
        })();
        expect(error, JSON.stringify(input)).toBeInstanceOf(ConfigError);
        // As ConfigError.fromZod words them (a symbol key by its name).
        const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)), message: issue.message }));
        expect((error as ConfigError).issues).toEqual(issues);
        expect(store.list('c')).toEqual([]);
      }
    }
  });
});
