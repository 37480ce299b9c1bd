import { parseJsonLine } from '@troupe/core/util';
import { type AgentStreamPart } from '@troupe/core';
import { CODEX_TURN_COMPLETED_TYPE, CODEX_TURN_FAILED_TYPE, codexEventSchema, codexItemSchema, type CodexItem } from './codex-events';

/** Tool name of a `command_execution` item in `tool-call` / `tool-result` parts. */
export const CODEX_COMMAND_TOOL = 'command_execution';
/** Tool name of a `file_change` item (an `apply_patch`) in `tool-call` / `tool-result` parts. */
export const CODEX_FILE_CHANGE_TOOL = 'file_change';

const RETRY_NOTICE = /^Reconnecting\.\.\./;
const HTTP_STATUS = /\bunexpected status (\d{3})\b/;

/** Options of {@link createCodexLineParser}. */
export interface CodexLineParserOptions {
  /**
   * @deprecated Ignored: core's process runner redacts every line before any
   * adapter parses it (the adapter's API key is in its process config's `secrets`).
   */
  secrets?: () => Iterable<string>;
  /** The model passed with `-m` (Codex does not name it in its output): given with the `session` part. */
  model?: string | undefined;
}

/**
 * Maps `codex exec --json` lines to stream parts. It keeps the state of one
 * turn (the last agent message, the tool calls started), reset by
 * `thread.started` and after each turn end, so use one parser per agent
 * member (the adapter does).
 */
export interface CodexLineParser {
  /** Parts for one line; `json` is the parsed line (`undefined` for non-JSON). Never throws. */
  parse(json: unknown): AgentStreamPart[];
}

/**
 * Creates a parser for `codex exec --json` output (Codex CLI 0.169.0). The
 * lines it gets are already redacted by core's process runner (the API key,
 * secret-named variables, key shapes), like every adapter's:
 * - `thread.started` → `session` (the thread id, used by `exec resume`)
 * - `item.completed` `agent_message` → `text-delta` with the whole text (Codex has no deltas)
 * - `item.started` / `item.completed` `command_execution` → `tool-call` / `tool-result`
 *   (`aggregated_output`; an error when the exit code is not 0 or the status is `failed`)
 * - `item.started` / `item.completed` `file_change` → `tool-call` / `tool-result` with the changes
 * - `item.started` / `item.completed` `mcp_tool_call` → `tool-call` / `tool-result` named `mcp__<server>__<tool>`
 *   (the result's text, or the error's message)
 * - `item.completed` `error` → `error` (a warning: the turn goes on)
 * - `error` → `error`; `retrying` for `Reconnecting...` notices; `status` from `unexpected status NNN`
 * - `turn.completed` → `usage` + `turn-end` (text: the turn's last agent message)
 * - `turn.failed` → `error` + `turn-end` with `isError` (text: the error message)
 */
export function createCodexLineParser(options: CodexLineParserOptions = {}): CodexLineParser {
  let lastText: string | undefined;
  const openTools = new Set<string>();
  const reset = () => {
    lastText = undefined;
    openTools.clear();
  };

  const itemParts = (phase: 'item.started' | 'item.updated' | 'item.completed', item: CodexItem): AgentStreamPart[] => {
    switch (item.type) {
      case 'agent_message': {
        if (phase !== 'item.completed') return [];
        lastText = item.text;
        return [{ type: 'text-delta', text: item.text }];
      }
      case 'command_execution': {
        const call: AgentStreamPart = {
          type: 'tool-call',
          toolCallId: item.id,
          toolName: CODEX_COMMAND_TOOL,
          input: { command: item.command },
        };
        if (phase !== 'item.completed') {
          if (openTools.has(item.id)) return [];
          openTools.add(item.id);
          return [call];
        }
        const failed = (item.exit_code !== null && item.exit_code !== undefined && item.exit_code !== 0) || item.status === 'failed';
        const result: AgentStreamPart = {
          type: 'tool-result',
          toolCallId: item.id,
          toolName: CODEX_COMMAND_TOOL,
          output: item.aggregated_output ?? '',
          isError: failed,
        };
        // A completed item without a started one (seen once in a read-only sandbox) still gets its call.
        return openTools.delete(item.id) ? [result] : [call, result];
      }
      case 'file_change': {
        const changes = item.changes.map((change) => ({ path: change.path, kind: change.kind }));
        const call: AgentStreamPart = { type: 'tool-call', toolCallId: item.id, toolName: CODEX_FILE_CHANGE_TOOL, input: { changes } };
        if (phase !== 'item.completed') {
          if (openTools.has(item.id)) return [];
          openTools.add(item.id);
          return [call];
        }
        const result: AgentStreamPart = {
          type: 'tool-result',
          toolCallId: item.id,
          toolName: CODEX_FILE_CHANGE_TOOL,
          output: changes,
          isError: item.status === 'failed',
        };
        return openTools.delete(item.id) ? [result] : [call, result];
      }
      case 'mcp_tool_call': {
        const toolName = `mcp__${item.server}__${item.tool}`;
        const call: AgentStreamPart = { type: 'tool-call', toolCallId: item.id, toolName, input: item.arguments ?? {} };
        if (phase !== 'item.completed') {
          if (openTools.has(item.id)) return [];
          openTools.add(item.id);
          return [call];
        }
        const failed = item.status === 'failed' || (item.error !== null && item.error !== undefined);
        const text = (item.result?.content ?? []).map((block) => ((block as { text?: unknown })?.text ?? '')).join('');
        const result: AgentStreamPart = {
          type: 'tool-result',
          toolCallId: item.id,
          toolName,
          output: failed ? item.error?.message ?? text : text,
          isError: failed,
        };
        return openTools.delete(item.id) ? [result] : [call, result];
      }
      case 'error':
        return phase === 'item.completed' ? [{ type: 'error', message: item.message, retrying: false }] : [];
    }
  };

  return {
    parse(json) {
      const event = codexEventSchema.safeParse(json);
      if (!event.success) return [];
      const data = event.data;
      switch (data.type) {
        case 'thread.started':
          reset();
          return [{ type: 'session', sessionId: data.thread_id, ...(options.model ? { model: options.model } : {}) }];
        case 'item.started':
        case 'item.updated':
        case 'item.completed': {
          const item = codexItemSchema.safeParse(data.item);
          return item.success ? itemParts(data.type, item.data) : [];
        }
        case 'error':
          return [codexErrorPart(data.message, RETRY_NOTICE.test(data.message))];
        case CODEX_TURN_COMPLETED_TYPE: {
          const usage = data.usage;
          const parts: AgentStreamPart[] = [];
          if (usage) {
            parts.push({
              type: 'usage',
              usage: {
                ...(usage.input_tokens !== undefined ? { inputTokens: usage.input_tokens } : {}),
                ...(usage.cached_input_tokens !== undefined ? { cachedInputTokens: usage.cached_input_tokens } : {}),
                ...(usage.output_tokens !== undefined ? { outputTokens: usage.output_tokens } : {}),
                ...(usage.reasoning_output_tokens !== undefined ? { reasoningTokens: usage.reasoning_output_tokens } : {}),
              },
            });
          }
          parts.push({ type: 'turn-end', text: lastText ?? '', isError: false });
          reset();
          return parts;
        }
        case CODEX_TURN_FAILED_TYPE: {
          const message = data.error?.message ?? 'Codex reported the turn as failed';
          reset();
          return [codexErrorPart(message, false), { type: 'turn-end', text: message, isError: true }];
        }
      }
    },
  };
}

/** An `error` part, with the HTTP status when the message names one. @internal */
export function codexErrorPart(message: string, retrying: boolean): AgentStreamPart {
  const status = parseCodexHttpStatus(message);
  return { type: 'error', message, ...(status !== undefined ? { status } : {}), retrying };
}

/**
 * The HTTP status in a Codex error message (`unexpected status 401
 * Unauthorized: …`), or `undefined`. Codex's 5xx message ("We’re currently
 * experiencing high demand…") carries none.
 */
export function parseCodexHttpStatus(message: string): number | undefined {
  const match = HTTP_STATUS.exec(message);
  return match ? Number(match[1]) : undefined;
}

/**
 * The final text of a turn from the whole raw stdout, without any other
 * state: the text of the last `turn-end` (the last agent message, or the
 * error of a failed turn), else the last agent message, else `''`.
 */
export function parseCodexResponse(rawOutput: string, _options: CodexLineParserOptions = {}): string {
  return finalCodexText(createCodexLineParser(), rawOutput);
}

/** The final text of a whole raw output read by `parser` (see {@link parseCodexResponse}). @internal */
export function finalCodexText(parser: CodexLineParser, rawOutput: string): string {
  let end: string | undefined;
  let lastText: string | undefined;
  for (const line of rawOutput.split(/\r?\n/)) {
    const json = parseJsonLine(line);
    if (json === undefined) continue;
    for (const part of parser.parse(json)) {
      if (part.type === 'turn-end') end = part.text;
      else if (part.type === 'text-delta') lastText = part.text;
    }
  }
  return end ?? lastText ?? '';
}
