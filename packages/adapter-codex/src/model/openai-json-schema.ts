import type { JsonSchema } from '@troupe/core';

/**
 * Closes every object schema (`additionalProperties: false`) that does not
 * say otherwise, as OpenAI's strict mode requires.
 */
export function closeOpenAIJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeOpenAIJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    result[key] =
      key === 'properties' || key === '$defs' || key === 'definitions'
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, closeOpenAIJsonSchema(sub)]))
        : closeOpenAIJsonSchema(value);
  }
  if (result.type === 'object' && result.additionalProperties === undefined) result.additionalProperties = false;
  return result;
}

/** @internal The schema as sent: closed when strict. */
export function openAISchema(schema: JsonSchema, strict: boolean): JsonSchema {
  return strict ? (closeOpenAIJsonSchema(schema) as JsonSchema) : schema;
}

/** Parses tool-call arguments; text that is not JSON is returned as the raw string. */
export function parseOpenAIArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The arguments as JSON text for the history (the raw text when the model sent invalid JSON). */
export function argumentsText(input: unknown, rawInput: string | undefined): string {
  if (rawInput !== undefined) return rawInput;
  return JSON.stringify(input ?? {});
}
