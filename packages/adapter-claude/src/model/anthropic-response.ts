import type Anthropic from '@anthropic-ai/sdk';
import type { ChatModelV1Response, ChatStopReason, ChatToolCall, ChatUsage } from '@troupe/core';

/** Maps the Messages API `stop_reason` to a chat stop reason. */
export function mapAnthropicStopReason(reason: string | null | undefined): ChatStopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Raw usage fields as they appear in `message_start` / `message_delta` / a message. */
export interface AnthropicRawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/**
 * Maps Anthropic usage. `input_tokens` there excludes cache reads and
 * writes; ours includes them (cache reads also in `cachedInputTokens`).
 */
export function mapAnthropicUsage(usage: AnthropicRawUsage | null | undefined): ChatUsage {
  if (!usage) return { inputTokens: undefined, outputTokens: undefined };
  const input = usage.input_tokens ?? undefined;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: input === undefined ? undefined : input + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens ?? undefined,
    cachedInputTokens: usage.cache_read_input_tokens ?? undefined,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? undefined,
  };
}

/** Parses streamed tool input JSON; an unparsable text is returned as the raw string. */
export function parseToolInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Maps a complete Messages API response. */
export function fromAnthropicMessage(message: Anthropic.Messages.Message, requestId: string | undefined): ChatModelV1Response {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ toolCallId: block.id, toolName: block.name, input: block.input });
  }
  return {
    text,
    toolCalls,
    usage: mapAnthropicUsage(message.usage),
    stopReason: mapAnthropicStopReason(message.stop_reason),
    ...(message.stop_reason ? { rawStopReason: message.stop_reason } : {}),
    responseId: message.id,
    modelId: message.model,
    providerMetadata: {
      anthropic: {
        ...(requestId ? { requestId } : {}),
        ...(message.stop_sequence ? { stopSequence: message.stop_sequence } : {}),
      },
    },
    rawResponse: message,
  };
}
