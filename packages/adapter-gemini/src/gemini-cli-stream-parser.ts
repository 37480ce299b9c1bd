import { EMPTY_ANSWER_STOP_REASON, type AgentStreamPart, type AgentUsage } from '@troupe/core';
import { parseGeminiApiError } from './gemini-cli-api-error';
import {
  geminiErrorEventSchema,
  geminiInitEventSchema,
  geminiMessageEventSchema,
  geminiResultEventSchema,
  geminiToolResultEventSchema,
  geminiToolUseEventSchema,
  GEMINI_CLI_RESULT_TYPE,
  type GeminiResultEvent,
} from './gemini-cli-events';

/** Gemini CLI's messages for a turn whose model answered nothing ("The model returned an empty response…", "…an empty text response…"). */
const EMPTY_ANSWER_MESSAGE = /\bmodel returned an empty (?:text )?response\b/i;

/**
 * Turns Gemini CLI `-o stream-json` events into Troupe stream parts, keeping
 * the state one turn needs: the assistant text so far (`turn-end.text`, the
 * answer, on success and failure alike),
 * tool names by id (the `tool_result` event has only the id) and the last
 * error event (a failed `result` may carry no message of its own).
 *
 * | event | parts |
 * |---|---|
 * | `init` | `session` (and a fresh turn) |
 * | `message` role `assistant` | `text-delta` |
 * | `tool_use` | `tool-call` |
 * | `tool_result` | `tool-result` (`isError` for status `error`) |
 * | `error` | `error` (severity `warning` or `error`) |
 * | `result` success | `usage`, `turn-end` (text = the turn's assistant text) |
 * | `result` error | `usage`, `error` (message and HTTP status from the API error, unless an `error` event gave it), `turn-end` with `isError` (text = the assistant text before the failure; `stopReason` `empty-answer` when the CLI failed it because the model answered nothing) |
 *
 * Anything else (user echo, unknown types, malformed lines) yields `[]`.
 */
export class GeminiCliStreamParser {
  private text = '';
  private readonly toolNames = new Map<string, string>();
  private lastError: { message: string; status?: number } | undefined;

  /** The assistant text of the current turn so far. */
  get turnText(): string {
    return this.text;
  }

  /** Forgets the current turn (a new process run starts with `init`). */
  reset(): void {
    this.text = '';
    this.toolNames.clear();
    this.lastError = undefined;
  }

  /** Parts for one parsed JSON line. */
  parse(json: unknown): AgentStreamPart[] {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return [];
    switch ((json as { type?: unknown }).type) {
      case 'init':
        return this.onInit(json);
      case 'message':
        return this.onMessage(json);
      case 'tool_use':
        return this.onToolUse(json);
      case 'tool_result':
        return this.onToolResult(json);
      case 'error':
        return this.onError(json);
      case GEMINI_CLI_RESULT_TYPE:
        return this.onResult(json);
      default:
        return [];
    }
  }

  private onInit(json: unknown): AgentStreamPart[] {
    const event = geminiInitEventSchema.safeParse(json);
    if (!event.success) return [];
    this.reset();
    return [{ type: 'session', sessionId: event.data.session_id, ...(event.data.model ? { model: event.data.model } : {}) }];
  }

  private onMessage(json: unknown): AgentStreamPart[] {
    const event = geminiMessageEventSchema.safeParse(json);
    if (!event.success || event.data.role !== 'assistant' || event.data.content === '') return [];
    this.text += event.data.content;
    return [{ type: 'text-delta', text: event.data.content }];
  }

  private onToolUse(json: unknown): AgentStreamPart[] {
    const event = geminiToolUseEventSchema.safeParse(json);
    if (!event.success) return [];
    this.toolNames.set(event.data.tool_id, event.data.tool_name);
    return [{ type: 'tool-call', toolCallId: event.data.tool_id, toolName: event.data.tool_name, input: event.data.parameters ?? {} }];
  }

  private onToolResult(json: unknown): AgentStreamPart[] {
    const event = geminiToolResultEventSchema.safeParse(json);
    if (!event.success) return [];
    const { tool_id: toolCallId, status, output, error } = event.data;
    const toolName = this.toolNames.get(toolCallId);
    const isError = status !== 'success';
    return [
      {
        type: 'tool-result',
        toolCallId,
        ...(toolName !== undefined ? { toolName } : {}),
        output: isError ? (error ?? output ?? null) : (output ?? null),
        isError,
      },
    ];
  }

  private onError(json: unknown): AgentStreamPart[] {
    const event = geminiErrorEventSchema.safeParse(json);
    if (!event.success) return [];
    const info = parseGeminiApiError(event.data.message);
    const message = event.data.severity === 'warning' ? `warning: ${info.message}` : info.message;
    if (event.data.severity !== 'warning') this.lastError = info;
    return [{ type: 'error', message, ...(info.status !== undefined ? { status: info.status } : {}) }];
  }

  private onResult(json: unknown): AgentStreamPart[] {
    const event = geminiResultEventSchema.safeParse(json);
    if (!event.success) return [];
    const parts: AgentStreamPart[] = [];
    const usage = usageOf(event.data);
    if (usage) parts.push({ type: 'usage', usage });
    if (event.data.status === 'error') {
      const fromResult = event.data.error?.message ? parseGeminiApiError(event.data.error.message) : undefined;
      // The error goes in an `error` part (unless an `error` event already reported it); the answer stays the assistant text.
      const info = fromResult ?? (this.lastError ? undefined : { message: `Gemini CLI turn failed (${event.data.error?.type ?? 'no error message'})` });
      if (info) parts.push({ type: 'error', message: info.message, ...(info.status !== undefined ? { status: info.status } : {}) });
      // The CLI's own verdict that the model answered nothing: an empty answer, not an API error (a typed turn says so).
      const empty = EMPTY_ANSWER_MESSAGE.test((info ?? this.lastError)?.message ?? '');
      parts.push({ type: 'turn-end', text: this.text, isError: true, stopReason: empty ? EMPTY_ANSWER_STOP_REASON : (event.data.error?.type ?? 'error') });
    } else {
      parts.push({ type: 'turn-end', text: this.text, isError: false, stopReason: event.data.status ?? 'success' });
    }
    this.reset();
    return parts;
  }
}

function usageOf(event: GeminiResultEvent): AgentUsage | undefined {
  const stats = event.stats;
  if (!stats) return undefined;
  const usage: AgentUsage = {};
  if (stats.input_tokens !== undefined) usage.inputTokens = stats.input_tokens;
  if (stats.output_tokens !== undefined) usage.outputTokens = stats.output_tokens;
  if (stats.cached !== undefined) usage.cachedInputTokens = stats.cached;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * The final answer of a whole raw `-o stream-json` output: the assistant
 * text of its last turn (what `turn-end.text` holds on success), or, when
 * the output has no `result` line, all assistant text seen. A failed turn
 * gives the assistant text it streamed before failing (usually `''`; the
 * error itself is in the `error` and `turn-end` parts). Also reads the single
 * JSON object printed by `-o json` (its `response` field), and plain text
 * (`-o text`) as is.
 */
export function parseGeminiCliResponse(rawOutput: string): string {
  const parser = new GeminiCliStreamParser();
  let text = '';
  let sawEvent = false;
  for (const line of rawOutput.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      continue;
    }
    sawEvent = true;
    for (const part of parser.parse(json)) {
      if (part.type === 'session') text = '';
      else if (part.type === 'text-delta') text += part.text;
    }
  }
  if (!sawEvent) return readJsonOutputResponse(rawOutput) ?? rawOutput.trim();
  return text;
}

function readJsonOutputResponse(rawOutput: string): string | undefined {
  const trimmed = rawOutput.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(trimmed) as { response?: unknown };
    return typeof value.response === 'string' ? value.response : undefined;
  } catch {
    return undefined;
  }
}
