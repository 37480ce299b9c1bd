import type { AgentStreamPart } from '@troupe/core';
import { z } from 'zod';

/**
 * The JSON lines `shout-agent` prints, validated with zod: an adapter never
 * trusts a CLI's output shape. Anything else parses to no part.
 */
export const shoutLineSchema = z.discriminatedUnion('type', [
  /** One streamed word of the answer. */
  z.object({ type: z.literal('text'), text: z.string() }),
  /** The CLI's own failure report (e.g. nothing on stdin). */
  z.object({ type: z.literal('error'), message: z.string() }),
  /** The turn is over: the whole answer, and whether it failed. */
  z.object({
    type: z.literal('done'),
    answer: z.string(),
    words: z.number().int().nonnegative().optional(),
    isError: z.boolean().optional(),
  }),
]);
/** One `shout-agent` output line. */
export type ShoutLine = z.infer<typeof shoutLineSchema>;

/**
 * What the adapter remembers while one turn runs. The runner asks for a fresh
 * one at the start of each turn (the adapter's `startTurn`) and hands it back
 * with every line of that turn (`context.state`), so the adapter itself keeps
 * no state and one adapter can serve several members at once.
 */
export interface ShoutTurnState {
  /** Words streamed so far in this turn. */
  streamedWords: number;
  /** The last error the CLI printed in this turn. */
  lastError: string | undefined;
}

/** A fresh {@link ShoutTurnState}: the adapter's turn-start hook. */
export function startShoutTurn(): ShoutTurnState {
  return { streamedWords: 0, lastError: undefined };
}

/**
 * Maps one `shout-agent` stdout line (already JSON-parsed by the runner, or
 * `undefined` for non-JSON) to Troupe stream parts: `text` → `text-delta`,
 * `error` → `error`, `done` → `turn-end`. With the turn's state it also
 * checks the `done` line's word count against the words streamed (an `error`
 * part when they differ), and gives a failed turn's `turn-end` the CLI's
 * error text. Without one (a line read alone), each line stands by itself.
 *
 * @example
 * ```ts
 * parseShoutLine({ type: 'text', text: 'HEAR ' }); // [{ type: 'text-delta', text: 'HEAR ' }]
 * ```
 */
export function parseShoutLine(json: unknown, turn?: ShoutTurnState): AgentStreamPart[] {
  const parsed = shoutLineSchema.safeParse(json);
  if (!parsed.success) return [];
  const line = parsed.data;
  switch (line.type) {
    case 'text':
      if (turn) turn.streamedWords++;
      return [{ type: 'text-delta', text: line.text }];
    case 'error':
      if (turn) turn.lastError = line.message;
      return [{ type: 'error', message: line.message }];
    case 'done': {
      const parts: AgentStreamPart[] = [];
      if (turn && !line.isError && line.words !== undefined && line.words !== turn.streamedWords) {
        parts.push({ type: 'error', message: `shout-agent announced ${line.words} words but streamed ${turn.streamedWords}` });
      }
      const text = line.isError ? line.answer || (turn?.lastError ?? '') : line.answer;
      parts.push({ type: 'turn-end', text, isError: line.isError ?? false, stopReason: line.isError ? 'error' : 'done' });
      return parts;
    }
  }
}

/** The final answer in a turn's raw stdout: the last `done` line, else the streamed words joined. */
export function parseShoutResponse(rawOutput: string): string {
  const texts: string[] = [];
  const turn = startShoutTurn();
  let answer: string | undefined;
  for (const text of rawOutput.split('\n')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    for (const part of parseShoutLine(json, turn)) {
      if (part.type === 'text-delta') texts.push(part.text);
      if (part.type === 'turn-end') answer = part.isError ? '' : part.text;
    }
  }
  return answer ?? texts.join('');
}
