import { z } from 'zod';

/** Token usage (and cost, where the CLI reports it) for one turn. */
export const agentUsageSchema = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  /** Cost in US dollars, when the CLI reports it (Claude's `total_cost_usd`). */
  costUsd: z.number().optional(),
});
/** Token usage (and cost, where reported). */
export type AgentUsage = z.infer<typeof agentUsageSchema>;

/**
 * One normalized piece of an agent CLI's output stream. Adapters map each
 * vendor event to zero or more parts in `parseLine`.
 */
export const agentStreamPartSchema = z.discriminatedUnion('type', [
  /** Assistant text: a delta where the CLI streams, else the whole message text. */
  z.object({ type: z.literal('text-delta'), text: z.string() }),
  /** The agent asked to run a tool. */
  z.object({
    type: z.literal('tool-call'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  /** A tool finished. */
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string().optional(),
    output: z.unknown(),
    isError: z.boolean(),
  }),
  z.object({ type: z.literal('usage'), usage: agentUsageSchema }),
  /** The CLI's session / thread id, used to resume the conversation; `model` when the CLI names the model it runs. */
  z.object({ type: z.literal('session'), sessionId: z.string(), model: z.string().optional() }),
  /** An error the CLI reported (API error, retry notice when `retrying` is true). */
  z.object({
    type: z.literal('error'),
    message: z.string(),
    status: z.number().optional(),
    retrying: z.boolean().optional(),
  }),
  /**
   * Something the user should know that does not fail the turn: `code`
   * `permission-denied` (the CLI refused a tool call for lack of permission;
   * `toolName`, `toolCallId` and `input` name the call), `session-not-resumed`
   * (the next turn starts a fresh session instead of resuming this one).
   */
  z.object({
    type: z.literal('warning'),
    code: z.string(),
    message: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    input: z.unknown().optional(),
  }),
  /**
   * The turn ended; `text` is the final answer. `structuredOutput`: the
   * CLI's own structured result when the turn was given an output schema and
   * the CLI returns it apart from the text (Claude Code's `structured_output`).
   */
  z.object({
    type: z.literal('turn-end'),
    text: z.string(),
    isError: z.boolean(),
    stopReason: z.string().optional(),
    structuredOutput: z.unknown().optional(),
  }),
]);
/** One normalized piece of an agent CLI's output. */
export type AgentStreamPart = z.infer<typeof agentStreamPartSchema>;

/**
 * The `stopReason` of a failed `turn-end` (`isError: true`) when the CLI failed the turn only because the model's
 * answer was empty (Gemini CLI's "The model returned an empty response"): not an API or process error, but an
 * answer that is not there. A typed turn reports it as a `StructuredOutputError` of failure `empty`, as it does
 * an empty answer the CLI let pass; an untyped turn stays a failed turn (`AgentError`).
 */
export const EMPTY_ANSWER_STOP_REASON = 'empty-answer';
