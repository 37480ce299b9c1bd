import type { AgentStreamPart, AgentUsage } from '@troupe/core';
import {
  appServerErrorSchema,
  appServerItemNotificationSchema,
  appServerItemSchema,
  appServerTokenUsageSchema,
  appServerTurnCompletedSchema,
  codexDriverErrorSchema,
  codexDriverExitedSchema,
  codexDriverThreadSchema,
  type AppServerItem,
} from './codex-app-server-events';
import { CODEX_COMMAND_TOOL, CODEX_FILE_CHANGE_TOOL, codexErrorPart, finalCodexText, type CodexLineParser } from './codex-line-parser';

/** Options of {@link createCodexAppServerParser}. */
export interface CodexAppServerParserOptions {
  /** The model asked for; the client's `troupe.thread` line names the one Codex chose, which wins. */
  model?: string | undefined;
  /** The deny message Troupe gave for an item, put in its declined `tool-result` (the protocol carries none). */
  denyReason?: (itemId: string) => string | undefined;
}

/**
 * Maps the lines of a `codex app-server` turn (as the adapter's app-server client passes them on, with its own `troupe.*` lines) to the same stream parts as
 * `codex exec --json` gives, so a member does not see which transport ran:
 * - `troupe.thread` → `session` (the thread id resumes it)
 * - `item/completed` `agentMessage` → `text-delta` with the whole text
 * - `item/started` / `item/completed` `commandExecution`, `fileChange`, `mcpToolCall` → `tool-call` / `tool-result`
 *   named `command_execution`, `file_change`, `mcp__<server>__<tool>`; a declined item's result is an error whose
 *   output is Troupe's deny message
 * - `thread/tokenUsage/updated` → summed into the turn's `usage`
 * - `error` → `error` (`retrying` when Codex will retry)
 * - `turn/completed` → `usage` + `turn-end`; a failed or interrupted turn → `error` + `turn-end` with `isError`
 * - `troupe.error` / `troupe.codex-exited` → `error` + `turn-end` with `isError`
 */
export function createCodexAppServerParser(options: CodexAppServerParserOptions = {}): CodexLineParser {
  let lastText: string | undefined;
  let usage: AgentUsage | undefined;
  let ended = false;
  const openTools = new Set<string>();

  const toolParts = (phase: 'item/started' | 'item/completed', item: Exclude<AppServerItem, { type: 'agentMessage' }>): AgentStreamPart[] => {
    let call: AgentStreamPart;
    let result: AgentStreamPart;
    const declined = item.status === 'declined';
    const denied = declined ? options.denyReason?.(item.id) ?? 'The tool call was declined.' : undefined;
    if (item.type === 'commandExecution') {
      call = { type: 'tool-call', toolCallId: item.id, toolName: CODEX_COMMAND_TOOL, input: { command: item.command } };
      const failed = declined || item.status === 'failed' || (item.exitCode !== null && item.exitCode !== undefined && item.exitCode !== 0);
      result = { type: 'tool-result', toolCallId: item.id, toolName: CODEX_COMMAND_TOOL, output: denied ?? item.aggregatedOutput ?? '', isError: failed };
    } else if (item.type === 'fileChange') {
      const changes = item.changes.map((change) => ({ path: change.path, kind: change.kind.type }));
      call = { type: 'tool-call', toolCallId: item.id, toolName: CODEX_FILE_CHANGE_TOOL, input: { changes } };
      result = { type: 'tool-result', toolCallId: item.id, toolName: CODEX_FILE_CHANGE_TOOL, output: denied ?? changes, isError: declined || item.status === 'failed' };
    } else {
      const toolName = `mcp__${item.server}__${item.tool}`;
      call = { type: 'tool-call', toolCallId: item.id, toolName, input: item.arguments ?? {} };
      const failed = declined || item.status === 'failed' || (item.error !== null && item.error !== undefined);
      const text = (item.result?.content ?? []).map((block) => (block as { text?: unknown })?.text ?? '').join('');
      // A declined MCP call ends `failed` ("user rejected MCP tool call"): Troupe's reason, when it declined it, wins.
      const reason = denied ?? (failed ? options.denyReason?.(item.id) : undefined);
      result = { type: 'tool-result', toolCallId: item.id, toolName, output: reason ?? (failed ? item.error?.message ?? text : text), isError: failed };
    }
    if (phase === 'item/started') {
      if (openTools.has(item.id)) return [];
      openTools.add(item.id);
      return [call];
    }
    return openTools.delete(item.id) ? [result] : [call, result];
  };

  const end = (parts: AgentStreamPart[]): AgentStreamPart[] => {
    if (ended) return [];
    ended = true;
    return parts;
  };

  return {
    parse(json) {
      const value = json as { type?: unknown; method?: unknown } | null;
      if (value === null || typeof value !== 'object') return [];
      if (value.type === 'troupe.thread') {
        const thread = codexDriverThreadSchema.safeParse(json);
        if (!thread.success) return [];
        const model = thread.data.model ?? options.model;
        return [{ type: 'session', sessionId: thread.data.threadId, ...(model ? { model } : {}) }];
      }
      if (value.type === 'troupe.error') {
        const error = codexDriverErrorSchema.safeParse(json);
        const message = error.success ? error.data.message : 'the Codex app-server handshake failed';
        return end([codexErrorPart(message, false), { type: 'turn-end', text: message, isError: true }]);
      }
      if (value.type === 'troupe.codex-exited') {
        const exited = codexDriverExitedSchema.safeParse(json);
        const how = exited.success ? exited.data.message ?? (exited.data.signal ? `killed by ${exited.data.signal}` : `exited with code ${String(exited.data.code)}`) : 'exited';
        const message = `codex app-server ${how} before the turn ended`;
        return end([codexErrorPart(message, false), { type: 'turn-end', text: message, isError: true }]);
      }
      switch (value.method) {
        case 'item/started':
        case 'item/completed': {
          const notification = appServerItemNotificationSchema.safeParse(json);
          if (!notification.success) return [];
          const item = appServerItemSchema.safeParse(notification.data.params.item);
          if (!item.success) return [];
          if (item.data.type === 'agentMessage') {
            if (value.method !== 'item/completed') return [];
            lastText = item.data.text;
            return [{ type: 'text-delta', text: item.data.text }];
          }
          return toolParts(notification.data.method, item.data);
        }
        case 'thread/tokenUsage/updated': {
          const update = appServerTokenUsageSchema.safeParse(json);
          if (!update.success) return [];
          const last = update.data.params.tokenUsage.last;
          const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
          const next: AgentUsage = {};
          const fields: Array<[keyof AgentUsage, number | undefined]> = [
            ['inputTokens', sum(usage?.inputTokens, last.inputTokens)],
            ['cachedInputTokens', sum(usage?.cachedInputTokens, last.cachedInputTokens)],
            ['outputTokens', sum(usage?.outputTokens, last.outputTokens)],
            ['reasoningTokens', sum(usage?.reasoningTokens, last.reasoningOutputTokens)],
          ];
          for (const [key, count] of fields) if (count !== undefined) next[key] = count;
          usage = next;
          return [];
        }
        case 'error': {
          const error = appServerErrorSchema.safeParse(json);
          return error.success ? [codexErrorPart(error.data.params.error.message, error.data.params.willRetry === true)] : [];
        }
        case 'turn/completed': {
          const completed = appServerTurnCompletedSchema.safeParse(json);
          if (!completed.success) return [];
          const turn = completed.data.params.turn;
          const parts: AgentStreamPart[] = usage ? [{ type: 'usage', usage }] : [];
          if (turn.status === 'completed') return end([...parts, { type: 'turn-end', text: lastText ?? '', isError: false }]);
          const message = turn.error?.message ?? `Codex ended the turn as ${turn.status}`;
          return end([...parts, codexErrorPart(message, false), { type: 'turn-end', text: message, isError: true }]);
        }
        default:
          return [];
      }
    },
  };
}

/**
 * The final text of an app-server turn from its whole raw output (the client's lines): the text of the last
 * `turn-end`, else the last agent message, else `''`.
 */
export function parseCodexAppServerResponse(rawOutput: string): string {
  return finalCodexText(createCodexAppServerParser(), rawOutput);
}
