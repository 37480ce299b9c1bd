import type { z } from 'zod';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { formatIssuePath } from '../errors/config-error';
import type { ChatMessage, ChatToolSpec, JsonSchema } from '../model/v1/chat-message';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';
import { ToolError } from './tool-error';
import { isZodSchema, toJsonSchema } from './tool-json-schema';

/**
 * Which agents see a tool (seed 004's ToolManager scopes): `common` — every
 * agent; `main` — only the main (top-level) agent; `sub` — only sub-agents
 * (e.g. `task_finish`).
 */
export type ToolScope = 'common' | 'main' | 'sub';

/** The kind of agent asking for its tools. */
export type ToolAgentKind = 'main' | 'sub';

/** Tool names every vendor accepts: letters, digits, `_` and `-`, 1 to 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Id of the model's tool call (empty when called directly). */
  toolCallId: string;
  /** Name the tool was called by. */
  toolName: string;
  /** Aborted when the run is canceled; pass it to anything long-running. */
  abortSignal: AbortSignal;
  /** Directory file and shell tools are confined to, when the runner has one. */
  workspaceRoot?: string;
  /** The kind of agent running the tool, when the runner knows it. */
  agentKind?: ToolAgentKind;
  /** The conversation up to the call (read-only). */
  messages?: readonly ChatMessage[];
  /** Anything the application passes through to its tools (ids, services). */
  data?: Readonly<Record<string, unknown>>;
}

/**
 * The outcome of one tool call, fed back to the model (seed 004's
 * `ToolResult`). `content` is what the model reads — the output, or the error
 * text when `success` is false; `error` repeats the error message.
 */
export interface ToolResult {
  success: boolean;
  content: string;
  error?: string;
}

/** What {@link defineTool} takes. */
export interface ToolDefinition<TParameters extends z.ZodType> {
  /** Unique name, `^[a-zA-Z0-9_-]{1,64}$` (no `:` — OpenAI rejects it; prefix with `looper_` instead). */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description: string;
  /** zod 4 schema of the arguments (an object schema). Validated before `execute`. */
  parameters: TParameters;
  /** Who sees the tool; default `common`. */
  scope?: ToolScope;
  /**
   * Does the work. Return a string (sent as-is) or any JSON value (sent as
   * JSON). Throw to fail: the model sees the error as a tool result and the
   * run goes on ({@link ToolError} for a message without the error's name).
   */
  execute: (args: z.output<TParameters>, context: ToolContext) => unknown;
}

/** A tool made by {@link defineTool}: its definition plus the JSON Schema sent to providers. */
export interface Tool<TArgs = unknown> {
  readonly name: string;
  readonly description: string;
  readonly scope: ToolScope;
  readonly parameters: z.ZodType<TArgs>;
  /** JSON Schema of `parameters`, computed once. */
  readonly inputSchema: JsonSchema;
  /** Runs the tool with already-validated arguments (use `executeTool` to validate and catch). */
  execute(args: TArgs, context: ToolContext): unknown;
}

/** Any tool, whatever its argument type (what tool lists and registries hold). */
export type AnyTool = Tool<unknown>;

const SCOPES: readonly ToolScope[] = ['common', 'main', 'sub'];

/**
 * Defines a tool the model can call: validates the definition loudly
 * (name, description, a zod schema that converts to JSON Schema, an execute
 * function) and computes its JSON Schema with `z.toJSONSchema`.
 *
 * @example
 * ```ts
 * const getWeather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }, { abortSignal }) => fetchWeather(city, abortSignal),
 * });
 * const { text } = await runToolLoop({ model, prompt: 'Weather in Paris?', tools: [getWeather] });
 * ```
 */
export function defineTool<TParameters extends z.ZodType>(definition: ToolDefinition<TParameters>): Tool<z.output<TParameters>> {
  if (definition === null || typeof definition !== 'object') throw new InvalidArgumentError('tool', 'expected a tool definition object');
  const { name, description, parameters, execute } = definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new InvalidArgumentError('tool.name', `${JSON.stringify(name)} is not a valid tool name; use 1-64 letters, digits, "_" or "-"`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new InvalidArgumentError('tool.description', `tool "${name}" needs a non-empty description (the model reads it)`);
  }
  if (!isZodSchema(parameters)) {
    throw new InvalidArgumentError('tool.parameters', `tool "${name}" needs a zod 4 schema for its parameters`);
  }
  if (typeof execute !== 'function') throw new InvalidArgumentError('tool.execute', `tool "${name}" needs an execute function`);
  const scope = definition.scope ?? 'common';
  if (!SCOPES.includes(scope)) {
    throw new InvalidArgumentError('tool.scope', `tool "${name}" has scope ${JSON.stringify(scope)}; expected common, main or sub`);
  }
  const inputSchema = toJsonSchema(parameters, `tool "${name}" parameters`);
  if (inputSchema.type !== 'object') {
    throw new InvalidArgumentError('tool.parameters', `tool "${name}" parameters must be an object schema (z.object), got type ${JSON.stringify(inputSchema.type)}`);
  }
  return Object.freeze({
    name,
    description,
    scope,
    parameters: parameters as z.ZodType<z.output<TParameters>>,
    inputSchema,
    execute: execute as (args: z.output<TParameters>, context: ToolContext) => unknown,
  });
}

/** The provider-facing description of a tool. */
export function toolSpec(tool: AnyTool): ChatToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

/** A failed {@link ToolResult} with `message` as the text the model reads. */
export function toolErrorResult(message: string): ToolResult {
  return { success: false, content: message, error: message };
}

function redact(text: string): string {
  return redactSecrets(text, secretValuesFromEnv(process.env));
}

function stringifyOutput(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function describeThrown(error: unknown): string {
  if (ToolError.isInstance(error)) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Runs one tool call safely: parses the arguments (JSON text is accepted),
 * validates them against the tool's zod schema, runs `execute`, and turns
 * every failure — invalid arguments, a thrown error — into an error
 * {@link ToolResult} instead of throwing. Secret-looking values from the
 * environment are redacted from what the model will read.
 */
export async function executeTool(tool: AnyTool, input: unknown, context: ToolContext): Promise<ToolResult> {
  let args = input;
  if (typeof input === 'string') {
    try {
      args = JSON.parse(input);
    } catch {
      return toolErrorResult(`Invalid arguments for tool "${tool.name}": not valid JSON: ${truncate(input, 200)}`);
    }
  }
  const parsed = tool.parameters.safeParse(args ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ');
    return toolErrorResult(`Invalid arguments for tool "${tool.name}": ${problems}`);
  }
  try {
    const output = await tool.execute(parsed.data, context);
    return { success: true, content: redact(stringifyOutput(output)) };
  } catch (error) {
    return toolErrorResult(redact(describeThrown(error)));
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
