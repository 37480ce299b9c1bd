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
 * Maps one `shout-agent` stdout line (already JSON-parsed by the runner, or
 * `undefined` for non-JSON) to Troupe stream parts: `text` → `text-delta`,
 * `error` → `error`, `done` → `turn-end`.
 *
 * @example
 * ```ts
 * parseShoutLine({ type: 'text', text: 'HEAR ' }); // [{ type: 'text-delta', text: 'HEAR ' }]
 * ```
 */
export function parseShoutLine(json: unknown): AgentStreamPart[] {
  const parsed = shoutLineSchema.safeParse(json);
  if (!parsed.success) return [];
  const line = parsed.data;
  switch (line.type) {
    case 'text':
      return [{ type: 'text-delta', text: line.text }];
    case 'error':
      return [{ type: 'error', message: line.message }];
    case 'done':
      return [{ type: 'turn-end', text: line.answer, isError: line.isError ?? false, stopReason: line.isError ? 'error' : 'done' }];
  }
}

/** The final answer in a turn's raw stdout: the last `done` line, else the streamed words joined. */
export function parseShoutResponse(rawOutput: string): string {
  const texts: string[] = [];
  let answer: string | undefined;
  for (const text of rawOutput.split('\n')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    for (const part of parseShoutLine(json)) {
      if (part.type === 'text-delta') texts.push(part.text);
      if (part.type === 'turn-end') answer = part.isError ? '' : part.text;
    }
  }
  return answer ?? texts.join('');
}
