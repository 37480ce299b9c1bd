import { z } from 'zod';

/*
 * The JSONL events of `codex exec --json` (Codex CLI 0.169.0), from the
 * recorded fixtures. Objects are loose: fields Codex adds later are kept and
 * ignored, and an event that does not match is skipped, never thrown.
 */

/** `{"type":"thread.started","thread_id":"01a2…"}`: first line; the id resumes the thread. */
export const codexThreadStartedSchema = z.looseObject({ type: z.literal('thread.started'), thread_id: z.string().min(1) });

/** Token usage of a turn (`turn.completed.usage`). */
export const codexUsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  cached_input_tokens: z.number().optional(),
  cache_write_input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  reasoning_output_tokens: z.number().optional(),
});

/**
 * The `type`s of Codex's completion events, the last line of every turn:
 * the one place they are written. The parser ends the turn on them (its
 * `turn-end` part, which ends the turn for `AgentManager`), and the plugin
 * checks registry entries against them.
 */
export const CODEX_TURN_COMPLETED_TYPE = 'turn.completed';
/** See {@link CODEX_TURN_COMPLETED_TYPE}: the turn failed. */
export const CODEX_TURN_FAILED_TYPE = 'turn.failed';
/** Event types that end a `codex exec` turn. */
export const CODEX_COMPLETION_TYPES: readonly string[] = [CODEX_TURN_COMPLETED_TYPE, CODEX_TURN_FAILED_TYPE];

/** `{"type":"turn.completed","usage":{…}}`: the turn succeeded (completion event). */
export const codexTurnCompletedSchema = z.looseObject({ type: z.literal(CODEX_TURN_COMPLETED_TYPE), usage: codexUsageSchema.optional() });

/** `{"type":"turn.failed","error":{"message":…}}`: the turn failed (completion event). */
export const codexTurnFailedSchema = z.looseObject({
  type: z.literal(CODEX_TURN_FAILED_TYPE),
  error: z.looseObject({ message: z.string() }).optional(),
});

/** `{"type":"error","message":"Reconnecting... 1/5 (…)"}`: a retry notice, or the final error before `turn.failed`. */
export const codexErrorEventSchema = z.looseObject({ type: z.literal('error'), message: z.string() });

/** `item.started` / `item.updated` / `item.completed` with their item. */
export const codexItemEventSchema = z.looseObject({
  type: z.enum(['item.started', 'item.updated', 'item.completed']),
  item: z.looseObject({ id: z.string(), type: z.string() }),
});

/** The assistant's message, whole (Codex prints no deltas). */
export const codexAgentMessageItemSchema = z.looseObject({ id: z.string(), type: z.literal('agent_message'), text: z.string() });

/** A shell command run by the agent. */
export const codexCommandExecutionItemSchema = z.looseObject({
  id: z.string(),
  type: z.literal('command_execution'),
  command: z.string(),
  aggregated_output: z.string().optional(),
  exit_code: z.number().nullable().optional(),
  status: z.string().optional(),
});

/** Files changed by `apply_patch`. */
export const codexFileChangeItemSchema = z.looseObject({
  id: z.string(),
  type: z.literal('file_change'),
  changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })),
  status: z.string().optional(),
});

/**
 * A call of an MCP server's tool:
 * `{"type":"mcp_tool_call","server":"troupe","tool":"query_looper_state","arguments":{…},"result":{"content":[…]}|null,"error":{"message":…}|null,"status":"completed"|"failed"}`.
 */
export const codexMcpToolCallItemSchema = z.looseObject({
  id: z.string(),
  type: z.literal('mcp_tool_call'),
  server: z.string(),
  tool: z.string(),
  arguments: z.unknown().optional(),
  result: z.looseObject({ content: z.array(z.unknown()).optional(), structured_content: z.unknown().optional() }).nullable().optional(),
  error: z.looseObject({ message: z.string() }).nullable().optional(),
  status: z.string().optional(),
});

/** A non-fatal problem (WebSocket fallback, missing model metadata). */
export const codexErrorItemSchema = z.looseObject({ id: z.string(), type: z.literal('error'), message: z.string() });

/** One item of an `item.*` event that the adapter understands. */
export const codexItemSchema = z.discriminatedUnion('type', [
  codexAgentMessageItemSchema,
  codexCommandExecutionItemSchema,
  codexFileChangeItemSchema,
  codexMcpToolCallItemSchema,
  codexErrorItemSchema,
]);
/** One understood item. */
export type CodexItem = z.infer<typeof codexItemSchema>;

/** Every top-level event the adapter maps (others, like `turn.started`, yield nothing). */
export const codexEventSchema = z.discriminatedUnion('type', [
  codexThreadStartedSchema,
  codexTurnCompletedSchema,
  codexTurnFailedSchema,
  codexErrorEventSchema,
  codexItemEventSchema,
]);
/** One mapped top-level event. */
export type CodexEvent = z.infer<typeof codexEventSchema>;
