import { redactSecrets } from '../util/redact-secrets';

/** A JSON value: what loop events carry as phase inputs and outputs. */
export type LoopJsonValue = string | number | boolean | null | LoopJsonValue[] | { [key: string]: LoopJsonValue };

/** Bounds of {@link summarizeForEvent}. */
export interface SummarizeOptions {
  /** Nesting depth kept; deeper values become `"[Object]"` / `"[Array(n)]"`. Default 4. */
  maxDepth?: number;
  /** Array items kept; the rest become one `"… N more"` item. Default 10. */
  maxArrayItems?: number;
  /** Object keys kept; the rest are counted under `"…"`. Default 20. */
  maxKeys?: number;
  /** String length kept; longer strings are cut with `"…(+N chars)"`. Default 300. */
  maxStringLength?: number;
  /** Values to redact from every string (API keys of well-known shapes are always redacted). */
  secrets?: readonly string[];
}

/** Shortest text that can hold a well-known API key shape (`sk-ant-` and 6 more). */
const SHORTEST_KEY_SHAPE = 13;
const GITHUB_TOKEN = /gh[pousr]_/;

/** Cheap test for text that might hold a well-known API key shape (see `redactSecrets`). */
function mayHoldKey(text: string): boolean {
  return (
    text.length >= SHORTEST_KEY_SHAPE &&
    (text.includes('sk-') || text.includes('AIza') || text.includes('xox') || (text.includes('_') && GITHUB_TOKEN.test(text)))
  );
}

interface Limits {
  maxDepth: number;
  maxArrayItems: number;
  maxKeys: number;
  maxStringLength: number;
  secrets: readonly string[];
  /** Objects on the current path, to spot cycles (at most `maxDepth` long). */
  path: object[];
  /** Deepest level reached. */
  deepest: number;
  /** A value summarized before, whose summary may be reused where it appears again. */
  reuse: ReusableSummary | undefined;
}

/** A summary produced earlier, with the depth it reached. */
export interface ReusableSummary {
  value: unknown;
  summary: LoopJsonValue;
  depth: number;
}

/**
 * Turns any value into a small, JSON-safe summary for an event: bounded
 * depth, array length, key count and string length; cycles, functions,
 * symbols, bigints, `NaN`, Maps, Sets, Dates, Errors and binary data all
 * become plain JSON; secrets are redacted.
 *
 * @example
 * ```ts
 * summarizeForEvent({ error: new Error('boom'), items: Array(50).fill(1) }, { maxArrayItems: 2 });
 * // { error: { name: 'Error', message: 'boom' }, items: [1, 1, '… 48 more'] }
 * ```
 */
export function summarizeForEvent(value: unknown, options: SummarizeOptions = {}): LoopJsonValue {
  return summarizeReusing(value, options, undefined).summary;
}

/**
 * {@link summarizeForEvent}, reusing `reuse.summary` wherever `reuse.value`
 * appears inside `value` (when it fits within the depth bound), and telling
 * the depth the result reached.
 */
export function summarizeReusing(value: unknown, options: SummarizeOptions, reuse: ReusableSummary | undefined): ReusableSummary {
  const limits: Limits = {
    maxDepth: options.maxDepth ?? 4,
    maxArrayItems: options.maxArrayItems ?? 10,
    maxKeys: options.maxKeys ?? 20,
    maxStringLength: options.maxStringLength ?? 300,
    secrets: options.secrets ?? [],
    path: [],
    deepest: 0,
    reuse,
  };
  const summary = summarize(value, 0, limits);
  return { value, summary, depth: limits.deepest };
}

function summarizeString(text: string, limits: Limits): string {
  const out = text.length > limits.maxStringLength ? `${text.slice(0, limits.maxStringLength)}…(+${text.length - limits.maxStringLength} chars)` : text;
  if (limits.secrets.length === 0 && !mayHoldKey(out)) return out;
  return redactSecrets(out, limits.secrets);
}

function summarize(value: unknown, depth: number, limits: Limits): LoopJsonValue {
  switch (typeof value) {
    case 'string':
      return summarizeString(value, limits);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return `${value.toString()}n`;
    case 'undefined':
      return null;
    case 'symbol':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
  }
  if (value === null) return null;
  const object = value as object;
  if (depth > limits.deepest) limits.deepest = depth;
  const reuse = limits.reuse;
  if (reuse !== undefined && object === reuse.value && depth + reuse.depth <= limits.maxDepth) {
    if (depth + reuse.depth > limits.deepest) limits.deepest = depth + reuse.depth;
    return reuse.summary;
  }
  if (limits.path.length > 0 && limits.path.includes(object)) return '[Circular]';
  if (Array.isArray(object)) {
    if (depth >= limits.maxDepth) return `[Array(${object.length})]`;
    return summarizeArray(object, depth, limits, object);
  }
  const proto = Object.getPrototypeOf(object) as object | null;
  if (proto === Object.prototype || proto === null) {
    if (depth >= limits.maxDepth) return '[Object]';
    if (typeof (object as { toJSON?: unknown }).toJSON !== 'function') return summarizeObject(object as Record<string, unknown>, depth, limits);
  }
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  if (object instanceof Error) {
    const code = (object as { code?: unknown }).code;
    const out: { [key: string]: LoopJsonValue } = { name: object.name, message: summarizeString(object.message, limits) };
    if (typeof code === 'string') out.code = code;
    return out;
  }
  if (ArrayBuffer.isView(object)) return `[${object.constructor.name}(${object.byteLength} bytes)]`;
  if (object instanceof ArrayBuffer) return `[ArrayBuffer(${object.byteLength} bytes)]`;
  if (object instanceof Map || object instanceof Set) {
    if (depth >= limits.maxDepth) return `[${object.constructor.name}(${object.size})]`;
    if (object instanceof Set) return summarizeArray([...object.values()], depth, limits, object);
    const entries: Record<string, unknown> = {};
    for (const [key, item] of object) entries[String(key)] = item;
    limits.path.push(object);
    const out = summarizeObject(entries, depth, limits);
    limits.path.pop();
    return out;
  }
  if (depth >= limits.maxDepth) return '[Object]';
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    limits.path.push(object);
    try {
      return summarize(toJSON.call(object), depth, limits);
    } catch {
      return '[Unserializable]';
    } finally {
      limits.path.pop();
    }
  }
  return summarizeObject(object as Record<string, unknown>, depth, limits);
}

function summarizeObject(object: Record<string, unknown>, depth: number, limits: Limits): { [key: string]: LoopJsonValue } {
  limits.path.push(object);
  const out: { [key: string]: LoopJsonValue } = {};
  let kept = 0;
  let dropped = 0;
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = object[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (kept >= limits.maxKeys) {
      dropped++;
      continue;
    }
    out[key] = summarize(item, depth + 1, limits);
    kept++;
  }
  if (dropped > 0) out['…'] = `${dropped} more keys`;
  limits.path.pop();
  return out;
}

function summarizeArray(items: readonly unknown[], depth: number, limits: Limits, owner: object): LoopJsonValue[] {
  limits.path.push(owner);
  const kept = Math.min(items.length, limits.maxArrayItems);
  const out: LoopJsonValue[] = new Array(kept);
  for (let i = 0; i < kept; i++) out[i] = summarize(items[i], depth + 1, limits);
  if (items.length > kept) out.push(`… ${items.length - kept} more`);
  limits.path.pop();
  return out;
}
