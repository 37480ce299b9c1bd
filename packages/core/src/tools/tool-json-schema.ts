import { z } from 'zod';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { JsonSchema } from '../model/v1/chat-message';

/**
 * Converts a zod schema to the JSON Schema sent to providers, with zod 4's
 * own converter (`z.toJSONSchema`, input side: fields with defaults are
 * optional) and without the `$schema` key some providers reject. Throws
 * `InvalidArgumentError` naming `what` when the schema cannot be expressed
 * in JSON Schema (dates, transforms, functions…).
 *
 * @example
 * ```ts
 * toJsonSchema(z.object({ path: z.string() }), 'read_file parameters');
 * // { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
 * ```
 */
export function toJsonSchema(schema: z.ZodType, what = 'schema'): JsonSchema {
  if (!isZodSchema(schema)) {
    throw new InvalidArgumentError(what, 'expected a zod 4 schema (import { z } from "zod")');
  }
  let converted: Record<string, unknown>;
  try {
    converted = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidArgumentError(what, `cannot be expressed as JSON Schema: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const { $schema: _ignored, ...rest } = converted;
  return rest;
}

/** True for a zod 4 schema, from any copy of zod (checks the `_zod` internals, not `instanceof`). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}
