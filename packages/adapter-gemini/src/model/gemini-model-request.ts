import { FunctionCallingConfigMode, type Content, type GenerateContentConfig, type Part, type ToolConfig } from '@google/genai';
import {
  InvalidArgumentError,
  type ChatMessage,
  type ChatModelV1Request,
  type ChatToolCall,
  type ChatToolChoice,
  type ChatToolResultPart,
  type ProviderMetadata,
} from '@troupe/core';

/** What {@link toGeminiRequest} builds: the SDK's `contents` and `config` (without signal and HTTP options). */
export interface GeminiRequestBody {
  contents: Content[];
  config: GenerateContentConfig;
}

/** Model settings the request mapping needs. */
export interface GeminiRequestDefaults {
  /** Output cap when the request gives none. */
  maxOutputTokens?: number | undefined;
  /** How a JSON `responseFormat` is sent. */
  structuredOutput: 'json-schema' | 'json-object' | 'none';
}

/** Reads `providerMetadata.google[key]` when it is a string. */
export function googleMetadataString(metadata: ProviderMetadata | undefined, key: string): string | undefined {
  const value = metadata?.google?.[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Maps a core request to `models.generateContent` parameters:
 * - `system` → `systemInstruction`;
 * - user messages → `user` contents, assistant messages → `model` contents
 *   (text, then one `functionCall` part per tool call, with the thought
 *   signatures Gemini 3 requires back), tool messages → `user` contents of
 *   `functionResponse` parts (`{ output }` or `{ error }`); neighbours with
 *   the same role are merged, as Gemini expects alternating turns;
 * - tools → `functionDeclarations` with `parametersJsonSchema` (plain JSON
 *   Schema, no conversion to Gemini's OpenAPI subset);
 * - `toolChoice` → `toolConfig.functionCallingConfig` (`AUTO`, `NONE`, `ANY`,
 *   `ANY` + `allowedFunctionNames`);
 * - JSON `responseFormat` → `responseMimeType: application/json` (+
 *   `responseJsonSchema` with `structuredOutput: 'json-schema'`; nothing
 *   with `none`);
 * - `maxOutputTokens` (else the model's default), `temperature`.
 *
 * Throws `InvalidArgumentError` naming the field for input Gemini cannot take.
 */
export function toGeminiRequest(request: ChatModelV1Request, defaults: GeminiRequestDefaults = { structuredOutput: 'json-schema' }): GeminiRequestBody {
  if (request === null || typeof request !== 'object') throw new InvalidArgumentError('request', 'expected a ChatModelV1Request object');
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new InvalidArgumentError('request.messages', 'give at least one message');
  }
  // Gemini ids of the calls seen so far, so each functionResponse carries its call's id.
  const wireIds = new Map<string, string | undefined>();
  const contents = mergeSameRole(request.messages.map((message, index) => toContent(message, index, wireIds)));
  const config: GenerateContentConfig = {};
  if (request.system !== undefined && request.system !== '') config.systemInstruction = { parts: [{ text: request.system }] };
  if (request.maxOutputTokens !== undefined) {
    if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens < 1) {
      throw new InvalidArgumentError('request.maxOutputTokens', `expected an integer >= 1, got ${String(request.maxOutputTokens)}`);
    }
    config.maxOutputTokens = request.maxOutputTokens;
  } else if (defaults.maxOutputTokens !== undefined) {
    config.maxOutputTokens = defaults.maxOutputTokens;
  }
  if (request.temperature !== undefined) {
    if (typeof request.temperature !== 'number' || !Number.isFinite(request.temperature) || request.temperature < 0) {
      throw new InvalidArgumentError('request.temperature', `expected a number >= 0, got ${String(request.temperature)}`);
    }
    config.temperature = request.temperature;
  }
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parametersJsonSchema: tool.inputSchema,
        })),
      },
    ];
  }
  if (request.toolChoice !== undefined) {
    const toolConfig = toToolConfig(request.toolChoice, tools.map((tool) => tool.name));
    if (toolConfig) config.toolConfig = toolConfig;
  }
  const format = request.responseFormat;
  if (format?.type === 'json' && defaults.structuredOutput !== 'none') {
    config.responseMimeType = 'application/json';
    if (format.schema !== undefined && defaults.structuredOutput === 'json-schema') config.responseJsonSchema = format.schema;
  }
  return { contents, config };
}

function toToolConfig(choice: ChatToolChoice, offered: readonly string[]): ToolConfig | undefined {
  if (offered.length === 0) {
    // Without tools the choice has nothing to act on; only `none` is harmless.
    if (choice.type === 'none' || choice.type === 'auto') return undefined;
    throw new InvalidArgumentError('request.toolChoice', `"${choice.type}" needs at least one tool in request.tools`);
  }
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } };
    case 'none':
      return { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } };
    case 'required':
      return { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } };
    case 'tool':
      if (!offered.includes(choice.toolName)) {
        throw new InvalidArgumentError('request.toolChoice.toolName', `"${choice.toolName}" is not among request.tools (${offered.join(', ')})`);
      }
      return { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.toolName] } };
    default:
      throw new InvalidArgumentError('request.toolChoice', `unknown tool choice ${JSON.stringify(choice)}`);
  }
}

function toContent(message: ChatMessage, index: number, wireIds: Map<string, string | undefined>): Content {
  switch (message?.role) {
    case 'user':
      return { role: 'user', parts: [{ text: message.content }] };
    case 'assistant': {
      const parts: Part[] = [];
      const signature = googleMetadataString(message.providerMetadata, 'thoughtSignature');
      const calls = message.toolCalls ?? [];
      if (message.content !== '' || calls.length === 0 || signature !== undefined) {
        parts.push({ text: message.content, ...(signature !== undefined ? { thoughtSignature: signature } : {}) });
      }
      for (const call of calls) {
        const id = googleMetadataString(call.providerMetadata, 'functionCallId');
        wireIds.set(call.toolCallId, id);
        parts.push(functionCallPart(call, id));
      }
      return { role: 'model', parts };
    }
    case 'tool':
      return { role: 'user', parts: message.results.map((result) => functionResponsePart(result, wireIds.get(result.toolCallId))) };
    default:
      throw new InvalidArgumentError(`request.messages[${index}]`, `unknown role ${JSON.stringify((message as { role?: unknown })?.role)}`);
  }
}

/**
 * Gemini's `functionCall.args` is an object. Calls from other providers may
 * hold raw text (arguments that were not JSON); it travels as `{ input }`.
 */
function toArgs(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  return input === undefined ? {} : { input };
}

function functionCallPart(call: ChatToolCall, id: string | undefined): Part {
  const signature = googleMetadataString(call.providerMetadata, 'thoughtSignature');
  return {
    functionCall: { ...(id !== undefined ? { id } : {}), name: call.toolName, args: toArgs(call.input) },
    ...(signature !== undefined ? { thoughtSignature: signature } : {}),
  };
}

function functionResponsePart(result: ChatToolResultPart, id: string | undefined): Part {
  return {
    functionResponse: {
      ...(id !== undefined ? { id } : {}),
      name: result.toolName,
      response: result.isError ? { error: result.content } : { output: result.content },
    },
  };
}

function mergeSameRole(contents: Content[]): Content[] {
  const merged: Content[] = [];
  for (const content of contents) {
    const last = merged.at(-1);
    if (last && last.role === content.role) last.parts = [...(last.parts ?? []), ...(content.parts ?? [])];
    else merged.push({ role: content.role, parts: [...(content.parts ?? [])] });
  }
  return merged;
}
