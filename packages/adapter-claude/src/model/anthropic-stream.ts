import type Anthropic from '@anthropic-ai/sdk';
import { AbortError, ModelError, type ChatModelV1StreamPart } from '@troupe/core';
import { mapAnthropicStopReason, mapAnthropicUsage, parseToolInput, type AnthropicRawUsage } from './anthropic-response';

interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

/**
 * Maps Messages API stream events to chat stream parts: `text_delta` →
 * `text-delta`; a `tool_use` block's `input_json_delta` pieces → one
 * `tool-call` at `content_block_stop`; usage from `message_start` and
 * `message_delta` → `usage`; `message_stop` → `turn-end`. An `error` event
 * makes the SDK throw, which the caller maps to a `ModelError`.
 */
export async function* mapAnthropicEvents(
  events: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>,
  requestId: string | undefined,
  abortSignal?: AbortSignal,
): AsyncGenerator<ChatModelV1StreamPart> {
  const tools = new Map<number, OpenToolUse>();
  let usage: AnthropicRawUsage = {};
  let stopReason: string | null = null;
  let stopSequence: string | null = null;
  let responseId: string | undefined;
  let modelId: string | undefined;
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        responseId = event.message.id;
        modelId = event.message.model;
        usage = { ...event.message.usage };
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          tools.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
        } else if (event.content_block.type === 'text' && event.content_block.text) {
          yield { type: 'text-delta', text: event.content_block.text };
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          if (event.delta.text) yield { type: 'text-delta', text: event.delta.text };
        } else if (event.delta.type === 'input_json_delta') {
          const tool = tools.get(event.index);
          if (tool) tool.json += event.delta.partial_json;
        }
        break;
      case 'content_block_stop': {
        const tool = tools.get(event.index);
        if (tool) {
          tools.delete(event.index);
          const input = parseToolInput(tool.json);
          yield {
            type: 'tool-call',
            toolCallId: tool.id,
            toolName: tool.name,
            input,
            ...(typeof input === 'string' ? { rawInput: tool.json } : {}),
          };
        }
        break;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        stopSequence = event.delta.stop_sequence ?? stopSequence;
        // message_delta usage is cumulative; keep fields it leaves out.
        for (const [key, value] of Object.entries(event.usage ?? {})) {
          if (value !== null && value !== undefined) (usage as Record<string, unknown>)[key] = value;
        }
        break;
      case 'message_stop':
        yield { type: 'usage', usage: mapAnthropicUsage(usage) };
        yield {
          type: 'turn-end',
          stopReason: mapAnthropicStopReason(stopReason),
          ...(stopReason ? { rawStopReason: stopReason } : {}),
          ...(responseId ? { responseId } : {}),
          ...(modelId ? { modelId } : {}),
          providerMetadata: { anthropic: { ...(requestId ? { requestId } : {}), ...(stopSequence ? { stopSequence } : {}) } },
        };
        return;
    }
  }
  // The SDK ends the iteration quietly when the request is aborted.
  AbortError.throwIfAborted(abortSignal, 'The Anthropic request');
  throw new ModelError('The Anthropic stream ended before message_stop', { provider: 'anthropic.messages', kind: 'stream', ...(requestId ? { requestId } : {}) });
}
