import { createInterface } from 'node:readline';
import { createInterface as createPromptInterface } from 'node:readline/promises';
import type { HumanTurnHandler } from '@troupe/team';

/** What the offline human says when stdin is not a terminal and gives no lines. */
export const SCRIPTED_HUMAN_LINES: readonly string[] = ['Sounds right. Ada, please sum up the design. [NEXT: ada]', '/end'];

/** A human-turn handler and a way to release stdin afterwards. */
export interface HumanInput {
  onHumanTurn: HumanTurnHandler;
  close(): void;
}

/**
 * Where the human member's lines come from: the terminal (a prompt) when
 * stdin is a TTY; otherwise the lines piped on stdin, or, when stdin gives
 * none, {@link SCRIPTED_HUMAN_LINES}. After the last line, `/end`.
 */
export function humanInput(write: (text: string) => void, onInterrupt: () => void): HumanInput {
  if (process.stdin.isTTY) {
    const prompt = createPromptInterface({ input: process.stdin, output: process.stdout });
    // At the prompt, Ctrl+C reaches readline rather than the process.
    prompt.on('SIGINT', onInterrupt);
    return {
      onHumanTurn: ({ member, signal }) => prompt.question(`${member.displayName}> `, { signal }),
      close: () => prompt.close(),
    };
  }
  const reader = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const lines = reader[Symbol.asyncIterator]();
  let readAny = false;
  let scripted: string[] | undefined;
  return {
    async onHumanTurn({ member }) {
      let text: string;
      if (scripted === undefined) {
        const next = await lines.next();
        if (!next.done) readAny = true;
        else if (!readAny) scripted = [...SCRIPTED_HUMAN_LINES];
        text = next.done ? (scripted?.shift() ?? '/end') : next.value;
      } else text = scripted.shift() ?? '/end';
      write(`${member.displayName}> ${text}\n`);
      return text;
    },
    close: () => reader.close(),
  };
}
