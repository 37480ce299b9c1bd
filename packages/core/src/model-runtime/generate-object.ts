import type { EventBus } from '../events/event-bus';
import type { z } from 'zod';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { toJsonSchema, isZodSchema } from '../tools/tool-json-schema';
import { addChatUsage, emptyChatUsage } from '../model/chat-usage';
import { ModelOutputError } from '../model/model-error';
import { jsonInstruction, objectRepairMessage, validateObjectText } from './validate-object-text';
import { assertChatModel } from './assert-chat-model';
import { callModel, initialMessages } from './run-tool-loop';
import type { ChatMessage, JsonSchema } from '../model/v1/chat-message';
import type { ChatModelV1, ChatModelV1Request, ChatModelV1Response } from '../model/v1/chat-model-v1';
import type { ChatUsage } from '../model/v1/chat-stream-part';

/** Options of {@link generateObject}. */
export interface GenerateObjectOptions<TSchema extends z.ZodType> {
  model: ChatModelV1;
  /** zod 4 schema the answer must match (usually `z.object`). */
  schema: TSchema;
  /** Name of the object, for providers that want one (OpenAI). Default `response`. */
  schemaName?: string;
  /** What the object is, for the model. */
  schemaDescription?: string;
  system?: string;
  /** A user message appended after `messages`. */
  prompt?: string;
  messages?: readonly ChatMessage[];
  /** Cancels the call; rejects with `AbortError`. */
  signal?: AbortSignal;
  /** How many times the model is asked to fix an invalid answer. Default 1. */
  maxRepairs?: number;
  maxOutputTokens?: number;
  temperature?: number;
  headers?: Record<string, string>;
  /** Receives `model:call-*` events (tracing, usage ledger). Default: the bus of the run it is called in, else the fallback bus (`registerFallbackEventBus`). */
  eventBus?: EventBus;
}

/** What {@link generateObject} returns. */
export interface GenerateObjectResult<T> {
  /** The validated object (zod's output type: defaults applied, transforms run). */
  object: T;
  /** The raw answer it was parsed from. */
  text: string;
  /** Usage summed over every attempt. */
  usage: ChatUsage;
  /** Model calls made (1, or more after repairs). */
  attempts: number;
  /** The last model response. */
  response: ChatModelV1Response;
}

/**
 * Asks the model for a JSON object matching a zod schema, and validates it.
 *
 * Uses the provider's native structured output when it has one
 * (`capabilities.structuredOutput === 'json-schema'`: the JSON Schema goes in
 * `responseFormat`), JSON mode plus the schema in the system prompt for
 * `json-object` providers, and prompting alone for `none`. An answer that is
 * not JSON or fails validation is sent back once (`maxRepairs`) with the
 * problems listed; if it is still invalid, throws `ModelOutputError` with the
 * raw text and the issues.
 *
 * @example
 * ```ts
 * const JudgeDecision = z.object({ action: z.enum(['continue', 'terminate']), reason: z.string(), nextTask: z.string().optional() });
 * const { object } = await generateObject({ model, schema: JudgeDecision, system: judgePrompt, prompt: summary });
 * if (object.action === 'continue') queue(object.nextTask);
 * ```
 */
export async function generateObject<TSchema extends z.ZodType>(options: GenerateObjectOptions<TSchema>): Promise<GenerateObjectResult<z.output<TSchema>>> {
  const { model, schema, signal } = options;
  assertChatModel(model, 'model');
  if (!isZodSchema(schema)) throw new InvalidArgumentError('schema', 'expected a zod 4 schema');
  const maxRepairs = options.maxRepairs ?? 1;
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
    throw new InvalidArgumentError('maxRepairs', `expected an integer >= 0, got ${String(options.maxRepairs)}`);
  }
  const jsonSchema = toJsonSchema(schema, 'schema');
  const mode = model.capabilities?.structuredOutput ?? 'none';
  const system = mode === 'json-schema' ? options.system : [options.system, jsonInstruction(jsonSchema)].filter(Boolean).join('\n\n');
  const messages = initialMessages(options.messages, options.prompt);
  const name = options.schemaName ?? 'response';
  let usage = emptyChatUsage();

  for (let attempt = 1; ; attempt++) {
    const request: ChatModelV1Request = {
      ...(system ? { system } : {}),
      messages: [...messages],
      ...(mode !== 'none'
        ? {
            responseFormat: {
              type: 'json',
              name,
              ...(mode === 'json-schema' ? { schema: jsonSchema } : {}),
              ...(options.schemaDescription !== undefined ? { description: options.schemaDescription } : {}),
            },
          }
        : {}),
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
      ...(signal !== undefined ? { abortSignal: signal } : {}),
    };
    const response = await callModel(model, request, false, signal, undefined, undefined, options.eventBus);
    usage = addChatUsage(usage, response.usage);
    const issues = validateObjectText(schema, response.text);
    if (issues.success) return { object: issues.data as z.output<TSchema>, text: response.text, usage, attempts: attempt, response };
    if (attempt > maxRepairs) {
      const list = issues.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new ModelOutputError(`${model.provider} (${model.modelId}) did not return a valid object after ${attempt} attempt(s): ${list}`, {
        text: response.text,
        issues: issues.issues,
        attempts: attempt,
      });
    }
    messages.push(
      { role: 'assistant', content: response.text },
      { role: 'user', content: objectRepairMessage(issues.issues) },
    );
  }
}
