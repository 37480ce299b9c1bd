import { ConfigError } from '@troupe/core';
import { z } from 'zod';

/** Default OpenAI model: current (the model of the `openai` 6.x SDK's examples and of Codex). */
export const OPENAI_DEFAULT_MODEL = 'gpt-5.5';

/** Settings of {@link createOpenAIModel}. */
export const openAIModelSettingsSchema = z.strictObject({
  /** Model id, e.g. `gpt-5.5`, `gpt-5.4-mini`; for local servers their model name (`llama3.2`, `qwen3`…). Default {@link OPENAI_DEFAULT_MODEL}. */
  model: z.string().min(1).optional(),
  /**
   * Which API: `responses` (default; OpenAI's current API) or `chat` (Chat
   * Completions — what OpenAI-compatible servers such as Ollama, llama.cpp
   * and vLLM implement; use it with their `baseURL`).
   */
  api: z.enum(['responses', 'chat']).optional(),
  /**
   * API key. Default `OPENAI_API_KEY`. With a `baseURL` and no key, a
   * placeholder is sent (local servers ignore it). Never logged.
   */
  apiKey: z.string().min(1).optional(),
  /** API root including `/v1`, e.g. `http://localhost:11434/v1` (Ollama). Default `OPENAI_BASE_URL`, else OpenAI. */
  baseURL: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  organization: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
  /** Retries of 408/409/429/5xx and connection errors, honouring `retry-after`. Default 2. */
  maxRetries: z.number().int().min(0).optional(),
  /** Time limit of one HTTP attempt, in ms. Default: the SDK's (10 min). */
  timeoutMs: z.number().int().positive().optional(),
  /** Output token cap when a request gives none. Default: the server's. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** Headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * How `responseFormat` JSON is requested: `json-schema` (native structured
   * output, default), `json-object` (JSON mode; the schema goes in the prompt
   * — for servers without `json_schema` support), `none` (prompting only).
   */
  structuredOutput: z.enum(['json-schema', 'json-object', 'none']).optional(),
  /**
   * Send schemas with `strict: true` (tools and structured output). Strict
   * mode needs every property listed in `required` and closed objects;
   * objects are closed for you. Default false.
   */
  strictJsonSchema: z.boolean().optional(),
  /** `parallel_tool_calls`; default: the server's (true on OpenAI). */
  parallelToolCalls: z.boolean().optional(),
  /** Responses API: whether OpenAI stores the response (`store`). Default: the server's. */
  store: z.boolean().optional(),
  /** Chat API: the token cap's field; `max_tokens` for older compatible servers. Default `max_completion_tokens`. */
  maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  /** Chat API: role of the system prompt; `developer` for OpenAI reasoning models. Default `system`. */
  systemMessageRole: z.enum(['system', 'developer']).optional(),
  /** Chat API: ask for usage in streams (`stream_options.include_usage`). Default true. */
  streamUsage: z.boolean().optional(),
  /** Custom `fetch` (proxies, tests). */
  fetch: z.custom<typeof globalThis.fetch>((value) => typeof value === 'function', { message: 'expected a fetch function' }).optional(),
});

/** Settings of {@link createOpenAIModel}. */
export type OpenAIModelSettings = z.input<typeof openAIModelSettingsSchema>;

/** Settings with defaults applied (what the model runs with). */
export type ResolvedOpenAIModelSettings = Omit<OpenAIModelSettings, 'model' | 'api' | 'structuredOutput'> & {
  model: string;
  api: 'responses' | 'chat';
  structuredOutput: 'json-schema' | 'json-object' | 'none';
};

/** Validates settings (throws `ConfigError` naming the field) and applies defaults. */
export function resolveOpenAIModelSettings(settings: OpenAIModelSettings = {}): ResolvedOpenAIModelSettings {
  const parsed = openAIModelSettingsSchema.safeParse(settings);
  if (!parsed.success) throw ConfigError.fromZod('createOpenAIModel settings', parsed.error);
  return {
    ...parsed.data,
    model: parsed.data.model ?? OPENAI_DEFAULT_MODEL,
    api: parsed.data.api ?? 'responses',
    structuredOutput: parsed.data.structuredOutput ?? 'json-schema',
  };
}
