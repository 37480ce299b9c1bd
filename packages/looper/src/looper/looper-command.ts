import { z } from 'zod';
import { englishLooperTexts, type LooperCommandTexts, type LooperTexts } from './looper-texts';

const taskSchema = z.string().trim().min(1, 'must not be empty');

/**
 * The Looper's commands (seed 000 §2), as JSON. Plain text that is not JSON
 * is a `start` with that text as the task.
 */
export const looperCommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), task: taskSchema }),
  /** `now: true` cancels the step in progress; by default the current iteration finishes (Review and JUDGE run). */
  z.object({ type: z.literal('stop'), now: z.boolean().optional() }),
  z.object({ type: z.literal('status') }),
  z.object({ type: z.literal('add_pending'), task: taskSchema }),
]);

/** One Looper command. */
export type LooperCommand = z.infer<typeof looperCommandSchema>;

/** The command types, in the order the seed lists them. */
export const LOOPER_COMMAND_TYPES = ['start', 'stop', 'status', 'add_pending'] as const;

/** Result of {@link parseLooperCommand}: a command, or a message saying what was wrong. */
export type ParseLooperCommandResult = { success: true; command: LooperCommand } | { success: false; error: string };

/** How to write commands, appended to every parse error (English; each language's is in its {@link LooperTexts}). */
export const LOOPER_COMMAND_USAGE = englishLooperTexts.command.usage;

/**
 * Parses a Looper command. Input whose first non-blank character is `{` is
 * JSON and must match {@link looperCommandSchema}; anything else is a
 * `start` whose task is the trimmed text. Never throws. Errors are worded by
 * `texts` (English by default; see {@link LooperTexts}).
 *
 * @example
 * ```ts
 * parseLooperCommand('{"type":"add_pending","task":"Add logging"}'); // { success: true, command: { type: 'add_pending', task: 'Add logging' } }
 * parseLooperCommand('Optimize the login page');                     // { success: true, command: { type: 'start', task: 'Optimize the login page' } }
 * parseLooperCommand('{"type":"pause"}');                            // { success: false, error: 'Unknown command type "pause"; …' }
 * ```
 */
export function parseLooperCommand(input: unknown, texts: LooperCommandTexts = englishLooperTexts.command): ParseLooperCommandResult {
  if (typeof input !== 'string') return { success: false, error: texts.notString(input === null ? 'null' : typeof input) };
  const text = input.trim();
  if (text === '') return { success: false, error: texts.empty };
  if (!text.startsWith('{')) return { success: true, command: { type: 'start', task: text } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { success: false, error: texts.malformedJson((error as Error).message) };
  }
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string') return { success: false, error: texts.noType };
  if (!(LOOPER_COMMAND_TYPES as readonly string[]).includes(type)) return { success: false, error: texts.unknownType(type, LOOPER_COMMAND_TYPES) };
  const parsed = looperCommandSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : undefined;
    const required = issue?.code === 'invalid_type' && issue.input === undefined;
    return { success: false, error: texts.badField(type, field, required ? 'required' : 'invalid', issue?.message ?? 'is invalid') };
  }
  return { success: true, command: parsed.data };
}
