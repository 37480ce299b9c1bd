import type OpenAI from 'openai';
import { InvalidArgumentError, type ChatMessage, type ChatModelV1Request } from '@troupe/core';
import type { ResolvedOpenAIModelSettings } from './openai-model-settings';
import { argumentsText, openAISchema } from './openai-json-schema';

type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;

/** Converts chat messages to Responses API input items. */
export function toResponsesInput(messages: readonly ChatMessage[]): InputItem[] {
  const items: InputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        items.push({ role: 'user', content: message.content });
        break;
      case 'assistant':
        if (message.content !== '') items.push({ role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? []) {
          items.push({ type: 'function_call', call_id: call.toolCallId, name: call.toolName, arguments: argumentsText(call.input, call.rawInput) });
        }
        break;
      case 'tool':
        for (const result of message.results) items.push({ type: 'function_call_output', call_id: result.toolCallId, output: result.content });
        break;
      default:
        throw new InvalidArgumentError('messages', `unknown message role ${JSON.stringify((message as { role?: unknown }).role)}`);
    }
  }
  return items;
}

/** Builds the Responses API body for a request (without `stream`). */
export function toResponsesParams(request: ChatModelV1Request, settings: ResolvedOpenAIModelSettings): ResponsesParams {
  const strict = settings.strictJsonSchema === true;
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  const format = request.responseFormat;
  let textFormat: OpenAI.Responses.ResponseFormatTextConfig | undefined;
  if (format?.type === 'json' && settings.structuredOutput !== 'none') {
    textFormat =
      format.schema && settings.structuredOutput === 'json-schema'
        ? {
            type: 'json_schema',
            name: format.name ?? 'response',
            schema: openAISchema(format.schema, strict),
            strict,
            ...(format.description ? { description: format.description } : {}),
          }
        : { type: 'json_object' };
  }
  const maxOutputTokens = request.maxOutputTokens ?? settings.maxOutputTokens;
  return {
    model: settings.model,
    input: toResponsesInput(request.messages),
    ...(request.system ? { instructions: request.system } : {}),
    ...(maxOutputTokens !== undefined ? { max_output_tokens: maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            name: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            parameters: openAISchema(tool.inputSchema, strict),
            strict,
          })),
        }
      : {}),
    ...(choice && tools.length > 0
      ? { tool_choice: choice.type === 'tool' ? { type: 'function' as const, name: choice.toolName } : choice.type }
      : {}),
    ...(tools.length > 0 && settings.parallelToolCalls !== undefined ? { parallel_tool_calls: settings.parallelToolCalls } : {}),
    ...(settings.store !== undefined ? { store: settings.store } : {}),
    ...(textFormat ? { text: { format: textFormat } } : {}),
  };
}
