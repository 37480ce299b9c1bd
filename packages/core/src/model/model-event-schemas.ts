import { z } from 'zod';

// Kept local (not imported from `events/event-map`): the event map imports
// this file, so importing back would read its schemas before they exist.
const errorSchema = z.object({ name: z.string(), message: z.string(), code: z.string().optional() });

/** Token counts of one model call as they travel in events (`undefined`: the provider did not say). */
export const modelCallUsageSchema = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

/**
 * Payload schemas of model and tool call events (`tool-loop:*`, `model:*`,
 * `tool:*`), emitted by the runners (`runToolLoop`, `generateObject`,
 * {@link observeChatModel}) so tracing and the usage ledger see every call,
 * whatever made it. No prompt, answer or tool argument travels here: only
 * names, ids, counts and outcomes.
 */
export const modelEventSchemas = {
  /**
   * A `runToolLoop` run began: the root of its model and tool calls (they
   * carry its `loopId` and run in its event scope), so a trace shows one run
   * with its calls rather than one trace per call.
   */
  'tool-loop:started': z.object({
    loopId: z.string(),
    provider: z.string(),
    modelId: z.string(),
    toolCount: z.number().int().nonnegative(),
    maxSteps: z.number().int().positive(),
    timestamp: z.number(),
  }),
  /** A `runToolLoop` run ended: how, after how many model calls (`steps`), with its summed usage. */
  'tool-loop:completed': z.object({
    loopId: z.string(),
    provider: z.string(),
    modelId: z.string(),
    status: z.enum(['completed', 'failed', 'canceled']),
    steps: z.number().int().nonnegative(),
    /** The model still wanted tools when `maxSteps` was reached. */
    stepLimitReached: z.boolean(),
    durationMs: z.number().nonnegative(),
    usage: modelCallUsageSchema.optional(),
    error: errorSchema.optional(),
  }),
  /** A model call began. `callId` pairs it with its `model:call-completed`. */
  'model:call-started': z.object({
    callId: z.string(),
    /** The `runToolLoop` run that made it (its `tool-loop:started`), when one did. */
    loopId: z.string().optional(),
    /** The ChatModel's provider (`anthropic.messages`, `openai.responses`…). */
    provider: z.string(),
    /** The model requested. */
    modelId: z.string(),
    stream: z.boolean(),
    toolCount: z.number().int().nonnegative(),
    maxOutputTokens: z.number().optional(),
    temperature: z.number().optional(),
    timestamp: z.number(),
  }),
  /** A model call ended (`failed` / `canceled` carry the error). */
  'model:call-completed': z.object({
    callId: z.string(),
    provider: z.string(),
    modelId: z.string(),
    status: z.enum(['completed', 'failed', 'canceled']),
    durationMs: z.number().nonnegative(),
    /** The model that answered, when the provider names it. */
    responseModelId: z.string().optional(),
    responseId: z.string().optional(),
    stopReason: z.string().optional(),
    usage: modelCallUsageSchema.optional(),
    error: errorSchema.optional(),
  }),
  /** A tool began running for a model's tool call. */
  'tool:call-started': z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    /** The `runToolLoop` run that made it, when one did. */
    loopId: z.string().optional(),
    timestamp: z.number(),
  }),
  /** A tool call ended: `failed` includes an unknown tool and invalid arguments; `denied` means `canUseTool` refused it. */
  'tool:call-completed': z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    status: z.enum(['succeeded', 'failed', 'denied']),
    durationMs: z.number().nonnegative(),
    error: z.string().optional(),
  }),
} as const;
