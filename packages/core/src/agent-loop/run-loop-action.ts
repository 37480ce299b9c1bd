import { AbortError } from '../errors/abort-error';
import { formatIssuePath } from '../errors/config-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { SerializedError } from '../events/event-map';
import { serializeError } from '../util/serialize-error';
import type { Action, ActResult, ToolCall, ToolCallResult } from '../loop/loop-action';
import type { LoopLogger } from '../loop/loop-logger';
import type { LoopTool } from '../loop/loop-stage';
import { copyFields, hasTwoKeys } from '../util/copy-fields';

/**
 * Checks what a planner returned. `null`/`undefined` mean "nothing to do";
 * anything else must be an {@link Action}. Returns a copy whose tool calls
 * all have ids.
 *
 * @throws InvalidArgumentError naming the bad field.
 */
export function normalizeAction(value: unknown, iterationId: string, from?: string): Action | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return invalidAction(from, '', `expected an Action object or null, got ${typeof value}`);
  const action = value as Action;
  if (typeof action.task !== 'string' || isBlank(action.task)) return invalidAction(from, '.task', `expected a non-empty string, got ${JSON.stringify(action.task)}`);
  if (action.toolCalls !== undefined && !Array.isArray(action.toolCalls)) return invalidAction(from, '.toolCalls', 'expected an array of { tool, input }');
  if (action.execution !== undefined) checkExecution(action.execution, from);
  const calls = action.toolCalls ?? [];
  const toolCalls: ToolCall[] = new Array(calls.length);
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index] as ToolCall;
    if (typeof call !== 'object' || call === null || typeof call.tool !== 'string' || call.tool === '') {
      return invalidAction(from, `.toolCalls[${index}].tool`, 'expected the name of a registered tool');
    }
    if (call.id !== undefined) {
      toolCalls[index] = call;
      continue;
    }
    const id = `${iterationId}:c${index + 1}`;
    if (hasTwoKeys(call, 'tool', 'input')) {
      // The usual call: a literal is the cheapest copy (V8 is slowest at `{ ...call, id }`).
      toolCalls[index] = { tool: call.tool, input: call.input, id };
      continue;
    }
    const withId = copyFields(call);
    withId.id = id;
    toolCalls[index] = withId;
  }
  // A spread is the cheapest copy, as long as no property is added after it (V8 then leaves its fast path):
  // replacing the action's own `toolCalls` is a store, adding a missing one is not.
  const normalized = action.toolCalls !== undefined ? { ...action } : Object.assign({}, action);
  normalized.toolCalls = toolCalls;
  return normalized;
}

// The checks that end in an error live apart from `normalizeAction`, which runs on every iteration: kept
// small, it is inlined into the loop's optimized code.

/** `execution` as a planner returned it: `null` from JSON is let through, as `undefined` is. */
function checkExecution(execution: Action['execution'] | null, from: string | undefined): void {
  const mode = execution?.mode;
  if (mode !== undefined && mode !== 'parallel' && mode !== 'sequential') {
    invalidAction(from, '.execution.mode', `expected "parallel" or "sequential", got ${JSON.stringify(mode)}`);
  }
  const maxConcurrency = execution?.maxConcurrency;
  if (maxConcurrency !== undefined && !(Number.isInteger(maxConcurrency) && maxConcurrency >= 1)) {
    invalidAction(from, '.execution.maxConcurrency', `expected a whole number >= 1, got ${String(maxConcurrency)}`);
  }
}

/** @throws InvalidArgumentError naming the field of the action (`field`: `''` for the action itself, `.task`…). */
function invalidAction(from: string | undefined, field: string, message: string): never {
  throw new InvalidArgumentError(`${describeAction(from)}${field}`, message);
}

/** How errors name the action: `action from planner "<name>"` (built only when one is thrown). */
function describeAction(from: string | undefined): string {
  return from === undefined ? 'action' : `action from planner "${from}"`;
}

/** True for a string of whitespace only (what `trim() === ''` says, without making a new string). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Fast answer for the usual first character; anything else goes through String#trim's notion of whitespace.
    if (code > 32 && code < 127) return false;
    if (text[i]?.trim() !== '') return false;
  }
  return true;
}

/** What {@link executeLoopAction} needs from the loop. */
export interface ExecuteActionContext {
  loopId: string;
  iterationId: string;
  tools: ReadonlyMap<string, LoopTool>;
  signal: AbortSignal;
  /** The run session, whose `isAborted` says what `signal.aborted` says without the getter's checks. */
  session?: { readonly isAborted: boolean } | undefined;
  logger: LoopLogger;
  secrets: readonly string[];
  now: () => number;
  /** When the Act phase started, on the `now` clock (saves a reading). Default: read it. */
  startedAt?: number;
}

/**
 * The Act phase: runs the action's tool calls (concurrently in `parallel`
 * mode, bounded by `maxConcurrency`; in order in `sequential` mode) and
 * collects one result per call. A failing call never throws: it is a
 * `failed` result, and the Act result is then `ok: false`. With a single
 * call to a tool that answers synchronously, the result is returned without
 * a promise.
 */
export function executeLoopAction(action: Action, context: ExecuteActionContext): ActResult | Promise<ActResult> {
  const started = context.startedAt ?? context.now();
  const calls = action.toolCalls ?? [];
  if (calls.length <= 1 && action.execution?.mode !== 'sequential') {
    if (calls.length === 0) return actResult(action, [], started, context);
    // One call: it starts with the action, so its duration is the action's.
    const single = runToolCall(calls[0] as ToolCall, context, started);
    if (isThenable(single)) return singleLater(single, action, started, context);
    return actResult(action, [single], started, context, single.durationMs);
  }
  return executeMany(action, calls, started, context);
}

// Continuations live in functions of their own: a closure in `executeLoopAction` or `runToolCall` would
// make every call allocate a context, even when the tool answers synchronously.

function singleLater(single: PromiseLike<ToolCallResult>, action: Action, started: number, context: ExecuteActionContext): Promise<ActResult> {
  return Promise.resolve(single).then((result) => actResult(action, [result], started, context, result.durationMs));
}

async function executeMany(action: Action, calls: readonly ToolCall[], started: number, context: ExecuteActionContext): Promise<ActResult> {
  const results: ToolCallResult[] = new Array(calls.length);
  const execution = action.execution ?? {};
  if (execution.mode === 'sequential') {
    const stopOnError = execution.stopOnError ?? true;
    let failure: SerializedError | undefined;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as ToolCall;
      if (failure && stopOnError) {
        results[i] = skipped(call, { name: 'SkippedError', message: `skipped: an earlier call failed (${failure.message})` });
        continue;
      }
      const result = await runToolCall(call, context);
      results[i] = result;
      if (result.status === 'failed') failure ??= result.error;
    }
  } else {
    const width = Math.min(calls.length, execution.maxConcurrency ?? calls.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const index = next++;
        results[index] = await runToolCall(calls[index] as ToolCall, context);
      }
    };
    await Promise.all(Array.from({ length: width }, worker));
  }
  return actResult(action, results, started, context);
}

function actResult(action: Action, results: ToolCallResult[], started: number, context: ExecuteActionContext, durationMs?: number): ActResult {
  let firstFailure: ToolCallResult | undefined;
  for (const result of results) {
    if (result.status === 'failed') {
      firstFailure = result;
      break;
    }
  }
  const out: ActResult = { action, ok: firstFailure === undefined, results, durationMs: durationMs ?? context.now() - started };
  if (firstFailure?.error) out.error = firstFailure.error;
  return out;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function skipped(call: ToolCall, error: SerializedError): ToolCallResult {
  return { callId: call.id as string, tool: call.tool, status: 'skipped', error, durationMs: 0 };
}

function runToolCall(call: ToolCall, context: ExecuteActionContext, startedAt?: number): ToolCallResult | Promise<ToolCallResult> {
  if (context.session === undefined ? context.signal.aborted : context.session.isAborted) return abortedBeforeStart(call, context);
  const started = startedAt ?? context.now();
  let output: unknown;
  try {
    const tool = context.tools.get(call.tool) ?? unknownTool(call, context);
    const input = tool.parameters ? parseToolInput(tool, call) : call.input;
    output = tool.execute(input, { loopId: context.loopId, iterationId: context.iterationId, callId: call.id as string, signal: context.signal, logger: context.logger });
  } catch (error) {
    return toolFailed(call, error, started, context);
  }
  if (isThenable(output)) return toolLater(output, call, started, context);
  return toolSucceeded(call, output, started, context);
}

function toolLater(output: PromiseLike<unknown>, call: ToolCall, started: number, context: ExecuteActionContext): Promise<ToolCallResult> {
  return Promise.resolve(output).then(
    (value) => toolSucceeded(call, value, started, context),
    (error: unknown) => toolFailed(call, error, started, context),
  );
}

// The rarer paths of `runToolCall` (it runs on every iteration and is kept small enough to inline).

function abortedBeforeStart(call: ToolCall, context: ExecuteActionContext): ToolCallResult {
  return skipped(call, serializeError(new AbortError(`Tool call "${call.tool}" was aborted before it started`), context.secrets));
}

/** @throws InvalidArgumentError listing the registered tools. */
function unknownTool(call: ToolCall, context: ExecuteActionContext): never {
  const known = [...context.tools.keys()];
  throw new InvalidArgumentError(
    'tool',
    `no tool named "${call.tool}" is registered on loop "${context.loopId}"; registered tools: ${known.length > 0 ? known.join(', ') : '(none)'}`,
  );
}

/** The call's input as the tool's `parameters` schema parses it. @throws InvalidArgumentError listing the problems. */
function parseToolInput(tool: LoopTool, call: ToolCall): unknown {
  const parsed = (tool.parameters as NonNullable<LoopTool['parameters']>).safeParse(call.input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ');
  throw new InvalidArgumentError('input', `tool "${call.tool}" rejected its input: ${problems}`, { cause: parsed.error });
}

function toolSucceeded(call: ToolCall, output: unknown, started: number, context: ExecuteActionContext): ToolCallResult {
  return { callId: call.id as string, tool: call.tool, status: 'succeeded', output, durationMs: context.now() - started };
}

function toolFailed(call: ToolCall, error: unknown, started: number, context: ExecuteActionContext): ToolCallResult {
  return { callId: call.id as string, tool: call.tool, status: 'failed', error: serializeError(error, context.secrets), durationMs: context.now() - started };
}
