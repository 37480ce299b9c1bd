import type OpenAI from 'openai';
import { InvalidArgumentError, type ChatMessage, type ChatModelV1Request } from '@troupe/core';
import type { ResolvedOpenAIModelSettings } from './openai-model-settings';
import { argumentsText, openAISchema } from './openai-json-schema';

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatMessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Converts the system prompt and chat messages to Chat Completions messages. */
export function toChatMessages(system: string | undefined, messages: readonly ChatMessage[], systemRole: 'system' | 'developer'): ChatMessageParam[] {
  const result: ChatMessageParam[] = system ? [{ role: systemRole, content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        result.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        result.push({
          role: 'assistant',
          content: message.content === '' && calls.length > 0 ? null : message.content,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.toolCallId,
                  type: 'function' as const,
                  function: { name: call.toolName, arguments: argumentsText(call.input, call.rawInput) },
                })),
              }
            : {}),
        });
        break;
      }
      case 'tool':
        for (const item of message.results) result.push({ role: 'tool', tool_call_id: item.toolCallId, content: item.content });
        break;
      default:
        throw new InvalidArgumentError('messages', `unknown message role ${JSON.stringify((message as { role?: unknown }).role)}`);
    }
  }
  return result;
}

/** Builds the Chat Completions body for a request (without `stream`). */
export function toChatParams(request: ChatModelV1Request, settings: ResolvedOpenAIModelSettings): ChatParams {
  const strict = settings.strictJsonSchema === true;
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  const format = request.responseFormat;
  let responseFormat: ChatParams['response_format'];
  if (format?.type === 'json' && settings.structuredOutput !== 'none') {
    responseFormat =
      format.schema && settings.structuredOutput === 'json-schema'
        ? {
            type: 'json_schema',
            json_schema: {
              name: format.name ?? 'response',
              schema: openAISchema(format.schema, strict),
              strict,
              ...(format.description ? { description: format.description } : {}),
            },
          }
        : { type: 'json_object' };
  }
  const maxOutputTokens = request.maxOutputTokens ?? settings.maxOutputTokens;
  return {
    model: settings.model,
    messages: toChatMessages(request.system, request.messages, settings.systemMessageRole ?? 'system'),
    ...(maxOutputTokens !== undefined ? { [settings.maxTokensField ?? 'max_completion_tokens']: maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              ...(tool.description ? { description: tool.description } : {}),
              parameters: openAISchema(tool.inputSchema, strict),
              ...(strict ? { strict: true } : {}),
            },
          })),
        }
      : {}),
    ...(choice && tools.length > 0
      ? { tool_choice: choice.type === 'tool' ? { type: 'function' as const, function: { name: choice.toolName } } : choice.type }
      : {}),
    ...(tools.length > 0 && settings.parallelToolCalls !== undefined ? { parallel_tool_calls: settings.parallelToolCalls } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
  };
}
