import type { ChatMessage, ChatModelV1Request, ProviderMetadata } from '@troupe/core';
import type { AISdkCallOptions } from './ai-sdk-types';

/** Provider options (`{ openai: { reasoningEffort: 'low' } }`), as the AI SDK's `providerOptions`. */
export type AISdkProviderOptions = Record<string, Record<string, unknown>>;

type PromptMessage = AISdkCallOptions['prompt'][number];

function withOptions<T extends object>(part: T, providerMetadata: ProviderMetadata | undefined): T {
  return providerMetadata !== undefined ? { ...part, providerOptions: providerMetadata } : part;
}

function toPromptMessage(message: ChatMessage): PromptMessage | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.content }] } as PromptMessage;
    case 'assistant': {
      const content: unknown[] = [];
      if (message.content !== '') content.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        content.push(withOptions({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }, call.providerMetadata));
      }
      if (content.length === 0) return undefined; // an empty turn: providers reject empty assistant messages
      // The response-level metadata (`message.providerMetadata`) is not input: only tool calls carry theirs back.
      return { role: 'assistant', content } as PromptMessage;
    }
    case 'tool':
      return {
        role: 'tool',
        content: message.results.map((result) => ({
          type: 'tool-result',
          toolCallId: result.toolCallId,
          toolName: result.toolName,
          output: result.isError ? { type: 'error-text', value: result.content } : { type: 'text', value: result.content },
        })),
      } as PromptMessage;
  }
}

/**
 * The AI SDK call options for a Troupe request (the same for specification
 * v2 and v3): the system prompt as a `system` message, user text, assistant
 * text and tool calls (their provider metadata sent back as
 * `providerOptions`, e.g. Gemini thought signatures), tool results (`text`,
 * or `error-text` for failed calls), function tools with their JSON Schema,
 * tool choice, JSON response format, token cap, temperature, headers and the
 * abort signal.
 *
 * @internal
 */
export function toAISdkCallOptions(
  request: ChatModelV1Request,
  abortSignal: AbortSignal | undefined,
  providerOptions: AISdkProviderOptions | undefined,
): AISdkCallOptions {
  const prompt: PromptMessage[] = [];
  if (request.system !== undefined && request.system !== '') prompt.push({ role: 'system', content: request.system } as PromptMessage);
  for (const message of request.messages) {
    const converted = toPromptMessage(message);
    if (converted !== undefined) prompt.push(converted);
  }
  const options: Record<string, unknown> = { prompt };
  if (request.tools !== undefined && request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
    }));
  }
  if (request.toolChoice !== undefined) options.toolChoice = request.toolChoice;
  if (request.responseFormat !== undefined) options.responseFormat = request.responseFormat;
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.headers !== undefined) options.headers = request.headers;
  if (abortSignal !== undefined) options.abortSignal = abortSignal;
  if (providerOptions !== undefined) options.providerOptions = providerOptions;
  return options as AISdkCallOptions;
}
