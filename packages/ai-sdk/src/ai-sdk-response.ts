import { type ChatModelV1Response, type ChatModelV1StreamPart, type ChatToolCall, type ProviderMetadata } from '@troupe/core';
import type { AISdkContent, AISdkFinishReason, AISdkStreamPart, AISdkUsage } from './ai-sdk-types';
import { toChatUsage, toStopReason } from './ai-sdk-usage';

/** The AI SDK's tool call content / stream part (v2 and v3 share it). */
type AISdkToolCall = Extract<AISdkContent, { type: 'tool-call' }>;

/**
 * A Troupe tool call from an AI SDK one: its JSON-encoded `input` parsed
 * (kept as the raw text when it is not JSON, so argument validation reports
 * it to the model), and its provider metadata kept for the next request.
 *
 * @internal
 */
export function toChatToolCall(call: AISdkToolCall): ChatToolCall {
  const raw = typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {});
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: parseToolInput(raw),
    rawInput: raw,
    ...(call.providerMetadata !== undefined ? { providerMetadata: call.providerMetadata as ProviderMetadata } : {}),
  };
}

function parseToolInput(raw: string): unknown {
  if (raw.trim() === '') return {}; // a call without arguments
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The result of an AI SDK model's `doGenerate` (either specification), as far as Troupe reads it. */
export interface AISdkGenerateResult {
  content: readonly AISdkContent[];
  finishReason: AISdkFinishReason;
  usage: AISdkUsage;
  providerMetadata?: unknown;
  response?: { id?: string; modelId?: string; body?: unknown };
}

/**
 * A Troupe response from an AI SDK `doGenerate` result: text parts joined,
 * tool calls the client must run (provider-executed ones are the provider's
 * business), usage, stop reason, ids and provider metadata. Reasoning,
 * sources and files are not part of the v1 contract and are left out.
 *
 * @internal
 */
export function toChatResponse(result: AISdkGenerateResult): ChatModelV1Response {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call' && part.providerExecuted !== true) toolCalls.push(toChatToolCall(part));
  }
  const { stopReason, rawStopReason } = toStopReason(result.finishReason);
  return {
    text,
    toolCalls,
    usage: toChatUsage(result.usage),
    stopReason,
    ...(rawStopReason !== undefined ? { rawStopReason } : {}),
    ...(result.response?.id !== undefined ? { responseId: result.response.id } : {}),
    ...(result.response?.modelId !== undefined ? { modelId: result.response.modelId } : {}),
    ...(result.providerMetadata !== undefined ? { providerMetadata: result.providerMetadata as ProviderMetadata } : {}),
    ...(result.response?.body !== undefined ? { rawResponse: result.response.body } : {}),
  };
}

/**
 * Troupe stream parts from an AI SDK stream: `text-delta` → `text-delta`;
 * `tool-call` (complete, not provider-executed) → `tool-call`;
 * `response-metadata` is remembered; `finish` → `usage` + `turn-end`;
 * `error` throws the provider's error (the caller maps it, and
 * `createChatStream` turns it into the `error` part). Everything else
 * (text/reasoning boundaries, tool input deltas, sources, raw chunks) is
 * dropped.
 *
 * @internal
 */
export async function* toChatStreamParts(parts: AsyncIterable<AISdkStreamPart>): AsyncGenerator<ChatModelV1StreamPart> {
  let responseId: string | undefined;
  let modelId: string | undefined;
  for await (const part of parts) {
    switch (part.type) {
      case 'text-delta':
        if (part.delta !== '') yield { type: 'text-delta', text: part.delta };
        break;
      case 'tool-call':
        if (part.providerExecuted !== true) yield { type: 'tool-call', ...toChatToolCall(part) };
        break;
      case 'response-metadata':
        responseId = part.id ?? responseId;
        modelId = part.modelId ?? modelId;
        break;
      case 'finish': {
        const { stopReason, rawStopReason } = toStopReason(part.finishReason);
        yield { type: 'usage', usage: toChatUsage(part.usage) };
        yield {
          type: 'turn-end',
          stopReason,
          ...(rawStopReason !== undefined ? { rawStopReason } : {}),
          ...(responseId !== undefined ? { responseId } : {}),
          ...(modelId !== undefined ? { modelId } : {}),
          ...(part.providerMetadata !== undefined ? { providerMetadata: part.providerMetadata as ProviderMetadata } : {}),
        };
        return;
      }
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
}
