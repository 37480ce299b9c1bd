import { FAKE_GEMINI_ROUTER_ANSWER, FAKE_USAGE } from '../fake-llm-constants';
import { pause, sendJson, sendSse, summarizePlan, type FakeExchange, type SseFrame } from '../fake-http';
import type { ConversationView, ReplyPlan } from '../fake-reply-plan';
import { toolResultText } from '../fake-mcp-tool';
import { collectStrings, findWorkspaceDir } from '../fake-workspace-dir';

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}

interface GeminiRequest {
  contents?: Array<{ role?: string; parts?: GeminiPart[] }>;
  systemInstruction?: unknown;
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
  generationConfig?: unknown;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The Google error body: `{"error":{"code":…,"message":…,"status":…}}` (+ `details` when given). */
export function geminiErrorBody(status: number, message: string, details?: readonly unknown[]): unknown {
  const name = STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { error: { code: status, message, status: name, ...(details ? { details } : {}) } };
}

/** Reads tools, function responses and working directory from a generateContent request. */
export function viewGeminiRequest(body: GeminiRequest): ConversationView {
  const contents = body.contents ?? [];
  const last = contents.at(-1);
  const responses = last?.role !== 'model' ? (last?.parts ?? []).filter((part) => part?.functionResponse !== undefined) : [];
  return {
    offeredTools: (body.tools ?? []).flatMap((tool) =>
      (tool?.functionDeclarations ?? []).flatMap((declaration) =>
        typeof declaration?.name === 'string' ? [{ name: declaration.name, kind: 'function' as const }] : [],
      ),
    ),
    lastTurnIsToolResult: responses.length > 0,
    workspaceDir: findWorkspaceDir(collectStrings([contents, body.systemInstruction])),
    lastToolResultText:
      responses.length > 0 ? responses.map((part) => toolResultText((part.functionResponse as { response?: unknown }).response)).join('\n') : undefined,
  };
}

/** The Gemini CLI's model-router call asks for a `complexity_score` JSON object. */
function isRouterRequest(body: GeminiRequest): boolean {
  return JSON.stringify(body.generationConfig ?? {}).includes('complexity_score');
}

function usageMetadata(plan: Extract<ReplyPlan, { kind: 'reply' }>, final: boolean): Record<string, number> {
  const { usage } = plan;
  return final
    ? {
        promptTokenCount: usage.inputTokens,
        candidatesTokenCount: usage.outputTokens,
        totalTokenCount: usage.inputTokens + usage.outputTokens,
        ...plan.gemini?.usageMetadata,
      }
    : { promptTokenCount: usage.inputTokens, totalTokenCount: usage.inputTokens };
}

function candidateChunk(
  parts: GeminiPart[],
  plan: Extract<ReplyPlan, { kind: 'reply' }>,
  model: string,
  responseId: string,
  final: boolean,
): Record<string, unknown> {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(final ? { finishReason: plan.gemini?.finishReason ?? 'STOP' } : {}), index: 0 }],
    usageMetadata: usageMetadata(plan, final),
    modelVersion: model,
    responseId,
  };
}

function functionCallParts(plan: Extract<ReplyPlan, { kind: 'reply' }>): GeminiPart[] {
  const signature = plan.gemini?.thoughtSignature;
  return plan.toolCalls.map((call, index) => ({
    functionCall: {
      ...(call.id ? { id: call.id } : {}),
      name: call.name,
      args: typeof call.arguments === 'string' ? { input: call.arguments } : call.arguments,
    },
    ...(signature !== undefined && index === 0 ? { thoughtSignature: signature } : {}),
  }));
}

/** Thought-summary parts (`thought: true`), sent before the answer. */
function thoughtParts(plan: Extract<ReplyPlan, { kind: 'reply' }>): GeminiPart[] {
  return (plan.gemini?.thoughts ?? []).map((text) => ({ text, thought: true }));
}

/** A text part, signed when it is the last one of a reply without calls (as Gemini 3 does). */
function textPart(plan: Extract<ReplyPlan, { kind: 'reply' }>, text: string, last: boolean): GeminiPart {
  const signature = plan.gemini?.thoughtSignature;
  return signature !== undefined && last && plan.toolCalls.length === 0 ? { text, thoughtSignature: signature } : { text };
}

/**
 * Handles `POST /v1beta/models/{model}:generateContent` (JSON) and
 * `…:streamGenerateContent?alt=sse` (SSE of GenerateContentResponse chunks).
 */
export async function handleGeminiGenerate(exchange: FakeExchange, model: string, stream: boolean): Promise<void> {
  const body = (exchange.body ?? {}) as GeminiRequest;
  exchange.record.model = model;
  exchange.record.stream = stream;
  if (!Array.isArray(body.contents)) {
    exchange.record.reply = ['error:400'];
    sendJson(exchange, 400, geminiErrorBody(400, '* GenerateContentRequest.contents: contents is not specified (fake-llm)'));
    return;
  }
  const responseId = exchange.nextId('resp_fake_');
  if (!stream && isRouterRequest(body)) {
    const text = JSON.stringify(FAKE_GEMINI_ROUTER_ANSWER);
    exchange.record.reply = [`router:${text}`];
    const routerPlan: Extract<ReplyPlan, { kind: 'reply' }> = {
      kind: 'reply',
      textChunks: [text],
      toolCalls: [],
      usage: { ...FAKE_USAGE },
      headers: {},
      delayMs: 0,
      chunkDelayMs: 0,
    };
    sendJson(exchange, 200, candidateChunk([{ text }], routerPlan, model, responseId, true));
    return;
  }
  const plan = exchange.plan(viewGeminiRequest(body));
  exchange.record.reply = summarizePlan(plan);
  if (!(await pause(plan.delayMs, exchange.signal))) return;
  if (plan.kind === 'error') {
    sendJson(exchange, plan.status, geminiErrorBody(plan.status, plan.message, plan.gemini?.errorDetails), plan.headers);
    return;
  }
  const text = plan.textChunks.join('');
  if (!stream) {
    const parts: GeminiPart[] = [...thoughtParts(plan), ...(text ? [textPart(plan, text, true)] : []), ...functionCallParts(plan)];
    sendJson(exchange, 200, candidateChunk(parts, plan, model, responseId, true), plan.headers);
    return;
  }
  const toolParts = functionCallParts(plan);
  const frames: SseFrame[] = thoughtParts(plan).map((part) => ({ data: candidateChunk([part], plan, model, responseId, false) }));
  plan.textChunks.forEach((chunk, index) => {
    const last = index === plan.textChunks.length - 1;
    frames.push({
      data: candidateChunk([textPart(plan, chunk, last)], plan, model, responseId, toolParts.length === 0 && last),
      delayMs: plan.chunkDelayMs,
    });
  });
  if (toolParts.length > 0) frames.push({ data: candidateChunk(toolParts, plan, model, responseId, true) });
  await sendSse(exchange, frames, plan.headers, '\r\n\r\n');
}

/** Handles `POST …:countTokens` with a fixed count. */
export function handleGeminiCountTokens(exchange: FakeExchange): void {
  exchange.record.reply = ['count_tokens'];
  sendJson(exchange, 200, { totalTokens: FAKE_USAGE.inputTokens });
}
