import { pause, sendJson, sendSse, summarizePlan, type FakeExchange, type SseFrame } from '../fake-http';
import type { ConversationView, ReplyPlan } from '../fake-reply-plan';
import { findDeferredMcpToolNames, toolResultText } from '../fake-mcp-tool';
import { collectStrings, findWorkspaceDir } from '../fake-workspace-dir';

interface AnthropicMessage {
  role?: string;
  content?: unknown;
}

interface AnthropicRequest {
  model?: string;
  stream?: boolean;
  messages?: AnthropicMessage[];
  system?: unknown;
  tools?: Array<{ name?: string }>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** The Anthropic error body: `{"type":"error","error":{"type":…,"message":…}}`. */
export function anthropicErrorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}

function hasToolResult(message: AnthropicMessage | undefined): boolean {
  return (
    message?.role === 'user' &&
    Array.isArray(message.content) &&
    message.content.some((block: unknown) => (block as { type?: unknown })?.type === 'tool_result')
  );
}

/** Reads tools, tool results and working directory from a Messages request. */
export function viewAnthropicRequest(body: AnthropicRequest): ConversationView {
  const messages = body.messages ?? [];
  // Claude Code puts a `role:"system"` entry (environment info) inside `messages`.
  const conversational = messages.filter((message) => message.role !== 'system');
  const last = conversational.at(-1);
  const texts = collectStrings([messages.filter((message) => message.role === 'system'), body.system, messages]);
  const results = hasToolResult(last) ? (last?.content as Array<{ type?: string; content?: unknown }>).filter((block) => block?.type === 'tool_result') : [];
  return {
    offeredTools: (body.tools ?? []).flatMap((tool) => (typeof tool?.name === 'string' ? [{ name: tool.name, kind: 'function' as const }] : [])),
    lastTurnIsToolResult: results.length > 0,
    workspaceDir: findWorkspaceDir(texts),
    lastToolResultText: results.length > 0 ? results.map((block) => toolResultText(block.content)).join('\n') : undefined,
    // Claude Code names deferred tools (MCP ones included) in its prompt; the model may call them by name.
    deferredMcpToolNames: findDeferredMcpToolNames(collectStrings([body.system, messages])),
  };
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

function contentBlocks(exchange: FakeExchange, plan: Extract<ReplyPlan, { kind: 'reply' }>): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (plan.textChunks.length > 0) blocks.push({ type: 'text', text: plan.textChunks.join('') });
  for (const call of plan.toolCalls) {
    const input = typeof call.arguments === 'string' ? safeJson(call.arguments) : call.arguments;
    blocks.push({ type: 'tool_use', id: call.id ?? exchange.nextId('toolu_fake_'), name: call.name, input });
  }
  return blocks;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { input: text };
  }
}

/** Handles `POST /v1/messages` (JSON or SSE). */
export async function handleAnthropicMessages(exchange: FakeExchange): Promise<void> {
  const body = (exchange.body ?? {}) as AnthropicRequest;
  exchange.record.model = body.model;
  exchange.record.stream = body.stream === true;
  if (!Array.isArray(body.messages)) {
    exchange.record.reply = ['error:400'];
    sendJson(exchange, 400, anthropicErrorBody(400, 'messages: Field required (fake-llm)'));
    return;
  }
  const plan = exchange.plan(viewAnthropicRequest(body));
  exchange.record.reply = summarizePlan(plan);
  if (!(await pause(plan.delayMs, exchange.signal))) return;
  const requestId = exchange.nextId('req_fake_');
  if (plan.kind === 'error') {
    sendJson(exchange, plan.status, anthropicErrorBody(plan.status, plan.message), { 'request-id': requestId, ...plan.headers });
    return;
  }
  const model = body.model ?? 'claude-fake';
  const messageId = exchange.nextId('msg_fake_');
  const blocks = contentBlocks(exchange, plan);
  const stopReason = plan.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
  const headers = { 'request-id': requestId, ...plan.headers };
  const usage = {
    input_tokens: plan.usage.inputTokens,
    output_tokens: plan.usage.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  if (!body.stream) {
    sendJson(
      exchange,
      200,
      { id: messageId, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage },
      headers,
    );
    return;
  }
  const frames: SseFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const chunk of plan.textChunks) {
        frames.push({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: chunk } },
          delayMs: plan.chunkDelayMs,
        });
      }
    } else {
      frames.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
      });
      const json = JSON.stringify(block.input);
      const middle = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, middle), json.slice(middle)]) {
        frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } } });
      }
    }
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  frames.push(
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: plan.usage.outputTokens } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  await sendSse(exchange, frames, headers);
}

/** Handles `POST /v1/messages/count_tokens` with a fixed count. */
export function handleAnthropicCountTokens(exchange: FakeExchange): void {
  exchange.record.reply = ['count_tokens'];
  sendJson(exchange, 200, { input_tokens: 12 });
}
