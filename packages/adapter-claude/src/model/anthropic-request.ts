import type Anthropic from '@anthropic-ai/sdk';
import { InvalidArgumentError, type ChatMessage, type ChatModelV1Request, type JsonSchema } from '@troupe/core';
import type { ResolvedAnthropicModelSettings } from './anthropic-model-settings';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;

function toolInput(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

function toBlocks(message: ChatMessage): { role: 'user' | 'assistant'; blocks: ContentBlockParam[] } {
  switch (message.role) {
    case 'user':
      return { role: 'user', blocks: message.content === '' ? [] : [{ type: 'text', text: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        blocks: [
          ...(message.content !== '' ? [{ type: 'text' as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool_use' as const,
            id: call.toolCallId,
            name: call.toolName,
            input: toolInput(call.input),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'user',
        blocks: message.results.map((result) => ({
          type: 'tool_result' as const,
          tool_use_id: result.toolCallId,
          content: result.content,
          ...(result.isError ? { is_error: true } : {}),
        })),
      };
    default:
      throw new InvalidArgumentError('messages', `unknown message role ${JSON.stringify((message as { role?: unknown }).role)}`);
  }
}

/**
 * Converts chat messages to Messages API turns: tool results become
 * `tool_result` blocks of a user turn, consecutive turns of one role are
 * merged (the API wants them alternating), empty turns are dropped.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const turns: Array<{ role: 'user' | 'assistant'; blocks: ContentBlockParam[] }> = [];
  for (const message of messages) {
    const turn = toBlocks(message);
    if (turn.blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last && last.role === turn.role) last.blocks.push(...turn.blocks);
    else turns.push(turn);
  }
  return turns.map(({ role, blocks }) => ({
    role,
    // A single text block is sent as a plain string, as most clients do.
    content: blocks.length === 1 && blocks[0]?.type === 'text' ? blocks[0].text : blocks,
  }));
}

/**
 * Structured outputs need `additionalProperties: false` on every object;
 * zod's input-side schemas leave it open. Closes every object that does not
 * say otherwise.
 */
export function closeJsonSchemaObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeJsonSchemaObjects);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    result[key] = key === 'properties' || key === '$defs' || key === 'definitions'
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, closeJsonSchemaObjects(sub)]))
      : closeJsonSchemaObjects(value);
  }
  if (result.type === 'object' && result.additionalProperties === undefined) result.additionalProperties = false;
  return result;
}

/** Builds the Messages API body for a request (without `stream`). */
export function toAnthropicParams(request: ChatModelV1Request, settings: ResolvedAnthropicModelSettings): CreateParams {
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  const parallel = settings.disableParallelToolUse ? { disable_parallel_tool_use: true } : {};
  let toolChoice: CreateParams['tool_choice'];
  if (choice && tools.length > 0) {
    if (choice.type === 'auto') toolChoice = { type: 'auto', ...parallel };
    else if (choice.type === 'required') toolChoice = { type: 'any', ...parallel };
    else if (choice.type === 'none') toolChoice = { type: 'none' };
    else toolChoice = { type: 'tool', name: choice.toolName, ...parallel };
  } else if (tools.length > 0 && settings.disableParallelToolUse) {
    toolChoice = { type: 'auto', ...parallel };
  }
  const format = request.responseFormat;
  const outputSchema: JsonSchema | undefined =
    format?.type === 'json' && format.schema && settings.structuredOutput === 'json-schema'
      ? (closeJsonSchemaObjects(format.schema) as JsonSchema)
      : undefined;
  return {
    model: settings.model,
    max_tokens: request.maxOutputTokens ?? settings.maxOutputTokens,
    messages: toAnthropicMessages(request.messages),
    ...(request.system ? { system: request.system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
          })),
        }
      : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(outputSchema ? { output_config: { format: { type: 'json_schema', schema: outputSchema } } } : {}),
  };
}
