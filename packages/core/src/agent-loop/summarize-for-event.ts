import { redactSecrets } from '../util/redact-secrets';
import type { ActResult, ToolCallResult } from '../loop/loop-action';
import type { ToolCapability } from '../loop/loop-stage';
import type { ReflectResult } from './reflect-loop-result';

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
export function summarizeReusing(value: unknown, options: SummarizeOptions, reuse: ReusableSummary | undefined, shape?: KnownShape): ReusableSummary {
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
  const summary =
    shape !== undefined && fitsKnownShapes(limits) && !(reuse !== undefined && value === reuse.value)
      ? shape === 'act-result'
        ? summarizeActResult(value as ActResult, limits)
        : summarizeReflectResult(value as ReflectResult, limits)
      : summarize(value, 0, limits);
  return { value, summary, depth: limits.deepest };
}

/**
 * Objects the loop builds itself with a fixed key order: an Act phase's
 * `ActResult` (from `executeLoopAction`) and a Reflect phase's
 * `ReflectResult`. Their summaries are built field by field, giving exactly
 * what the generic walk gives, without its per-key lookups.
 */
export type KnownShape = 'act-result' | 'reflect-result';

/** True when no bound cuts into a known shape (deepest own object at depth 2, at most 6 keys). */
function fitsKnownShapes(limits: Limits): boolean {
  return limits.maxDepth >= 3 && limits.maxKeys >= 6;
}

/** Dropped from objects by the generic walk. */
function isDropped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Enters one of our own objects at `depth`, as `summarize` does before walking its keys. */
function enterOwn(object: object, depth: number, limits: Limits): void {
  if (depth > limits.deepest) limits.deepest = depth;
  limits.path.push(object);
}

/** `{ action, ok, results, durationMs, error? }`, built by `executeLoopAction`. */
function summarizeActResult(result: ActResult, limits: Limits): LoopJsonValue {
  enterOwn(result, 0, limits);
  const out: { [key: string]: LoopJsonValue } = {};
  if (!isDropped(result.action)) out.action = summarize(result.action, 1, limits);
  if (!isDropped(result.ok)) out.ok = summarize(result.ok, 1, limits);
  if (!isDropped(result.results)) out.results = summarizeOwnArray(result.results, 1, limits, summarizeToolCallResult);
  if (!isDropped(result.durationMs)) out.durationMs = summarize(result.durationMs, 1, limits);
  if (!isDropped(result.error)) out.error = summarize(result.error, 1, limits);
  limits.path.pop();
  return out;
}

/** `{ callId, tool, status, output | error, durationMs }`, built by the Act phase. */
function summarizeToolCallResult(call: ToolCallResult, depth: number, limits: Limits): LoopJsonValue {
  enterOwn(call, depth, limits);
  const out: { [key: string]: LoopJsonValue } = {};
  const inner = depth + 1;
  if (!isDropped(call.callId)) out.callId = summarize(call.callId, inner, limits);
  if (!isDropped(call.tool)) out.tool = summarize(call.tool, inner, limits);
  if (!isDropped(call.status)) out.status = summarize(call.status, inner, limits);
  if (!isDropped(call.output)) out.output = summarize(call.output, inner, limits);
  if (!isDropped(call.error)) out.error = summarize(call.error, inner, limits);
  if (!isDropped(call.durationMs)) out.durationMs = summarize(call.durationMs, inner, limits);
  limits.path.pop();
  return out;
}

/** `{ experiences, capabilities }`, built by the Reflect phase. */
function summarizeReflectResult(result: ReflectResult, limits: Limits): LoopJsonValue {
  enterOwn(result, 0, limits);
  const out: { [key: string]: LoopJsonValue } = {};
  if (!isDropped(result.experiences)) out.experiences = summarize(result.experiences, 1, limits);
  if (!isDropped(result.capabilities)) out.capabilities = summarizeOwnArray(result.capabilities, 1, limits, summarizeCapability);
  limits.path.pop();
  return out;
}

/** `{ tool, calls, failures, successRate, meanDurationMs, lastError? }`, built by the capability tracker. */
function summarizeCapability(capability: ToolCapability, depth: number, limits: Limits): LoopJsonValue {
  enterOwn(capability, depth, limits);
  const out: { [key: string]: LoopJsonValue } = {};
  const inner = depth + 1;
  if (!isDropped(capability.tool)) out.tool = summarize(capability.tool, inner, limits);
  if (!isDropped(capability.calls)) out.calls = summarize(capability.calls, inner, limits);
  if (!isDropped(capability.failures)) out.failures = summarize(capability.failures, inner, limits);
  if (!isDropped(capability.successRate)) out.successRate = summarize(capability.successRate, inner, limits);
  if (!isDropped(capability.meanDurationMs)) out.meanDurationMs = summarize(capability.meanDurationMs, inner, limits);
  if (!isDropped(capability.lastError)) out.lastError = summarize(capability.lastError, inner, limits);
  limits.path.pop();
  return out;
}

/** An array of our own objects at `depth` (below the depth bound), like `summarizeArray`. */
function summarizeOwnArray<T extends object>(
  items: readonly T[],
  depth: number,
  limits: Limits,
  item: (value: T, depth: number, limits: Limits) => LoopJsonValue,
): LoopJsonValue {
  const reuse = limits.reuse;
  if (!Array.isArray(items) || (reuse !== undefined && items === reuse.value)) return summarize(items, depth, limits);
  enterOwn(items, depth, limits);
  const kept = Math.min(items.length, limits.maxArrayItems);
  const out: LoopJsonValue[] = new Array(kept);
  for (let i = 0; i < kept; i++) {
    const value = items[i] as T;
    out[i] = reuse !== undefined && value === reuse.value ? summarize(value, depth + 1, limits) : item(value, depth + 1, limits);
  }
  if (items.length > kept) out.push(`… ${items.length - kept} more`);
  limits.path.pop();
  return out;
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
