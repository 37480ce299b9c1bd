import type { AgentStreamPart, AgentUsage } from '@troupe/core';
import { z } from 'zod';
import { parseGeminiApiError } from './gemini-cli-api-error';

/** JSON-RPC id of the `session/new` request the ACP driver sends. */
export const GEMINI_ACP_SESSION_REQUEST_ID = 1;
/** JSON-RPC id of the `session/prompt` request the ACP driver sends; its response ends the turn. */
export const GEMINI_ACP_PROMPT_REQUEST_ID = 2;

const responseSchema = z.looseObject({
  jsonrpc: z.literal('2.0').optional(),
  id: z.union([z.number(), z.string()]),
  result: z.unknown().optional(),
  error: z
    .looseObject({ code: z.number().optional(), message: z.string().optional(), data: z.unknown().optional() })
    .optional(),
});

const toolCallSchema = z.looseObject({
  toolCallId: z.string(),
  title: z.string().optional(),
  kind: z.string().optional(),
  status: z.string().optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  content: z.unknown().optional(),
  locations: z.unknown().optional(),
});

const updateSchema = z.looseObject({
  method: z.literal('session/update'),
  params: z.looseObject({
    update: z.looseObject({ sessionUpdate: z.string() }),
  }),
});

const permissionRequestSchema = z.looseObject({
  method: z.literal('session/request_permission'),
  params: z.looseObject({ toolCall: toolCallSchema }),
});

const textChunkSchema = z.looseObject({ content: z.looseObject({ type: z.literal('text'), text: z.string() }) });

const promptResultSchema = z.looseObject({
  stopReason: z.string().optional(),
  _meta: z
    .looseObject({
      quota: z
        .looseObject({
          token_count: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
        })
        .optional(),
    })
    .optional(),
});

/**
 * Turns the JSON-RPC lines of `gemini --acp` (Agent Client Protocol), as
 * printed by the ACP driver, into Troupe stream parts:
 *
 * | line | parts |
 * |---|---|
 * | `session/new` response | `session` |
 * | `session/update` `agent_message_chunk` | `text-delta` |
 * | `session/request_permission`, `session/update` `tool_call` | `tool-call` (once per id) |
 * | `session/update` `tool_call_update`, status `completed`/`failed` | `tool-result` |
 * | `session/prompt` response | `usage` (from `_meta.quota`), `turn-end` |
 * | any error response | `error` (HTTP status from the embedded API error), `turn-end` with `isError` |
 */
export class GeminiAcpStreamParser {
  private text = '';
  private readonly toolNames = new Map<string, string>();

  /** The assistant text of the current turn so far. */
  get turnText(): string {
    return this.text;
  }

  /** Parts for one parsed JSON line. */
  parse(json: unknown): AgentStreamPart[] {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return [];
    const method = (json as { method?: unknown }).method;
    if (method === 'session/update') return this.onUpdate(json);
    if (method === 'session/request_permission') return this.onPermissionRequest(json);
    if (method !== undefined) return [];
    const response = responseSchema.safeParse(json);
    return response.success ? this.onResponse(response.data) : [];
  }

  private onResponse(response: z.infer<typeof responseSchema>): AgentStreamPart[] {
    if (response.error !== undefined) {
      const { code, message, data } = response.error;
      const details = typeof (data as { details?: unknown } | undefined)?.details === 'string' ? (data as { details: string }).details : undefined;
      const info = parseGeminiApiError([message, details].filter(Boolean).join(': ') || 'Gemini ACP request failed');
      const status = info.status ?? (code !== undefined && code >= 400 && code <= 599 ? code : undefined);
      this.reset();
      return [
        { type: 'error', message: info.message, ...(status !== undefined ? { status } : {}) },
        { type: 'turn-end', text: info.message, isError: true, stopReason: 'error' },
      ];
    }
    if (response.id === GEMINI_ACP_SESSION_REQUEST_ID) {
      const sessionId = (response.result as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof sessionId !== 'string' || sessionId === '') return [];
      this.reset();
      return [{ type: 'session', sessionId }];
    }
    if (response.id !== GEMINI_ACP_PROMPT_REQUEST_ID) return [];
    const result = promptResultSchema.safeParse(response.result ?? {});
    const parts: AgentStreamPart[] = [];
    const tokens = result.success ? result.data._meta?.quota?.token_count : undefined;
    if (tokens) {
      const usage: AgentUsage = {};
      if (tokens.input_tokens !== undefined) usage.inputTokens = tokens.input_tokens;
      if (tokens.output_tokens !== undefined) usage.outputTokens = tokens.output_tokens;
      parts.push({ type: 'usage', usage });
    }
    const stopReason = result.success ? result.data.stopReason : undefined;
    parts.push({ type: 'turn-end', text: this.text, isError: false, ...(stopReason ? { stopReason } : {}) });
    this.reset();
    return parts;
  }

  private onUpdate(json: unknown): AgentStreamPart[] {
    const parsed = updateSchema.safeParse(json);
    if (!parsed.success) return [];
    const update = parsed.data.params.update;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        const chunk = textChunkSchema.safeParse(update);
        if (!chunk.success || chunk.data.content.text === '') return [];
        this.text += chunk.data.content.text;
        return [{ type: 'text-delta', text: chunk.data.content.text }];
      }
      case 'tool_call': {
        const call = toolCallSchema.safeParse(update);
        return call.success ? this.toolCall(call.data) : [];
      }
      case 'tool_call_update': {
        const call = toolCallSchema.safeParse(update);
        if (!call.success || (call.data.status !== 'completed' && call.data.status !== 'failed')) return [];
        const { toolCallId } = call.data;
        const toolName = this.toolNames.get(toolCallId) ?? toolNameOf(call.data);
        return [
          {
            type: 'tool-result',
            toolCallId,
            toolName,
            output: call.data.rawOutput ?? call.data.content ?? null,
            isError: call.data.status === 'failed',
          },
        ];
      }
      default:
        return [];
    }
  }

  private onPermissionRequest(json: unknown): AgentStreamPart[] {
    const parsed = permissionRequestSchema.safeParse(json);
    return parsed.success ? this.toolCall(parsed.data.params.toolCall) : [];
  }

  private toolCall(call: z.infer<typeof toolCallSchema>): AgentStreamPart[] {
    if (this.toolNames.has(call.toolCallId)) return [];
    const toolName = toolNameOf(call);
    this.toolNames.set(call.toolCallId, toolName);
    const input =
      call.rawInput ??
      Object.fromEntries(Object.entries({ title: call.title, kind: call.kind, locations: call.locations, content: call.content }).filter(([, value]) => value !== undefined));
    return [{ type: 'tool-call', toolCallId: call.toolCallId, toolName, input }];
  }

  private reset(): void {
    this.text = '';
    this.toolNames.clear();
  }
}

/** Gemini's tool call ids start with the tool name (`write_file__write_file_…`); else the ACP kind or title. */
function toolNameOf(call: { toolCallId: string; kind?: string | undefined; title?: string | undefined }): string {
  const separator = call.toolCallId.indexOf('__');
  if (separator > 0) return call.toolCallId.slice(0, separator);
  return call.kind ?? call.title ?? 'tool';
}

/** True for the line that ends an ACP turn: the `session/prompt` response, or any error response. */
export function isGeminiAcpTurnEnd(line: string): boolean {
  if (!line.includes('"id"')) return false;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return false;
  }
  const response = responseSchema.safeParse(json);
  if (!response.success || (json as { method?: unknown }).method !== undefined) return false;
  return response.data.error !== undefined || (response.data.id === GEMINI_ACP_PROMPT_REQUEST_ID && response.data.result !== undefined);
}

/** The final text of a whole raw ACP output (the prompt's assistant text; `''` for a failed turn). */
export function parseGeminiAcpResponse(rawOutput: string): string {
  const parser = new GeminiAcpStreamParser();
  let text = '';
  for (const line of rawOutput.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      continue;
    }
    for (const part of parser.parse(json)) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'turn-end' && part.isError) text = '';
    }
  }
  return text;
}
