import { z } from 'zod';

/**
 * How the runner decides that an agent has finished its turn (seed 001 §1,
 * fixed):
 * - `turn-end`: the adapter's own parser decides. The turn ends at the
 *   stdout line whose parts hold the adapter's `turn-end` part; the built-in
 *   adapters (Claude, Codex, Gemini) use it, so each CLI's completion event
 *   is named in one place, its adapter's events file. At the process level
 *   (`runProcess`, `ProcessManager`) the turn ends at the line for which
 *   `onLine` returns `true` (what `AgentManager` does with the parts).
 * - `jsonl`: a stdout line parses as JSON whose `type` is one of
 *   `completionTypes` (for adapters whose parser does not end turns, and
 *   for registry entries that name their CLI's completion events).
 * - `idleTimeout`: no output for `timeoutMs`. The timer is armed as soon as
 *   the message is sent, so a silent agent returns after `timeoutMs`.
 * - `custom`: `detector(output, line)` returns true; called per line with all
 *   output so far and the latest line.
 * - `exit`: the process exits (exit code 0 is success).
 */
export type CompletionStrategy =
  | { type: 'turn-end' }
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
