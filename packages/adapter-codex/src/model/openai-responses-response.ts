import type OpenAI from 'openai';
import { AbortError, ModelError, type ChatModelV1Response, type ChatModelV1StreamPart, type ChatStopReason, type ChatToolCall, type ChatUsage } from '@troupe/core';
import { parseOpenAIArguments } from './openai-json-schema';

/** Provider id of the Responses API model. */
export const OPENAI_RESPONSES_PROVIDER = 'openai.responses';

type Response = OpenAI.Responses.Response;

/** Maps Responses API usage. */
export function mapResponsesUsage(usage: OpenAI.Responses.ResponseUsage | null | undefined): ChatUsage {
  return {
    inputTokens: usage?.input_tokens,
    outputTokens: usage?.output_tokens,
    cachedInputTokens: usage?.input_tokens_details?.cached_tokens,
    reasoningTokens: usage?.output_tokens_details?.reasoning_tokens,
  };
}

/** The stop reason of a finished response, and its raw form (`completed`, `incomplete:max_output_tokens`). */
export function responsesStopReason(response: Pick<Response, 'status' | 'incomplete_details'>, hasToolCalls: boolean): { stopReason: ChatStopReason; raw: string } {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return { stopReason: reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other', raw: `incomplete:${reason ?? 'unknown'}` };
  }
  if (response.status === 'failed') return { stopReason: 'error', raw: 'failed' };
  return { stopReason: hasToolCalls ? 'tool-calls' : 'stop', raw: response.status ?? 'completed' };
}

function toolCallOf(item: OpenAI.Responses.ResponseFunctionToolCall): ChatToolCall {
  const input = parseOpenAIArguments(item.arguments);
  return { toolCallId: item.call_id, toolName: item.name, input, ...(typeof input === 'string' ? { rawInput: item.arguments } : {}) };
}

function failure(response: Response, requestId: string | undefined): ModelError {
  const message = response.error?.message ?? 'the response failed';
  return new ModelError(`OpenAI response failed${response.error?.code ? ` (${response.error.code})` : ''}: ${message}`, {
    provider: OPENAI_RESPONSES_PROVIDER,
    kind: response.error?.code === 'server_error' ? 'server' : 'stream',
    providerMessage: message,
    ...(response.error?.code ? { providerErrorType: response.error.code } : {}),
    ...(requestId ? { requestId } : {}),
  });
}

/** Maps a complete Responses API response; a `failed` response throws its error. */
export function fromResponsesResponse(response: Response, requestId: string | undefined): ChatModelV1Response {
  if (response.status === 'failed') throw failure(response, requestId);
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of item.content) if (part.type === 'output_text') text += part.text;
    } else if (item.type === 'function_call') {
      toolCalls.push(toolCallOf(item));
    }
  }
  const { stopReason, raw } = responsesStopReason(response, toolCalls.length > 0);
  return {
    text,
    toolCalls,
    usage: mapResponsesUsage(response.usage),
    stopReason,
    rawStopReason: raw,
    responseId: response.id,
    modelId: response.model,
    providerMetadata: { openai: { ...(requestId ? { requestId } : {}), responseId: response.id } },
    rawResponse: response,
  };
}

/**
 * Maps Responses API stream events: `response.output_text.delta` →
 * `text-delta`, a finished `function_call` item → `tool-call`,
 * `response.completed` / `response.incomplete` → `usage` + `turn-end`,
 * `response.failed` → a thrown `ModelError`.
 */
export async function* mapResponsesEvents(
  events: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>,
  requestId: string | undefined,
  abortSignal: AbortSignal | undefined,
): AsyncGenerator<ChatModelV1StreamPart> {
  let toolCallCount = 0;
  for await (const event of events) {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) yield { type: 'text-delta', text: event.delta };
        break;
      case 'response.output_item.done':
        if (event.item.type === 'function_call') {
          toolCallCount++;
          yield { type: 'tool-call', ...toolCallOf(event.item) };
        }
        break;
      case 'response.failed':
        throw failure(event.response, requestId);
      case 'response.completed':
      case 'response.incomplete': {
        const { stopReason, raw } = responsesStopReason(event.response, toolCallCount > 0);
        yield { type: 'usage', usage: mapResponsesUsage(event.response.usage) };
        yield {
          type: 'turn-end',
          stopReason,
          rawStopReason: raw,
          responseId: event.response.id,
          modelId: event.response.model,
          providerMetadata: { openai: { ...(requestId ? { requestId } : {}), responseId: event.response.id } },
        };
        return;
      }
    }
  }
  // The SDK ends the iteration quietly when the request is aborted.
  AbortError.throwIfAborted(abortSignal, 'The OpenAI request');
  throw new ModelError('The OpenAI stream ended before response.completed', { provider: OPENAI_RESPONSES_PROVIDER, kind: 'stream', ...(requestId ? { requestId } : {}) });
}
