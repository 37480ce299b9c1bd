import type { JsonSchema } from '@troupe/core';

/** Keys whose value is one subschema. */
const SUBSCHEMA_KEYS = ['items', 'additionalItems', 'not', 'if', 'then', 'else', 'contains'] as const;
/** Keys whose value is a list of subschemas. */
const SUBSCHEMA_LIST_KEYS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keys whose value is a map of subschemas. */
const SUBSCHEMA_MAP_KEYS = ['$defs', 'definitions', 'patternProperties'] as const;

/** True when a JSON Schema already accepts `null`. */
function isNullable(schema: Record<string, unknown>): boolean {
  const { type } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  return ['anyOf', 'oneOf'].some((key) => Array.isArray(schema[key]) && (schema[key] as unknown[]).some((item) => item !== null && typeof item === 'object' && isNullable(item as Record<string, unknown>)));
}

/** `schema`, also accepting `null`: `type: [t, "null"]` where it has one simple type, else `anyOf: [schema, {type: "null"}]`. */
function withNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (isNullable(schema)) return schema;
  if (typeof schema.type === 'string' && schema.enum === undefined && schema.const === undefined) return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type) && schema.enum === undefined && schema.const === undefined) return { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The schema made acceptable to Codex's `--output-schema`, which the model API
 * applies in strict mode: every object gets `additionalProperties: false` and
 * lists every property in `required`; a property that was optional becomes
 * nullable instead (`AgentManager` reads `null` back as absent for it before
 * validating with the caller's own schema). Nested objects, arrays,
 * `anyOf`/`oneOf`/`allOf` and `$defs` are walked; the input is not changed.
 *
 * @example
 * ```ts
 * toCodexStrictSchema({ type: 'object', properties: { a: { type: 'string' } } });
 * // { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false }
 * ```
 */
export function toCodexStrictSchema(schema: JsonSchema): JsonSchema {
  return strict(schema) as JsonSchema;
}

function strict(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const schema: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  delete schema.$schema;
  for (const key of SUBSCHEMA_KEYS) if (schema[key] !== undefined) schema[key] = strict(schema[key]);
  for (const key of SUBSCHEMA_LIST_KEYS) if (Array.isArray(schema[key])) schema[key] = (schema[key] as unknown[]).map(strict);
  for (const key of SUBSCHEMA_MAP_KEYS) {
    const map = schema[key];
    if (map !== null && typeof map === 'object') schema[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, strict(sub)]));
  }
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || schema.properties !== undefined;
  if (!isObject) return schema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  schema.properties = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => {
      const converted = strict(sub);
      return [name, required.has(name) || converted === null || typeof converted !== 'object' ? converted : withNull(converted as Record<string, unknown>)];
    }),
  );
  schema.required = Object.keys(properties);
  schema.additionalProperties = false;
  return schema;
}
