import { parseJsonLine } from '@troupe/core/util';
import { type AgentStreamPart, type AgentUsage } from '@troupe/core';
import {
  claudeApiRetrySchema,
  claudeAssistantSchema,
  claudePermissionDeniedSchema,
  claudeResultSchema,
  claudeStreamEventSchema,
  claudeSystemInitSchema,
  claudeTextBlockSchema,
  claudeTextDeltaEventSchema,
  claudeToolResultBlockSchema,
  claudeToolUseBlockSchema,
  claudeUserSchema,
  CLAUDE_CODE_RESULT_TYPE,
  type ClaudeResultEvent,
} from './claude-code-events';

/** Model name of the messages Claude Code makes up to report an API error. */
const SYNTHETIC_MODEL = '<synthetic>';
/** Turns tracked at once; older ones (turns that never printed `result`) are dropped. */
const MAX_TRACKED_TURNS = 64;

/** What the parser remembers while a turn runs. */
interface TurnState {
  /** Ids of API messages whose text already arrived as `stream_event` deltas. */
  streamedMessageIds: Set<string>;
  /** Tool names by tool-use id, to name tool results. */
  toolNames: Map<string, string>;
  /** Tool inputs by tool-use id, to describe a refused call. */
  toolInputs: Map<string, unknown>;
  /** Tool-use ids already reported as refused (`system/permission_denied`), so `result.permission_denials` does not repeat them. */
  deniedToolUseIds: Set<string>;
  /** The error text and status of the last synthetic API-error message. */
  apiError: { message: string; status: number | undefined } | undefined;
  /** The assistant text of the turn so far: its answer when the `result` line carries none. */
  text: string;
}

/**
 * Turns Claude Code `stream-json` lines into Troupe stream parts. It keeps a
 * little state per session (`session_id` is on every line), reset at each
 * turn's `system/init` and dropped at its `result`:
 * - text arrives twice with `--include-partial-messages` (as `stream_event`
 *   deltas, then in the whole `assistant` message); the whole message's text
 *   is used only when no delta was seen for that message id;
 * - tool results are named after their tool call;
 * - the synthetic `assistant` message (`model: "<synthetic>"`) carries the API
 *   error text, reported with the failed `result`.
 *
 * @example
 * ```ts
 * const parser = new ClaudeCodeStreamParser();
 * for (const line of stdout.split('\n')) parts.push(...parser.parseLine(line));
 * ```
 */
export class ClaudeCodeStreamParser {
  private readonly turns = new Map<string, TurnState>();

  /**
   * Parts for one stdout line. `json` is the parsed line when the caller has
   * it already; otherwise the line is parsed here. Non-JSON and unknown lines
   * yield `[]`.
   */
  parseLine(line: string, json: unknown = parseJsonLine(line)): AgentStreamPart[] {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return [];
    const event = json as { type?: unknown; subtype?: unknown; session_id?: unknown };
    const sessionKey = typeof event.session_id === 'string' ? event.session_id : '';
    switch (event.type) {
      case 'system':
        return this.parseSystem(event, sessionKey);
      case 'stream_event':
        return this.parseStreamEvent(event, sessionKey);
      case 'assistant':
        return this.parseAssistant(event, sessionKey);
      case 'user':
        return this.parseUser(event, sessionKey);
      case CLAUDE_CODE_RESULT_TYPE:
        return this.parseResult(event, sessionKey);
      default:
        return [];
    }
  }

  private parseSystem(event: { subtype?: unknown }, sessionKey: string): AgentStreamPart[] {
    switch (event.subtype) {
      case 'init': {
        const init = claudeSystemInitSchema.safeParse(event);
        if (!init.success) return [];
        this.turns.delete(sessionKey);
        this.state(sessionKey);
        return [{ type: 'session', sessionId: init.data.session_id, ...(init.data.model ? { model: init.data.model } : {}) }];
      }
      case 'api_retry': {
        const retry = claudeApiRetrySchema.safeParse(event);
        if (!retry.success) return [];
        const { attempt, max_retries: maxRetries, retry_delay_ms: delayMs, error_status: status, error } = retry.data;
        const what = [status ?? undefined, error].filter((v) => v !== undefined).join(' ');
        const progress = attempt !== undefined ? ` (attempt ${attempt}${maxRetries !== undefined ? `/${maxRetries}` : ''})` : '';
        const delay = delayMs !== undefined ? ` in ${Math.round(delayMs)} ms` : '';
        return [
          {
            type: 'error',
            message: `API error${what ? ` ${what}` : ''}; retrying${delay}${progress}`,
            ...(typeof status === 'number' ? { status } : {}),
            retrying: true,
          },
        ];
      }
      case 'permission_denied': {
        const denied = claudePermissionDeniedSchema.safeParse(event);
        if (!denied.success) return [];
        const { message, tool_name: toolName, tool_use_id: toolUseId } = denied.data;
        const state = this.state(sessionKey);
        if (toolUseId !== undefined) state.deniedToolUseIds.add(toolUseId);
        return [permissionDenied(toolName, toolUseId, toolUseId !== undefined ? state.toolInputs.get(toolUseId) : undefined, message)];
      }
      default:
        return [];
    }
  }

  private parseStreamEvent(event: object, sessionKey: string): AgentStreamPart[] {
    const parsed = claudeStreamEventSchema.safeParse(event);
    if (!parsed.success) return [];
    const { event: inner, api_message_id: apiMessageId } = parsed.data;
    const delta = claudeTextDeltaEventSchema.safeParse(inner);
    if (delta.success) {
      const state = this.state(sessionKey);
      if (apiMessageId !== undefined) state.streamedMessageIds.add(apiMessageId);
      state.text += delta.data.delta.text;
      return delta.data.delta.text === '' ? [] : [{ type: 'text-delta', text: delta.data.delta.text }];
    }
    return [];
  }

  private parseAssistant(event: object, sessionKey: string): AgentStreamPart[] {
    const parsed = claudeAssistantSchema.safeParse(event);
    if (!parsed.success) return [];
    const { message } = parsed.data;
    const state = this.state(sessionKey);
    if (message.model === SYNTHETIC_MODEL || parsed.data.is_api_error_message === true) {
      const text = textOf(message.content);
      const status = parsed.data.api_error_status ?? undefined;
      if (text) state.apiError = { message: text, status };
      return [];
    }
    const streamed = message.id !== undefined && state.streamedMessageIds.has(message.id);
    const parts: AgentStreamPart[] = [];
    for (const block of message.content) {
      const text = claudeTextBlockSchema.safeParse(block);
      if (text.success) {
        if (!streamed && text.data.text !== '') {
          state.text += text.data.text;
          parts.push({ type: 'text-delta', text: text.data.text });
        }
        continue;
      }
      const toolUse = claudeToolUseBlockSchema.safeParse(block);
      if (toolUse.success) {
        state.toolNames.set(toolUse.data.id, toolUse.data.name);
        state.toolInputs.set(toolUse.data.id, toolUse.data.input);
        parts.push({ type: 'tool-call', toolCallId: toolUse.data.id, toolName: toolUse.data.name, input: toolUse.data.input });
      }
    }
    return parts;
  }

  private parseUser(event: object, sessionKey: string): AgentStreamPart[] {
    const parsed = claudeUserSchema.safeParse(event);
    if (!parsed.success || typeof parsed.data.message.content === 'string') return [];
    const state = this.state(sessionKey);
    const parts: AgentStreamPart[] = [];
    for (const block of parsed.data.message.content) {
      const result = claudeToolResultBlockSchema.safeParse(block);
      if (!result.success) continue;
      const toolName = state.toolNames.get(result.data.tool_use_id);
      parts.push({
        type: 'tool-result',
        toolCallId: result.data.tool_use_id,
        ...(toolName !== undefined ? { toolName } : {}),
        output: result.data.content,
        isError: result.data.is_error === true,
      });
    }
    return parts;
  }

  private parseResult(event: object, sessionKey: string): AgentStreamPart[] {
    const parsed = claudeResultSchema.safeParse(event);
    if (!parsed.success) return [];
    const result = parsed.data;
    const turn = this.turns.get(sessionKey);
    const apiError = turn?.apiError;
    this.turns.delete(sessionKey);
    const isError = result.is_error === true || (result.subtype?.startsWith('error') ?? false);
    const parts: AgentStreamPart[] = [];
    for (const denial of result.permission_denials ?? []) {
      if (denial.tool_use_id !== undefined && turn?.deniedToolUseIds.has(denial.tool_use_id)) continue;
      parts.push(permissionDenied(denial.tool_name, denial.tool_use_id, denial.tool_input, undefined));
    }
    const usage = usageOf(result);
    if (usage) parts.push({ type: 'usage', usage });
    if (isError) {
      const status = result.api_error_status ?? apiError?.status;
      parts.push({
        type: 'error',
        message:
          apiError?.message ||
          result.result ||
          result.errors?.join('; ') ||
          `Claude Code turn failed (${result.terminal_reason ?? result.subtype ?? 'unknown reason'})`,
        ...(typeof status === 'number' ? { status } : {}),
      });
    }
    const stopReason = result.stop_reason ?? result.terminal_reason ?? undefined;
    // The answer: the result's own text, else what the turn streamed.
    parts.push({
      type: 'turn-end',
      text: result.result ?? turn?.text ?? '',
      isError,
      ...(stopReason ? { stopReason } : {}),
      ...(Object.hasOwn(result, 'structured_output') ? { structuredOutput: result.structured_output } : {}),
    });
    return parts;
  }

  private state(sessionKey: string): TurnState {
    let state = this.turns.get(sessionKey);
    if (!state) {
      if (this.turns.size >= MAX_TRACKED_TURNS) {
        const oldest = this.turns.keys().next();
        if (!oldest.done) this.turns.delete(oldest.value);
      }
      state = { streamedMessageIds: new Set(), toolNames: new Map(), toolInputs: new Map(), deniedToolUseIds: new Set(), apiError: undefined, text: '' };
      this.turns.set(sessionKey, state);
    }
    return state;
  }
}

/**
 * The final answer of a turn from its raw stdout, for callers that have only
 * the output (`AgentManager` takes it from the turn's parts instead): each
 * line through one parser, as a runner parses it; the text of the last
 * `turn-end` (the `result` line's `result`, else the turn's assistant text),
 * else the assistant text seen (deltas or whole messages, without duplicates).
 */
export function parseClaudeCodeResponse(rawOutput: string): string {
  const parser = new ClaudeCodeStreamParser();
  let end: string | undefined;
  let text = '';
  for (const line of rawOutput.split('\n')) {
    for (const part of parser.parseLine(line)) {
      if (part.type === 'turn-end') end = part.text;
      else if (part.type === 'text-delta') text += part.text;
    }
  }
  return end ?? text;
}

function usageOf(result: ClaudeResultEvent): AgentUsage | undefined {
  const usage: AgentUsage = {};
  const raw = result.usage;
  if (raw?.input_tokens !== undefined) usage.inputTokens = raw.input_tokens;
  if (raw?.output_tokens !== undefined) usage.outputTokens = raw.output_tokens;
  if (raw?.cache_read_input_tokens !== undefined) usage.cachedInputTokens = raw.cache_read_input_tokens;
  const thinking = raw?.output_tokens_details?.thinking_tokens;
  if (thinking !== undefined) usage.reasoningTokens = thinking;
  if (result.total_cost_usd !== undefined) usage.costUsd = result.total_cost_usd;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The `warning` part of a tool call Claude Code refused for lack of permission. */
function permissionDenied(toolName: string | undefined, toolUseId: string | undefined, input: unknown, message: string | undefined): AgentStreamPart {
  const name = toolName ?? 'unknown';
  return {
    type: 'warning',
    code: 'permission-denied',
    message: message ?? `Claude Code refused the ${name} tool call for lack of permission`,
    toolName: name,
    ...(toolUseId !== undefined ? { toolCallId: toolUseId } : {}),
    ...(input !== undefined ? { input } : {}),
  };
}

function textOf(content: readonly unknown[]): string {
  let text = '';
  for (const block of content) {
    const parsed = claudeTextBlockSchema.safeParse(block);
    if (parsed.success) text += parsed.data.text;
  }
  return text;
}
