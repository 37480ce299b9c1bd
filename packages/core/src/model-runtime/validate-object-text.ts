import type { z } from 'zod';
import { formatIssuePath } from '../errors/config-error';
import type { ModelOutputIssue } from '../model/model-error';
import { parseJsonText } from './parse-json-text';
import type { JsonSchema } from '../model/v1/chat-message';

/** Result of {@link validateObjectText} / {@link validateObjectValue}. */
export type ObjectValidation = { success: true; data: unknown } | { success: false; issues: ModelOutputIssue[] };

/** Checks a parsed value against a zod schema; the issues name their path (`decision.reason`, `(root)`). */
export function validateObjectValue(schema: z.ZodType, value: unknown): ObjectValidation {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    issues: parsed.error.issues.map((issue) => ({
      path: formatIssuePath(issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))),
      message: issue.message,
    })),
  };
}

/**
 * Reads a JSON value out of a model's answer ({@link parseJsonText}: whole,
 * fenced or bare) and checks it against a zod schema: what `generateObject`
 * and typed CLI turns both accept as an object.
 */
export function validateObjectText(schema: z.ZodType, text: string): ObjectValidation {
  const json = parseJsonText(text);
  if (!json.success) return { success: false, issues: [{ path: '(root)', message: json.message }] };
  return validateObjectValue(schema, json.value);
}

/** The message that sends an unusable answer back once, listing what was wrong with it. */
export function objectRepairMessage(issues: readonly ModelOutputIssue[]): string {
  return (
    `Your answer could not be used:\n${issues.map((issue) => `- ${issue.path}: ${issue.message}`).join('\n')}\n` +
    'Answer again with only the corrected JSON value, matching the schema.'
  );
}

/** @internal The instruction asking for JSON where the provider or CLI cannot enforce the schema. */
export function jsonInstruction(schema: JsonSchema): string {
  return (
    'Answer with a single JSON value and nothing else: no prose, no Markdown code fences. ' +
    `It must match this JSON Schema:\n${JSON.stringify(schema)}`
  );
}
