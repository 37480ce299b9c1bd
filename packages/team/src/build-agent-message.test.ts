import { describe, expect, it } from 'vitest';
import { buildAgentMessage, selectAgentContext } from './build-agent-message';
import type { TeamMessage } from './team-conversation-types';

let seq = 0;
function entry(speakerName: string, content: string, kind: TeamMessage['kind'] = 'member'): TeamMessage {
  seq++;
  return {
    id: `team#${seq}`,
    seq,
    turn: seq - 1,
    kind,
    speakerId: kind === 'member' ? speakerName.toLowerCase() : undefined,
    speakerName,
    speakerType: kind === 'member' ? 'ai' : undefined,
    content,
    isDone: false,
    next: [],
    timestamp: 0,
  };
}

const conversation = [
  entry('user', 'Design the /users endpoint'),
  entry('Max', 'GET /users?page=1'),
  entry('system', 'No member named "zed" in [NEXT]', 'notice'),
  entry('Sarah', 'Add a limit parameter'),
  entry('Max', 'Agreed: limit defaults to 20'),
  entry('Sarah', 'Ship it'),
];

describe('buildAgentMessage', () => {
  it('writes [CONTEXT] as speaker: content lines, a blank line, then [MESSAGE], and no [SYSTEM]', () => {
    const text = buildAgentMessage({
      context: [
        { speakerName: 'user', content: 'Design the /users endpoint' },
        { speakerName: 'Max', content: 'GET /users?page=1\nwith cursor later' },
      ],
      message: { speakerName: 'Sarah', content: 'Add a limit parameter [NEXT: max]' },
    });
    expect(text).toMatchInlineSnapshot(`
      "[CONTEXT]
      user: Design the /users endpoint
      Max: GET /users?page=1
      with cursor later

      [MESSAGE]
      Sarah: Add a limit parameter [NEXT: max]"
    `);
    expect(text).not.toContain('[SYSTEM]');
  });

  it('leaves out [CONTEXT] when there is none', () => {
    expect(buildAgentMessage({ context: [], message: { speakerName: 'user', content: 'Hi' } })).toBe('[MESSAGE]\nuser: Hi');
  });

  it('rejects malformed input clearly', () => {
    expect(() => buildAgentMessage({ context: 'x' } as never)).toThrow('Invalid argument "input": expected { context: [{ speakerName, content }…], message: { speakerName, content } }');
  });
});

describe('selectAgentContext', () => {
  it('answers the latest member message with the N member messages before it (notices left out)', () => {
    const { context, message } = selectAgentContext(conversation, { contextMessageCount: 2 });
    expect(message?.content).toBe('Ship it');
    expect(context.map((m) => `${m.speakerName}: ${m.content}`)).toEqual(['Sarah: Add a limit parameter', 'Max: Agreed: limit defaults to 20']);
    expect(selectAgentContext(conversation, { contextMessageCount: 10 }).context).toHaveLength(4);
    expect(selectAgentContext(conversation, { contextMessageCount: 0 }).context).toEqual([]);
  });

  it('for a resumed session sends only what the member has not seen, whatever the window', () => {
    const maxFirstReply = conversation[1] as TeamMessage;
    const { context, message } = selectAgentContext(conversation, { contextMessageCount: 1, seenThroughSeq: maxFirstReply.seq });
    expect(message?.content).toBe('Ship it');
    expect(context.map((m) => m.content)).toEqual(['Add a limit parameter', 'Agreed: limit defaults to 20']);
    const lastSeen = conversation[4] as TeamMessage;
    expect(selectAgentContext(conversation, { contextMessageCount: 5, seenThroughSeq: lastSeen.seq }).context).toEqual([]);
  });

  it('has nothing to answer in an empty conversation', () => {
    expect(selectAgentContext([], { contextMessageCount: 5 })).toEqual({ context: [], message: undefined });
  });

  it('visits only the messages it sends, so a turn costs the same at turn 20,000 as at turn 100', () => {
    // 20,000 messages: members talking, with a notice every 10 messages.
    const long: TeamMessage[] = [];
    for (let i = 0; i < 20_000; i++) long.push(entry(i % 10 === 9 ? 'system' : i % 2 === 0 ? 'Max' : 'Sarah', `message ${i}`, i % 10 === 9 ? 'notice' : 'member'));
    let reads = 0;
    const counted = new Proxy(long, {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver);
      },
    });
    const windowed = selectAgentContext(counted, { contextMessageCount: 4 });
    expect(windowed.message?.content).toBe('message 19998');
    expect(windowed.context.map((m) => m.content)).toEqual(['message 19994', 'message 19995', 'message 19996', 'message 19997']);
    expect(reads).toBeLessThanOrEqual(12);
    reads = 0;
    // A resumed member whose position is message 19992: only what came after it is visited (a notice included).
    const seenThroughSeq = (long[19992] as TeamMessage).seq;
    const resumed = selectAgentContext(counted, { contextMessageCount: 2, seenThroughSeq });
    expect(resumed.context.map((m) => m.content)).toEqual(['message 19993', 'message 19994', 'message 19995', 'message 19996', 'message 19997']);
    expect(reads).toBeLessThanOrEqual(12);
  });
});
