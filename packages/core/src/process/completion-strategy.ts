import { z } from 'zod';

/**
 * How the runner decides that an agent has finished its turn (seed 001 §1,
 * fixed):
 * - `jsonl`: a stdout line parses as JSON whose `type` is one of
 *   `completionTypes` (Claude `result`, Codex `turn.completed`/`turn.failed`,
 *   Gemini `result`).
 * - `idleTimeout`: no output for `timeoutMs`. The timer is armed as soon as
 *   the message is sent, so a silent agent returns after `timeoutMs`.
 * - `custom`: `detector(output, line)` returns true; called per line with all
 *   output so far and the latest line.
 * - `exit`: the process exits (exit code 0 is success).
 */
export type CompletionStrategy =
  | { type: 'jsonl'; completionTypes: readonly string[] }
  | { type: 'idleTimeout'; timeoutMs: number }
  | { type: 'custom'; detector: (output: string, line: string) => boolean }
  | { type: 'exit' };

/** Schema of the serializable strategies (everything but `custom`), for config files. */
export const serializableCompletionStrategySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('jsonl'), completionTypes: z.array(z.string().min(1)).min(1) }),
  z.object({ type: z.literal('idleTimeout'), timeoutMs: z.number().int().positive() }),
  z.object({ type: z.literal('exit') }),
]);

/** Returns the event `type` of a parsed JSONL line if it is a completion event. */
export function matchesCompletionType(json: unknown, completionTypes: readonly string[]): boolean {
  if (json === null || typeof json !== 'object') return false;
  const type = (json as { type?: unknown }).type;
  return typeof type === 'string' && completionTypes.includes(type);
}
