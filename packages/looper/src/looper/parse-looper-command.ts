import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { looperCommandSchema } from './looper-command-schema';
import { looperCommandSchemaOf } from './looper-command-schema-of';
import { englishLooperTexts, englishWrongType, type LooperCommandTexts, type LooperTexts } from './looper-texts';

/** One Looper command (see `looperCommandSchema`). */
export type LooperCommand = z.infer<typeof looperCommandSchema>;

/** The command types, in the order the seed lists them. */
export const LOOPER_COMMAND_TYPES = ['start', 'stop', 'status', 'add_pending', 'merge'] as const;

/** Result of {@link parseLooperCommand}: a command, or a message saying what was wrong. */
export type ParseLooperCommandResult = { success: true; command: LooperCommand } | { success: false; error: string };

/** How to write commands, appended to every parse error (English; each language's is in its {@link LooperTexts}). */
export const LOOPER_COMMAND_USAGE = englishLooperTexts.command.usage;

/**
 * Parses a Looper command. Input whose first non-blank character is `{` is
 * JSON and must match `looperCommandSchema`; anything else is a
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
  const command = plainCommand(type as LooperCommand['type'], json as Record<string, unknown>);
  if (command) return { success: true, command };
  // Only a refused command loads zod, to say what is wrong the way the schema words it.
  const zod = (createRequire(import.meta.url)('zod') as typeof import('zod')).z;
  const parsed = looperCommandSchemaOf(zod).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path ?? [];
    const field = path.length ? path.join('.') : undefined;
    // zod 4 does not report the input it refused: look at the command itself, so a field that is there but of
    // the wrong type is called wrong, not missing.
    const value = valueAt(json, path);
    if (issue?.code === 'invalid_type' && (path.length === 0 || value === undefined)) return { success: false, error: texts.badField(type, field, 'required', issue.message) };
    const detail = issue?.code === 'invalid_type' ? (texts.wrongType ?? englishWrongType)(issue.expected, value) : (issue?.message ?? 'is invalid');
    return { success: false, error: texts.badField(type, field, 'invalid', detail) };
  }
  return { success: true, command: parsed.data };
}

/** The value at `path` in parsed JSON (own properties only), undefined when there is none. */
function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The command `looperCommandSchema` makes of a well-formed one (known fields
 * only, the task trimmed), checked without zod; undefined when a field is
 * missing or wrong, for the schema to say which.
 */
function plainCommand(type: LooperCommand['type'], json: Record<string, unknown>): LooperCommand | undefined {
  switch (type) {
    case 'start':
    case 'add_pending': {
      const task = typeof json.task === 'string' ? json.task.trim() : '';
      return task === '' ? undefined : { type, task };
    }
    case 'stop': {
      const { now } = json;
      if (now === undefined) return { type };
      return typeof now === 'boolean' ? { type, now } : undefined;
    }
    case 'status':
      return { type };
    case 'merge': {
      const { into, strategy } = json;
      const target = typeof into === 'string' ? into.trim() : undefined;
      if (into !== undefined && !target) return undefined;
      if (strategy !== undefined && strategy !== 'merge' && strategy !== 'rebase' && strategy !== 'squash') return undefined;
      return { type, ...(target ? { into: target } : {}), ...(strategy ? { strategy } : {}) };
    }
  }
}
