import { pause, sendJson, sendSse, summarizePlan, type FakeExchange, type SseFrame } from '../fake-http';
import type { ConversationView } from '../fake-reply-plan';
import { toolResultText } from '../fake-mcp-tool';
import { collectStrings, findWorkspaceDir } from '../fake-workspace-dir';
import { openAiErrorBody } from './openai-errors';

interface ChatRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: Array<{ type?: string; function?: { name?: string } }>;
}

/** Reads tools, tool results and working directory from a Chat Completions request. */
export function viewChatRequest(body: ChatRequest): ConversationView {
  const messages = body.messages ?? [];
  return {
    offeredTools: (body.tools ?? []).flatMap((tool) =>
      typeof tool?.function?.name === 'string' ? [{ name: tool.function.name, kind: 'function' as const }] : [],
    ),
    lastTurnIsToolResult: messages.at(-1)?.role === 'tool',
    workspaceDir: findWorkspaceDir(collectStrings(messages)),
    lastToolResultText: messages.at(-1)?.role === 'tool' ? toolResultText(messages.at(-1)?.content) : undefined,
  };
}

/** Handles `POST /v1/chat/completions` (JSON, or SSE `chat.completion.chunk` frames ending in `[DONE]`). */
export async function handleOpenAiChat(exchange: FakeExchange): Promise<void> {
  const body = (exchange.body ?? {}) as ChatRequest;
  exchange.record.model = body.model;
  exchange.record.stream = body.stream === true;
  if (!Array.isArray(body.messages)) {
    exchange.record.reply = ['error:400'];
    sendJson(exchange, 400, openAiErrorBody(400, "Missing required parameter: 'messages'. (fake-llm)", 'messages'));
    return;
  }
  const plan = exchange.plan(viewChatRequest(body));
  exchange.record.reply = summarizePlan(plan);
  if (!(await pause(plan.delayMs, exchange.signal))) return;
  if (plan.kind === 'error') {
    // No x-request-id on errors: Codex would append `, request id: …` to the message the fixtures show.
    sendJson(exchange, plan.status, openAiErrorBody(plan.status, plan.message), plan.headers);
    return;
  }
  const id = exchange.nextId('chatcmpl-fake-');
  const model = body.model ?? 'gpt-fake';
  const created = Math.floor(Date.now() / 1000);
  const text = plan.textChunks.join('');
  const toolCalls = plan.toolCalls.map((call) => ({
    id: call.id ?? exchange.nextId('call_fake_'),
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = {
    prompt_tokens: plan.usage.inputTokens,
    completion_tokens: plan.usage.outputTokens,
    total_tokens: plan.usage.inputTokens + plan.usage.outputTokens,
  };
  const headers = { 'x-request-id': exchange.nextId('req_fake_'), ...plan.headers };
  if (!body.stream) {
    sendJson(
      exchange,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text === '' ? null : text, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      },
      headers,
    );
    return;
  }
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, delayMs = 0): SseFrame => ({
    data: {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    },
    delayMs,
  });
  const frames: SseFrame[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const part of plan.textChunks) frames.push(chunk({ content: part }, null, plan.chunkDelayMs));
  toolCalls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    const args = call.function.arguments;
    const middle = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, middle), args.slice(middle)]) {
      if (part) frames.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  frames.push(chunk({}, finishReason));
  if (includeUsage) {
    frames.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage } });
  }
  frames.push({ data: '[DONE]' });
  await sendSse(exchange, frames, headers);
}
