import { describe, expect, it } from 'vitest';
import { parseTeamConfig, resolveTeamMembers } from './load-team-config';
import { MessageRouter } from './team-message-router';
import { aiMember, humanMember } from './testing/team-test-kit';

const members = resolveTeamMembers(
  parseTeamConfig({
    name: 'routing',
    members: [
      aiMember('carol', 3, 'claude', { name: 'Carol King', displayName: 'Carol (QA)' }),
      aiMember('alice', 1, 'claude'),
      humanMember('bob', 2),
    ],
  }),
);
const router = new MessageRouter({ members });

describe('MessageRouter.parseMessage', () => {
  it.each([
    ['All set. [DONE]', 'All set.'],
    ['[DONE] All set.', 'All set.'],
    ['All [done] set.', 'All set.'],
    ['All set.\n[ Done ]', 'All set.'],
    ['All set. [  DONE]', 'All set.'],
  ])('finds [DONE] anywhere, in any case and spacing: %j', (text, clean) => {
    expect(router.parseMessage(text)).toEqual({ isDone: true, nextMember: undefined, nextMembers: [], cleanContent: clean, command: undefined });
  });

  it.each([
    ['Over to you [NEXT: bob]', 'bob'],
    ['[next:Bob] Over to you', 'Bob'],
    ['Over [ Next : Carol King ] to you', 'Carol King'],
    ['Over to you [NEXT: @alice]', 'alice'],
  ])('finds [NEXT: …] in any case and spacing: %j', (text, target) => {
    const parsed = router.parseMessage(text);
    expect(parsed.nextMember).toBe(target);
    expect(parsed.cleanContent).toBe('Over to you');
    expect(parsed.isDone).toBe(false);
  });

  it('reads several targets and both markers together', () => {
    expect(router.parseMessage('Reviewed.\n\n[NEXT: bob, carol]\n[DONE]\n\nThanks.')).toEqual({
      isDone: true,
      nextMember: 'bob',
      nextMembers: ['bob', 'carol'],
      cleanContent: 'Reviewed.\n\nThanks.',
      command: undefined,
    });
  });

  it('ignores markers inside fenced code blocks and inline code, and keeps the code verbatim', () => {
    const text = [
      'Use the marker like this:',
      '```md',
      'Reply, then write [DONE] and [NEXT: bob]',
      '```',
      '~~~',
      '[NEXT: carol]',
      '~~~',
      'or inline: `[DONE]` and ``say `[NEXT: bob]` ``.',
    ].join('\n');
    expect(router.parseMessage(text)).toEqual({ isDone: false, nextMember: undefined, nextMembers: [], cleanContent: text, command: undefined });
  });

  it('still finds markers after a closed fence, and treats an unclosed fence as code to the end', () => {
    const closed = router.parseMessage('```\n[DONE]\n```\nDone with the code. [NEXT: bob]');
    expect(closed).toMatchObject({ isDone: false, nextMembers: ['bob'], cleanContent: '```\n[DONE]\n```\nDone with the code.' });
    expect(router.parseMessage('```js\nconst done = "[DONE]";\n')).toMatchObject({ isDone: false, cleanContent: '```js\nconst done = "[DONE]";' });
  });

  it('treats an unmatched backtick as text', () => {
    expect(router.parseMessage("Don't ` worry [DONE]")).toMatchObject({ isDone: true, cleanContent: "Don't ` worry" });
  });

  it('recognizes /end as a command, not inside a sentence', () => {
    expect(router.parseMessage('  /END ').command).toBe('end');
    expect(router.parseMessage('/end thanks all').command).toBe('end');
    expect(router.parseMessage('type /end to stop').command).toBeUndefined();
    expect(router.parseMessage('/endpoint is ready').command).toBeUndefined();
  });

  it('rejects a non-string message with a clear error', () => {
    expect(() => router.parseMessage(42 as unknown as string)).toThrow('Invalid argument "text": expected a string, got number');
  });
});

describe('MessageRouter routing helpers', () => {
  it('resolves a target by id, name or display name, ignoring case', () => {
    expect(router.resolveMember('CAROL')?.id).toBe('carol');
    expect(router.resolveMember('carol king')?.id).toBe('carol');
    expect(router.resolveMember('Carol (QA)')?.id).toBe('carol');
    expect(router.resolveMember('@Bob')?.id).toBe('bob');
    expect(router.resolveMember('zed')).toBeUndefined();
  });

  it('walks members by order, wrapping around, and starts outside speakers at the first', () => {
    expect(router.nextInOrder('alice').id).toBe('bob');
    expect(router.nextInOrder('bob').id).toBe('carol');
    expect(router.nextInOrder('carol').id).toBe('alice');
    expect(router.nextInOrder(undefined).id).toBe('alice');
  });
});
