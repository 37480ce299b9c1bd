import { InvalidArgumentError } from '@troupe/core';
import { splitCodeSegments } from './team-code-spans';
import type { TeamMember } from './team-config-schema';

/** What {@link MessageRouter.parseMessage} found in a message. */
export interface ParsedTeamMessage {
  /** A `[DONE]` marker was present (outside code). From an AI it means "my reply is complete"; from a human, "end the conversation". */
  isDone: boolean;
  /** The first `[NEXT: …]` target, as written (trimmed, a leading `@` removed). */
  nextMember: string | undefined;
  /** Every `[NEXT: …]` target in order (`[NEXT: a, b]` gives two). */
  nextMembers: string[];
  /** The message with its markers removed (markers inside code are kept verbatim). */
  cleanContent: string;
  /** `end` when the message is the `/end` command. */
  command: 'end' | undefined;
}

/** Options for {@link MessageRouter}. */
export interface MessageRouterOptions {
  /** The members `[NEXT]` targets resolve against and round-robin walks through (sorted by `order` here). */
  members?: readonly TeamMember[];
}

const DONE_MARKER = /\[\s*done\s*\]/gi;
const NEXT_MARKER = /\[\s*next\s*:\s*([^\]\n]*)\]/gi;
const END_COMMAND = /^\/end(?:\s|$)/i;
/** Stands in for a removed marker until the line is tidied; a Unicode noncharacter, absent from real text. */
const HOLE = '\uFFFF';

/**
 * Reads the routing markers in team messages (seed 001): `[DONE]` and
 * `[NEXT: member]`, anywhere in the text, in any case and spacing
 * (`[ next : Max ]`), but never inside fenced code blocks or inline code
 * spans; and resolves targets and round-robin order over the members.
 *
 * @example
 * ```ts
 * const router = new MessageRouter({ members });
 * router.parseMessage('Looks good. [NEXT: sarah] [DONE]');
 * // → { isDone: true, nextMember: 'sarah', nextMembers: ['sarah'], cleanContent: 'Looks good.', command: undefined }
 * ```
 */
export class MessageRouter {
  private readonly members: readonly TeamMember[];

  constructor(options: MessageRouterOptions = {}) {
    this.members = [...(options.members ?? [])].sort((a, b) => a.order - b.order);
  }

  /**
   * Finds the markers in a message and returns it without them.
   *
   * @throws InvalidArgumentError when `text` is not a string.
   */
  parseMessage(text: string): ParsedTeamMessage {
    if (typeof text !== 'string') throw new InvalidArgumentError('text', `expected a string, got ${typeof text}`);
    let isDone = false;
    const nextMembers: string[] = [];
    const pieces = splitCodeSegments(text).map((segment) => {
      if (segment.code) return segment.text;
      return segment.text
        .replace(DONE_MARKER, () => {
          isDone = true;
          return HOLE;
        })
        .replace(NEXT_MARKER, (_marker, targets: string) => {
          for (const target of targets.split(',')) {
            const name = target.trim().replace(/^@/, '').trim();
            if (name !== '') nextMembers.push(name);
          }
          return HOLE;
        });
    });
    return {
      isDone,
      nextMember: nextMembers[0],
      nextMembers,
      cleanContent: tidy(pieces.join('')).trim(),
      command: END_COMMAND.test(text.trim()) ? 'end' : undefined,
    };
  }

  /**
   * The member a `[NEXT]` target names: by id, then name, then display name,
   * ignoring case. `undefined` when none matches.
   */
  resolveMember(target: string): TeamMember | undefined {
    const key = target.trim().replace(/^@/, '').trim().toLowerCase();
    if (key === '') return undefined;
    return (
      this.members.find((member) => member.id.toLowerCase() === key) ??
      this.members.find((member) => member.name.toLowerCase() === key) ??
      this.members.find((member) => member.displayName.toLowerCase() === key)
    );
  }

  /**
   * The member after `memberId` in round-robin order (by `order`, wrapping
   * around); the first member when `memberId` is not a member (an outside
   * speaker, e.g. the user who gave the task).
   */
  nextInOrder(memberId: string | undefined): TeamMember {
    const first = this.members[0];
    if (first === undefined) throw new InvalidArgumentError('members', 'the router has no members to route to');
    const index = this.members.findIndex((member) => member.id === memberId);
    return index < 0 ? first : (this.members[(index + 1) % this.members.length] as TeamMember);
  }
}

/** Removes the marker holes: inside a line they become one space, at a line's edge nothing; a line that held only markers goes. */
function tidy(text: string): string {
  if (!text.includes(HOLE)) return text;
  const out: string[] = [];
  let droppedAfterBlank = false;
  for (const line of text.split('\n')) {
    if (!line.includes(HOLE)) {
      // Removing a marker-only line between two blank lines would leave a double gap.
      if (droppedAfterBlank && line.trim() === '') {
        droppedAfterBlank = false;
        continue;
      }
      droppedAfterBlank = false;
      out.push(line);
      continue;
    }
    const collapsed = line.replace(new RegExp(`${HOLE}(?:[ \\t]*${HOLE})+`, 'g'), HOLE);
    const cleaned = collapsed.replace(new RegExp(`[ \\t]*${HOLE}[ \\t]*`, 'g'), (match, offset: number, whole: string) => {
      const before = whole.slice(0, offset);
      const after = whole.slice(offset + match.length);
      return before.trim() === '' || after.trim() === '' ? '' : ' ';
    });
    if (cleaned.trim() === '') {
      droppedAfterBlank = out.length > 0 && (out[out.length - 1] as string).trim() === '';
      continue;
    }
    droppedAfterBlank = false;
    out.push(cleaned.replace(/[ \t]+$/, ''));
  }
  return out.join('\n');
}
