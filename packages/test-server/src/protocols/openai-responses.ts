import { pause, sendJson, sendSse, summarizePlan, type FakeExchange, type SseFrame } from '../fake-http';
import type { ConversationView, OfferedTool, ReplyPlan } from '../fake-reply-plan';
import { mentionsDeferredMcpNamespace, toolResultText } from '../fake-mcp-tool';
import { collectStrings, findWorkspaceDir } from '../fake-workspace-dir';
import { openAiErrorBody } from './openai-errors';

interface ResponsesTool {
  type?: string;
  name?: string;
  /** A `namespace` tool's members (Codex: one namespace per MCP server). */
  tools?: ResponsesTool[];
}

interface ResponsesRequest {
  model?: string;
  stream?: boolean;
  input?: unknown;
  instructions?: unknown;
  tools?: ResponsesTool[];
}

const TOOL_OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

function offered(tools: readonly ResponsesTool[] | undefined, namespace?: string): OfferedTool[] {
  return (tools ?? []).flatMap((tool): OfferedTool[] => {
    if (tool?.type === 'namespace' && typeof tool.name === 'string') return offered(tool.tools, tool.name);
    if (tool?.type === 'tool_search') return [{ name: 'tool_search', kind: 'tool_search' }];
    if (typeof tool?.name !== 'string') return [];
    return [{ name: tool.name, kind: tool.type === 'custom' ? 'custom' : 'function', ...(namespace !== undefined ? { namespace } : {}) }];
  });
}

/** Reads tools (namespaces and `tool_search` results included), tool outputs and working directory from a Responses request. */
export function viewResponsesRequest(body: ResponsesRequest): ConversationView {
  const input = Array.isArray(body.input) ? (body.input as Array<{ type?: string; role?: string; output?: unknown; tools?: ResponsesTool[] }>) : [];
  // Tools a `tool_search` call loaded earlier in the conversation are callable too.
  const searched = input.filter((item) => item?.type === 'tool_search_output').flatMap((item) => offered(item.tools));
  const last = input.at(-1);
  const lastIsResult = last !== undefined && TOOL_OUTPUT_TYPES.has(last.type ?? '');
  return {
    offeredTools: [...offered(body.tools), ...searched],
    lastTurnIsToolResult: lastIsResult,
    workspaceDir: findWorkspaceDir(collectStrings([body.input, body.instructions])),
    lastToolResultText: lastIsResult ? toolResultText(last?.output) : undefined,
    deferredMcpNamespace: mentionsDeferredMcpNamespace(collectStrings([body.input, body.instructions])),
  };
}

type OutputItem =
  | { type: 'message'; id: string; status: string; role: 'assistant'; content: Array<{ type: 'output_text'; text: string; annotations: [] }> }
  | { type: 'function_call'; id: string; call_id: string; name: string; namespace?: string; arguments: string; status: string }
  | { type: 'custom_tool_call'; id: string; call_id: string; name: string; input: string; status: string }
  | { type: 'tool_search_call'; id: string; call_id: string; execution: 'client'; arguments: unknown; status: string };

function outputItems(exchange: FakeExchange, plan: Extract<ReplyPlan, { kind: 'reply' }>, view: ConversationView): OutputItem[] {
  const items: OutputItem[] = [];
  if (plan.textChunks.length > 0) {
    items.push({
      type: 'message',
      id: exchange.nextId('msg_fake_'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: plan.textChunks.join(''), annotations: [] }],
    });
  }
  const customTools = new Set(view.offeredTools.filter((tool) => tool.kind === 'custom').map((tool) => tool.name));
  for (const call of plan.toolCalls) {
    const callId = call.id ?? exchange.nextId('call_fake_');
    if (call.name === 'tool_search') {
      items.push({ type: 'tool_search_call', id: exchange.nextId('tsc_fake_'), call_id: callId, execution: 'client', arguments: call.arguments, status: 'completed' });
    } else if (typeof call.arguments === 'string' && customTools.has(call.name)) {
      items.push({ type: 'custom_tool_call', id: exchange.nextId('ctc_fake_'), call_id: callId, name: call.name, input: call.arguments, status: 'completed' });
    } else {
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      items.push({
        type: 'function_call',
        id: exchange.nextId('fc_fake_'),
        call_id: callId,
        name: call.name,
        ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
        arguments: args,
        status: 'completed',
      });
    }
  }
  return items;
}

function responseObject(id: string, model: string, status: string, output: OutputItem[], usage: unknown): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
}

function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((part) => part.length > 0);
}

function itemFrames(item: OutputItem, outputIndex: number, plan: Extract<ReplyPlan, { kind: 'reply' }>): SseFrame[] {
  const frames: SseFrame[] = [];
  const frame = (type: string, data: Record<string, unknown>, delayMs?: number): SseFrame => ({ event: type, data: { type, ...data }, delayMs });
  if (item.type === 'message') {
    const text = item.content[0]?.text ?? '';
    const base = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    frames.push(
      frame('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }),
      frame('response.content_part.added', { ...base, part: { type: 'output_text', text: '', annotations: [] } }),
      ...plan.textChunks.map((chunk) => frame('response.output_text.delta', { ...base, delta: chunk, logprobs: [] }, plan.chunkDelayMs)),
      frame('response.output_text.done', { ...base, text, logprobs: [] }),
      frame('response.content_part.done', { ...base, part: { type: 'output_text', text, annotations: [] } }),
    );
  } else if (item.type === 'function_call') {
    const base = { item_id: item.id, output_index: outputIndex };
    frames.push(
      frame('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } }),
      ...halves(item.arguments).map((delta) => frame('response.function_call_arguments.delta', { ...base, delta })),
      frame('response.function_call_arguments.done', { ...base, name: item.name, arguments: item.arguments }),
    );
  } else if (item.type === 'tool_search_call') {
    frames.push(frame('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress' } }));
  } else {
    const base = { item_id: item.id, output_index: outputIndex };
    frames.push(
      frame('response.output_item.added', { output_index: outputIndex, item: { ...item, input: '', status: 'in_progress' } }),
      ...halves(item.input).map((delta) => frame('response.custom_tool_call_input.delta', { ...base, delta })),
      frame('response.custom_tool_call_input.done', { ...base, input: item.input }),
    );
  }
  frames.push(frame('response.output_item.done', { output_index: outputIndex, item }));
  return frames;
}

/** Handles `POST /v1/responses` (JSON or SSE with the real event names). */
export async function handleOpenAiResponses(exchange: FakeExchange): Promise<void> {
  const body = (exchange.body ?? {}) as ResponsesRequest;
  exchange.record.model = body.model;
  exchange.record.stream = body.stream === true;
  if (body.input === undefined) {
    exchange.record.reply = ['error:400'];
    sendJson(exchange, 400, openAiErrorBody(400, "Missing required parameter: 'input'. (fake-llm)", 'input'));
    return;
  }
  const view = viewResponsesRequest(body);
  const plan = exchange.plan(view);
  exchange.record.reply = summarizePlan(plan);
  if (!(await pause(plan.delayMs, exchange.signal))) return;
  if (plan.kind === 'error') {
    // No x-request-id on errors: Codex would append `, request id: …` to the message the fixtures show.
    sendJson(exchange, plan.status, openAiErrorBody(plan.status, plan.message), plan.headers);
    return;
  }
  const model = body.model ?? 'gpt-fake';
  const responseId = exchange.nextId('resp_fake_');
  const items = outputItems(exchange, plan, view);
  const usage = {
    input_tokens: plan.usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: plan.usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: plan.usage.inputTokens + plan.usage.outputTokens,
  };
  const headers = { 'x-request-id': exchange.nextId('req_fake_'), ...plan.headers };
  if (!body.stream) {
    sendJson(exchange, 200, responseObject(responseId, model, 'completed', items, usage), headers);
    return;
  }
  const frames: SseFrame[] = [
    { event: 'response.created', data: { type: 'response.created', response: responseObject(responseId, model, 'in_progress', [], null) } },
    { event: 'response.in_progress', data: { type: 'response.in_progress', response: responseObject(responseId, model, 'in_progress', [], null) } },
    ...items.flatMap((item, index) => itemFrames(item, index, plan)),
    { event: 'response.completed', data: { type: 'response.completed', response: responseObject(responseId, model, 'completed', items, usage) } },
  ];
  let sequence = 0;
  for (const frame of frames) (frame.data as Record<string, unknown>).sequence_number = sequence++;
  await sendSse(exchange, frames, headers);
}
