import { z } from 'zod';

// Shapes of the Claude Code 2.1.330 `--output-format stream-json --verbose`
// lines Troupe reads, from the recorded fixtures. Loose objects: the CLI
// adds fields often, and only the ones below matter.

const nullableNumber = z.number().nullable().optional();

/** `{"type":"system","subtype":"init","session_id":…}`: first line of every turn. */
export const claudeSystemInitSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  session_id: z.string().min(1),
  /** The model of the session (`claude-opus-5-5`). */
  model: z.string().optional(),
});

/** `{"type":"system","subtype":"api_retry",…}`: one per retried API request. */
export const claudeApiRetrySchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  attempt: z.number().optional(),
  max_retries: z.number().optional(),
  retry_delay_ms: z.number().optional(),
  error_status: nullableNumber,
  error: z.string().optional(),
});

/** `{"type":"system","subtype":"permission_denied",…}`: a tool call the permission mode refused. */
export const claudePermissionDeniedSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('permission_denied'),
  tool_name: z.string().optional(),
  tool_use_id: z.string().optional(),
  message: z.string().optional(),
});

/** `{"type":"stream_event","event":{…}}` (with `--include-partial-messages`): raw Messages API stream events. */
export const claudeStreamEventSchema = z.looseObject({
  type: z.literal('stream_event'),
  event: z.looseObject({ type: z.string() }),
  api_message_id: z.string().optional(),
});

/** A `content_block_delta` stream event carrying text. */
export const claudeTextDeltaEventSchema = z.looseObject({
  type: z.literal('content_block_delta'),
  delta: z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
});

/** `{"type":"assistant","message":{…}}`: a whole model message (or a synthetic API-error message). */
export const claudeAssistantSchema = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    content: z.array(z.unknown()),
  }),
  is_api_error_message: z.boolean().optional(),
  api_error_status: nullableNumber,
});

/** `{"type":"user","message":{…}}`: tool results sent back to the model. */
export const claudeUserSchema = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({ content: z.union([z.string(), z.array(z.unknown())]) }),
});

/** A `text` content block. */
export const claudeTextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

/** A `tool_use` content block. */
export const claudeToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

/** A `tool_result` content block. */
export const claudeToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown(),
  is_error: z.boolean().optional(),
});

/**
 * The `type` of Claude Code's completion event, the last line of every turn.
 * The one place it is written: the parser ends the turn on it (its
 * `turn-end` part, which ends the turn for `AgentManager`), and the plugin
 * checks registry entries against it.
 */
export const CLAUDE_CODE_RESULT_TYPE = 'result';

/**
 * `{…,"type":"result",…}`: the last line of a turn (note `type` is not the
 * first key). API errors say `subtype:"success"` with `is_error:true`.
 */
export const claudeResultSchema = z.looseObject({
  type: z.literal(CLAUDE_CODE_RESULT_TYPE),
  subtype: z.string().optional(),
  is_error: z.boolean().optional(),
  result: z.string().optional(),
  stop_reason: z.string().nullable().optional(),
  terminal_reason: z.string().nullable().optional(),
  api_error_status: nullableNumber,
  total_cost_usd: z.number().optional(),
  /** With `--json-schema`: the input of the model's StructuredOutput tool call (absent when the model never made one). */
  structured_output: z.unknown().optional(),
  /** Why a turn failed before any request (`subtype:"error_during_execution"`), e.g. "No conversation found with session ID: …". */
  errors: z.array(z.string()).optional().catch(undefined),
  /** Tool calls the permission mode refused during the turn (the turn may still say it did the work). */
  permission_denials: z
    .array(z.looseObject({ tool_name: z.string().optional(), tool_use_id: z.string().optional(), tool_input: z.unknown().optional() }))
    .nullable()
    .optional()
    .catch(undefined),
  usage: z
    .looseObject({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().optional(),
      cache_creation_input_tokens: z.number().optional(),
      output_tokens_details: z.looseObject({ thinking_tokens: z.number().optional() }).nullable().optional(),
    })
    .optional(),
});
/** A parsed `result` line. */
export type ClaudeResultEvent = z.infer<typeof claudeResultSchema>;
