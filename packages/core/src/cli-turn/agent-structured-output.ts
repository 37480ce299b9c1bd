import { z } from 'zod';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { StructuredOutputError, type StructuredOutputFailure } from '../errors/structured-output-error';
import type { ModelOutputIssue } from '../model/model-error';
import { parseJsonText } from '../model-runtime/parse-json-text';
import { jsonInstruction, objectRepairMessage, validateObjectValue } from '../model-runtime/validate-object-text';
import { isZodSchema, toJsonSchema } from '../tools/tool-json-schema';
import type { AgentAdapter } from '../adapter/v1/agent-adapter-v1';
import { EMPTY_ANSWER_STOP_REASON, type AgentStreamPart, type AgentUsage } from '../adapter/v1/agent-stream-part';
import type { AgentError } from '../errors/agent-error';
import type { JsonSchema } from '../model/v1/chat-message';

/** What a typed CLI turn's answer must match: a zod 4 schema (typed result) or a JSON Schema object (`unknown` result). */
export type AgentOutputSchema = z.ZodType | JsonSchema;

/** The object type a typed turn returns for a schema: zod's output type, `unknown` for a JSON Schema. */
export type AgentOutputOf<TSchema> = TSchema extends z.ZodType ? z.output<TSchema> : unknown;

/** A schema checked once: what the CLI is shown, and what its answer is validated with. */
export interface ResolvedOutputSchema {
  jsonSchema: JsonSchema;
  zod: z.ZodType;
}

/**
 * Checks a `schema` option: a zod schema is converted to JSON Schema (for the
 * CLI) with the converter `generateObject` uses; a JSON Schema object is
 * turned into a zod validator (`z.fromJSONSchema`).
 *
 * @throws InvalidArgumentError naming `options.schema` for anything else, or a schema neither way can express.
 */
export function resolveOutputSchema(schema: unknown): ResolvedOutputSchema {
  if (isZodSchema(schema)) return { jsonSchema: toJsonSchema(schema, 'options.schema'), zod: schema };
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidArgumentError('options.schema', `expected a zod schema or a JSON Schema object, got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema}`);
  }
  try {
    return { jsonSchema: schema as JsonSchema, zod: z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) };
  } catch (error) {
    throw new InvalidArgumentError('options.schema', `is not a JSON Schema zod can validate with: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** True when a JSON Schema accepts `null`. */
function acceptsNull(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return schema === true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null')) || node.nullable === true) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (node.const === null) return true;
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(node[key]) && (node[key] as unknown[]).some(acceptsNull)) return true;
  return Object.keys(node).length === 0; // {} accepts anything
}

/**
 * `null` back to absent for the optional fields of `schema` that do not
 * accept `null`: a CLI whose strict mode makes every field required (Codex)
 * sends an optional field as `null`. Other values are returned as they are.
 */
export function dropNullOptionals(value: unknown, schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || value === null || typeof value !== 'object') return value;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(value)) return node.items === undefined ? value : value.map((item) => dropNullOptionals(item, node.items));
  const properties = node.properties as Record<string, unknown> | undefined;
  if (properties === undefined || typeof properties !== 'object') return value;
  const required = new Set(Array.isArray(node.required) ? (node.required as unknown[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const fieldSchema = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (field === null && fieldSchema !== undefined && !required.has(key) && !acceptsNull(fieldSchema)) continue;
    out[key] = fieldSchema === undefined ? field : dropNullOptionals(field, fieldSchema);
  }
  return out;
}

/** The turn a typed result is read from: its answer text, parts and usage (as `AgentTurnResult` holds them). */
export interface StructuredTurn {
  text: string;
  parts: readonly AgentStreamPart[];
  usage?: AgentUsage | undefined;
}

/**
 * The usage of several turns added up (tokens and cost; a field none of them reported stays absent), or
 * `undefined` when none reported any: what a typed turn with a repair turn spent in all.
 */
export function sumAgentUsage(usages: readonly (AgentUsage | undefined)[]): AgentUsage | undefined {
  const reported = usages.filter((usage): usage is AgentUsage => usage !== undefined);
  if (reported.length === 0) return undefined;
  const total: AgentUsage = {};
  for (const usage of reported) {
    for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens', 'costUsd'] as const) {
      const value = usage[key];
      if (value !== undefined) total[key] = (total[key] ?? 0) + value;
    }
  }
  return total;
}

type Check = { success: true; object: unknown } | { success: false; failure: StructuredOutputFailure; text: string; issues: ModelOutputIssue[] };

/** Reads and validates the object of one finished turn, for the way the adapter returns it. */
export function checkStructuredTurn(turn: StructuredTurn, schema: ResolvedOutputSchema, mode: AgentAdapter['capabilities']['outputSchema']): Check {
  const fail = (failure: StructuredOutputFailure, text: string, message: string): Check => ({ success: false, failure, text, issues: [{ path: '(root)', message }] });
  let value: unknown;
  let text = turn.text;
  if (mode === 'structured-field') {
    const end = [...turn.parts].reverse().find((part) => part.type === 'turn-end');
    const structured = end?.type === 'turn-end' ? end.structuredOutput : undefined;
    if (structured === undefined) return fail('schema-ignored', text, 'the CLI was given the schema but returned no structured result, only text');
    if (structured === null || structured === '') return fail('empty', text, 'the CLI returned an empty structured result');
    text = typeof structured === 'string' ? structured : JSON.stringify(structured);
    if (typeof structured === 'string') {
      const parsed = parseJsonText(structured);
      if (!parsed.success) return fail('not-json', text, parsed.message);
      value = parsed.value;
    } else value = structured;
  } else {
    if (text.trim() === '') return fail('empty', text, 'the answer was empty');
    const parsed = parseJsonText(text);
    if (!parsed.success) return fail('not-json', text, parsed.message);
    value = parsed.value;
  }
  const validated = validateObjectValue(schema.zod, dropNullOptionals(value, schema.jsonSchema));
  return validated.success ? { success: true, object: validated.data } : { success: false, failure: 'invalid', text, issues: validated.issues };
}

/**
 * The `StructuredOutputError` of a typed turn the CLI failed because the model's answer was empty (a failed
 * `turn-end` with {@link EMPTY_ANSWER_STOP_REASON}): failure `empty`, the raw text, the CLI's error as its cause.
 * `undefined` for any other failed turn (an API or process error stays what it is).
 */
export function emptyAnswerError(
  adapterId: string,
  turn: StructuredTurn & { agentError: AgentError | undefined },
  attempts: number,
  usage: AgentUsage | undefined,
): StructuredOutputError | undefined {
  const failedEnd = turn.parts.find((part) => part.type === 'turn-end' && part.isError);
  if (turn.agentError === undefined || failedEnd?.type !== 'turn-end' || failedEnd.stopReason !== EMPTY_ANSWER_STOP_REASON) return undefined;
  const issue = { path: '(root)', message: `the CLI failed the turn: the answer was empty (${turn.agentError.message})` };
  return new StructuredOutputError(`${adapterId} did not return a valid object (empty) after ${attempts} turn(s): ${issue.path}: ${issue.message}`, {
    adapterId,
    failure: 'empty',
    text: turn.text,
    issues: [issue],
    attempts,
    ...(usage !== undefined ? { usage } : {}),
    cause: turn.agentError,
  });
}

/** What a typed turn returns. */
export interface StructuredTurnOutcome<TTurn extends StructuredTurn> {
  object: unknown;
  /** The turn the object came from (the repair turn, when there was one). */
  turn: TTurn;
  attempts: number;
  /** What every turn it ran spent, added up (the repair turn's included). */
  usage: AgentUsage | undefined;
}

/**
 * Runs a typed turn: with the adapter's native schema support, one turn with
 * the schema handed to the CLI; without it, the JSON is asked for in the
 * prompt, and an answer that is not valid is sent back once, in the same
 * session, with what was wrong. Throws `StructuredOutputError` otherwise.
 *
 * `runTurn` runs one turn and throws for a failed one (process or CLI error);
 * `outputSchema` is given only to native adapters.
 */
export async function runStructuredTurn<TTurn extends StructuredTurn>(
  adapter: AgentAdapter,
  message: string,
  schema: ResolvedOutputSchema,
  runTurn: (message: string, outputSchema: JsonSchema | undefined) => Promise<TTurn>,
): Promise<StructuredTurnOutcome<TTurn>> {
  const mode = adapter.capabilities.outputSchema;
  const prompt = mode === undefined ? `${message}\n\n${jsonInstruction(schema.jsonSchema)}` : message;
  let turn = await runTurn(prompt, mode === undefined ? undefined : schema.jsonSchema);
  const spent = [turn.usage];
  let check = checkStructuredTurn(turn, schema, mode);
  let attempts = 1;
  if (!check.success && mode === undefined) {
    // The repair turn resumes the session; a CLI that cannot resume is shown the exchange again.
    const repair = objectRepairMessage(check.issues);
    const again = adapter.capabilities.resume ? repair : `${prompt}\n\nYour previous answer was:\n${turn.text}\n\n${repair}`;
    turn = await runTurn(again, undefined);
    spent.push(turn.usage);
    check = checkStructuredTurn(turn, schema, mode);
    attempts = 2;
  }
  const usage = sumAgentUsage(spent);
  if (check.success) return { object: check.object, turn, attempts, usage };
  const list = check.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new StructuredOutputError(`${adapter.adapterId} did not return a valid object (${check.failure}) after ${attempts} turn(s): ${list}`, {
    adapterId: adapter.adapterId,
    failure: check.failure,
    text: check.text,
    issues: check.issues,
    attempts,
    ...(usage !== undefined ? { usage } : {}),
  });
}
