import { ConfigError } from '@troupe/core';
import { z } from 'zod';

/**
 * Default Anthropic model: a current (not deprecated) Claude model from
 * `@anthropic-ai/sdk` 1.12's model list, balanced for cost and quality.
 */
export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Default `max_tokens` (the Messages API requires one). */
export const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** Settings of {@link createAnthropicModel}. */
export const anthropicModelSettingsSchema = z.strictObject({
  /** Model id, e.g. `claude-sonnet-5-5`, `claude-opus-5-5`, `claude-haiku-5-5`. Default {@link ANTHROPIC_DEFAULT_MODEL}. */
  model: z.string().min(1).optional(),
  /** API key. Default: `ANTHROPIC_API_KEY` (and the SDK's other credential sources). Never logged. */
  apiKey: z.string().min(1).optional(),
  /**
   * API root without `/v1`, e.g. `http://127.0.0.1:8787` or a proxy. Default:
   * `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`.
   */
  baseURL: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  /** Retries of 408/409/429/5xx and connection errors, honouring `retry-after`. Default 2. */
  maxRetries: z.number().int().min(0).optional(),
  /** Time limit of one HTTP attempt, in ms. Default: the SDK's (10 min, scaled for big non-streaming requests). */
  timeoutMs: z.number().int().positive().optional(),
  /** `max_tokens` when the request gives no `maxOutputTokens`. Default 4096. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** Headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * Structured output: `json-schema` sends `output_config.format` (native
   * JSON Schema output, current models); `none` makes `generateObject` prompt
   * for JSON instead (older models, or proxies that reject `output_config`).
   * Default `json-schema`.
   */
  structuredOutput: z.enum(['json-schema', 'none']).optional(),
  /** Let the model make at most one tool call per turn (`disable_parallel_tool_use`). Default false. */
  disableParallelToolUse: z.boolean().optional(),
  /** Custom `fetch` (proxies, tests). */
  fetch: z.custom<typeof globalThis.fetch>((value) => typeof value === 'function', { message: 'expected a fetch function' }).optional(),
});

/** Settings of {@link createAnthropicModel}. */
export type AnthropicModelSettings = z.input<typeof anthropicModelSettingsSchema>;

/** Settings with defaults applied (what the model runs with). */
export type ResolvedAnthropicModelSettings = Omit<AnthropicModelSettings, 'model' | 'maxOutputTokens' | 'structuredOutput'> & {
  model: string;
  maxOutputTokens: number;
  structuredOutput: 'json-schema' | 'none';
};

/** Validates settings (throws `ConfigError` naming the field) and applies defaults. */
export function resolveAnthropicModelSettings(settings: AnthropicModelSettings = {}): ResolvedAnthropicModelSettings {
  const parsed = anthropicModelSettingsSchema.safeParse(settings);
  if (!parsed.success) throw ConfigError.fromZod('createAnthropicModel settings', parsed.error);
  return {
    ...parsed.data,
    model: parsed.data.model ?? ANTHROPIC_DEFAULT_MODEL,
    maxOutputTokens: parsed.data.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
    structuredOutput: parsed.data.structuredOutput ?? 'json-schema',
  };
}
