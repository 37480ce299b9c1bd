import { z } from 'zod';

/*
 * The JSON-RPC lines of `codex app-server` (Codex CLI 0.169.0, from `codex app-server generate-ts` and the recorded
 * `__fixtures__/app-server-*` sessions) that the adapter reads, and the lines the adapter's app-server client adds (`troupe.*`). Objects
 * are loose: fields Codex adds later are kept and ignored; a line that does not match is skipped, never thrown.
 */

/** `{"type":"troupe.thread","threadId","model"}`: the client's line naming the thread the turn runs on. */
export const codexDriverThreadSchema = z.looseObject({ type: z.literal('troupe.thread'), threadId: z.string().min(1), model: z.string().optional() });
/** `{"type":"troupe.error","message"}`: a request of the client's handshake failed (a thread that cannot be resumed…). */
export const codexDriverErrorSchema = z.looseObject({ type: z.literal('troupe.error'), message: z.string() });
/** `{"type":"troupe.codex-exited","code","signal"}`: Codex died before its turn ended. */
export const codexDriverExitedSchema = z.looseObject({
  type: z.literal('troupe.codex-exited'),
  code: z.union([z.number(), z.string()]).nullable().optional(),
  signal: z.string().nullable().optional(),
  message: z.string().optional(),
});
/** `{"type":"troupe.approval",…,"elapsedMs"}`: how the client answered an approval, and Troupe's own time for it (`returnedMs`: to the write's return). */
export const codexDriverApprovalSchema = z.looseObject({
  type: z.literal('troupe.approval'),
  method: z.string(),
  itemId: z.string().optional(),
  decision: z.enum(['accept', 'decline']),
  elapsedMs: z.number(),
  returnedMs: z.number().optional(),
});

/** A command the agent runs (`commandExecution` item). */
export const appServerCommandItemSchema = z.looseObject({
  type: z.literal('commandExecution'),
  id: z.string(),
  command: z.string(),
  cwd: z.string().optional(),
  status: z.string(),
  aggregatedOutput: z.string().nullable().optional(),
  exitCode: z.number().nullable().optional(),
  commandActions: z.array(z.looseObject({ command: z.string().optional() })).optional(),
});
/** One file of a `fileChange` item: `kind` is `{"type":"add"|"delete"|"update"}`, `diff` the new text or the diff. */
export const appServerFileUpdateSchema = z.looseObject({ path: z.string(), kind: z.looseObject({ type: z.string() }), diff: z.string().optional() });
/** An `apply_patch` (`fileChange` item). */
export const appServerFileChangeItemSchema = z.looseObject({ type: z.literal('fileChange'), id: z.string(), changes: z.array(appServerFileUpdateSchema), status: z.string() });
/** A call of an MCP server's tool (`mcpToolCall` item). */
export const appServerMcpItemSchema = z.looseObject({
  type: z.literal('mcpToolCall'),
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  status: z.string(),
  arguments: z.unknown().optional(),
  result: z.looseObject({ content: z.array(z.unknown()).optional() }).nullable().optional(),
  error: z.looseObject({ message: z.string() }).nullable().optional(),
});
/** The assistant's message (`agentMessage` item); whole at `item/completed`. */
export const appServerAgentMessageItemSchema = z.looseObject({ type: z.literal('agentMessage'), id: z.string(), text: z.string() });
/** One item the adapter maps. */
export const appServerItemSchema = z.discriminatedUnion('type', [appServerCommandItemSchema, appServerFileChangeItemSchema, appServerMcpItemSchema, appServerAgentMessageItemSchema]);
/** One mapped item. */
export type AppServerItem = z.infer<typeof appServerItemSchema>;

/** `item/started` / `item/completed`. */
export const appServerItemNotificationSchema = z.looseObject({
  method: z.enum(['item/started', 'item/completed']),
  params: z.looseObject({ item: z.looseObject({ type: z.string(), id: z.string() }) }),
});
/** Token counts of one model response or of the thread. */
export const appServerTokenBreakdownSchema = z.looseObject({
  inputTokens: z.number().optional(),
  cachedInputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  reasoningOutputTokens: z.number().optional(),
});
/** `thread/tokenUsage/updated`: after each model response; `last` is that response's usage. */
export const appServerTokenUsageSchema = z.looseObject({
  method: z.literal('thread/tokenUsage/updated'),
  params: z.looseObject({ tokenUsage: z.looseObject({ last: appServerTokenBreakdownSchema }) }),
});
/** `error`: a model error mid-turn; `willRetry` says whether Codex tries again. */
export const appServerErrorSchema = z.looseObject({
  method: z.literal('error'),
  params: z.looseObject({ error: z.looseObject({ message: z.string() }), willRetry: z.boolean().optional() }),
});
/** The type of the completion notification: the one place it is written. */
export const CODEX_APP_SERVER_TURN_COMPLETED = 'turn/completed';
/** `turn/completed`: the turn ended, `status` `completed`, `failed` or `interrupted` (with `error`). */
export const appServerTurnCompletedSchema = z.looseObject({
  method: z.literal(CODEX_APP_SERVER_TURN_COMPLETED),
  params: z.looseObject({
    turn: z.looseObject({ id: z.string(), status: z.string(), error: z.looseObject({ message: z.string() }).nullable().optional() }),
  }),
});

/** Every line the adapter maps (others, like `thread/status/changed`, yield nothing). */
export const codexAppServerLineSchema = z.union([
  codexDriverThreadSchema,
  codexDriverErrorSchema,
  codexDriverExitedSchema,
  appServerItemNotificationSchema,
  appServerTokenUsageSchema,
  appServerErrorSchema,
  appServerTurnCompletedSchema,
]);
