import type OpenAI from 'openai';
import { AbortError, ModelError, type ChatModelV1Response, type ChatModelV1StreamPart, type ChatStopReason, type ChatToolCall, type ChatUsage } from '@troupe/core';
import { parseOpenAIArguments } from './openai-json-schema';

/** Provider id of the Chat Completions model. */
export const OPENAI_CHAT_PROVIDER = 'openai.chat';

/** Maps Chat Completions `finish_reason`. */
export function mapChatStopReason(reason: string | null | undefined): ChatStopReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Maps Chat Completions usage. */
export function mapChatUsage(usage: OpenAI.Completions.CompletionUsage | null | undefined): ChatUsage {
  return {
    inputTokens: usage?.prompt_tokens,
    outputTokens: usage?.completion_tokens,
    cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens,
  };
}

function toolCall(id: string, name: string, args: string): ChatToolCall {
  const input = parseOpenAIArguments(args);
  return { toolCallId: id, toolName: name, input, ...(typeof input === 'string' ? { rawInput: args } : {}) };
}

/** Maps a complete Chat Completions response (first choice). */
export function fromChatCompletion(completion: OpenAI.Chat.Completions.ChatCompletion, requestId: string | undefined): ChatModelV1Response {
  const choice = completion.choices[0];
  const toolCalls = (choice?.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [toolCall(call.id, call.function.name, call.function.arguments)] : [],
  );
  const finish = choice?.finish_reason;
  return {
    text: choice?.message.content ?? '',
    toolCalls,
    usage: mapChatUsage(completion.usage),
    stopReason: mapChatStopReason(finish),
    ...(finish ? { rawStopReason: finish } : {}),
    responseId: completion.id,
    modelId: completion.model,
    providerMetadata: { openai: { ...(requestId ? { requestId } : {}) } },
    rawResponse: completion,
  };
}

interface OpenCall {
  id: string;
  name: string;
  args: string;
  /** Already yielded as a `tool-call` part. */
  sent: boolean;
}

/** True when `args` is a complete JSON value (what a finished call's arguments are). */
function isCompleteJson(args: string): boolean {
  try {
    JSON.parse(args);
    return true;
  } catch {
    return false;
  }
}

/**
 * Maps Chat Completions chunks: `delta.content` → `text-delta`; tool-call
 * pieces gathered by `index` → one `tool-call` each, as soon as its
 * arguments are complete — when the next call begins (OpenAI streams calls
 * one after another) and they parse, or else at the end — so a runner can
 * start the tool while the rest streams; the usage chunk → `usage`; then
 * `turn-end` with the `finish_reason`.
 */
export async function* mapChatChunks(
  chunks: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  requestId: string | undefined,
  abortSignal: AbortSignal | undefined,
): AsyncGenerator<ChatModelV1StreamPart> {
  const calls = new Map<number, OpenCall>();
  let finish: string | null = null;
  let usage: OpenAI.Completions.CompletionUsage | undefined;
  let responseId: string | undefined;
  let modelId: string | undefined;
  let sawChunk = false;
  for await (const chunk of chunks) {
    sawChunk = true;
    responseId ??= chunk.id;
    modelId ??= chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) yield { type: 'text-delta', text: choice.delta.content };
    for (const piece of choice.delta.tool_calls ?? []) {
      if (!calls.has(piece.index)) {
        // A new call begins: the earlier ones are complete. Sent in order; one whose arguments do not parse waits for the end, and so do those after it.
        for (const [index, earlier] of calls) {
          if (index > piece.index) break;
          if (earlier.sent) continue;
          if (!isCompleteJson(earlier.args)) break;
          earlier.sent = true;
          yield { type: 'tool-call', ...toolCall(earlier.id || `call_${index}`, earlier.name, earlier.args) };
        }
      }
      const open = calls.get(piece.index) ?? { id: '', name: '', args: '', sent: false };
      if (piece.id) open.id = piece.id;
      if (piece.function?.name) open.name += piece.function.name;
      if (piece.function?.arguments) open.args += piece.function.arguments;
      calls.set(piece.index, open);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  // The SDK ends the iteration quietly when the request is aborted.
  AbortError.throwIfAborted(abortSignal, 'The OpenAI request');
  if (!sawChunk || finish === null) {
    throw new ModelError('The OpenAI chat stream ended without a finish_reason', { provider: OPENAI_CHAT_PROVIDER, kind: 'stream', ...(requestId ? { requestId } : {}) });
  }
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
  for (const [index, call] of ordered) if (!call.sent) yield { type: 'tool-call', ...toolCall(call.id || `call_${index}`, call.name, call.args) };
  if (usage) yield { type: 'usage', usage: mapChatUsage(usage) };
  yield {
    type: 'turn-end',
    stopReason: mapChatStopReason(finish),
    rawStopReason: finish,
    ...(responseId ? { responseId } : {}),
    ...(modelId ? { modelId } : {}),
    providerMetadata: { openai: { ...(requestId ? { requestId } : {}) } },
  };
}
