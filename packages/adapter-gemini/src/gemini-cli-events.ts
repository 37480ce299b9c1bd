import { z } from 'zod';

/*
 * Schemas of Gemini CLI 0.61.0's `-o stream-json` events, as recorded in the
 * fixtures and emitted by its StreamJsonFormatter. Loose objects: new fields
 * are ignored, missing optional ones tolerated.
 */

/** `{"type":"init","session_id":…,"model":…}`: first line of every run. */
export const geminiInitEventSchema = z.looseObject({
  type: z.literal('init'),
  session_id: z.string().min(1),
  model: z.string().optional(),
});

/** `{"type":"message","role":"user"|"assistant","content":…,"delta":true}`. */
export const geminiMessageEventSchema = z.looseObject({
  type: z.literal('message'),
  role: z.string(),
  content: z.string(),
  delta: z.boolean().optional(),
});

/** `{"type":"tool_use","tool_name":…,"tool_id":…,"parameters":{…}}`. */
export const geminiToolUseEventSchema = z.looseObject({
  type: z.literal('tool_use'),
  tool_name: z.string(),
  tool_id: z.string(),
  parameters: z.unknown().optional(),
});

/** `{"type":"tool_result","tool_id":…,"status":"success"|"error","output"?,"error"?}`. */
export const geminiToolResultEventSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_id: z.string(),
  status: z.string(),
  output: z.unknown().optional(),
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).optional(),
});

/** `{"type":"error","severity":"warning"|"error","message":…}`: a non-fatal problem mid-turn. */
export const geminiErrorEventSchema = z.looseObject({
  type: z.literal('error'),
  severity: z.string().optional(),
  message: z.string(),
});

const statsSchema = z.looseObject({
  total_tokens: z.number().optional(),
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cached: z.number().optional(),
  duration_ms: z.number().optional(),
  tool_calls: z.number().optional(),
});

/**
 * The `type` of Gemini CLI's completion event, the last line of every turn.
 * The one place it is written: the parser ends the turn on it (its
 * `turn-end` part, which ends the turn for `AgentManager`), and the plugin
 * checks registry entries against it.
 */
export const GEMINI_CLI_RESULT_TYPE = 'result';

/**
 * `{"type":"result","status":"success"|"error","error"?:{type,message},"stats":{…}}`:
 * the last line of a turn (the completion event).
 */
export const geminiResultEventSchema = z.looseObject({
  type: z.literal(GEMINI_CLI_RESULT_TYPE),
  status: z.string().optional(),
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).optional(),
  stats: statsSchema.optional(),
});

/** The result event. */
export type GeminiResultEvent = z.infer<typeof geminiResultEventSchema>;
