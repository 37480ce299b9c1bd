import { ConfigError } from '@troupe/core';
import { z } from 'zod';

/**
 * Default model of {@link createGeminiModel}: Gemini 3.8 Flash, Google's
 * current stable Flash model (the one Gemini CLI's router picks for most
 * turns).
 */
export const GEMINI_MODEL_DEFAULT_MODEL = 'gemini-3.8-flash';

/**
 * Default number of retries after a retryable failure (429, 408, 5xx, a
 * dropped connection). `@google/genai` 2.x does not retry unless
 * `httpOptions.retryOptions` is set, and then ignores Google's `RetryInfo`,
 * so the model retries around the call itself (core's `retryModelCall`).
 */
export const GEMINI_MODEL_DEFAULT_MAX_RETRIES = 2;

/**
 * Longest wait the model accepts between two attempts, in ms. A provider
 * asking for a longer pause (`retry-after`, `RetryInfo.retryDelay`) gets the
 * error right away, with `retryAfterMs` set, so the caller can schedule it.
 */
export const GEMINI_MODEL_DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** Provider id of {@link GeminiChatModel} (Gemini Developer API, `generativelanguage.googleapis.com`). */
export const GEMINI_PROVIDER = 'google.generative-ai';

/** Environment variables read for the API key when `apiKey` is not given, in order. */
export const GEMINI_MODEL_API_KEY_ENV = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/**
 * Settings of {@link createGeminiModel}. Every field is optional; the API key
 * comes from the environment when not given.
 */
export interface GeminiModelSettings {
  /**
   * Gemini API key (Google AI Studio), sent as `x-goog-api-key` and redacted
   * from every error. Default: `GEMINI_API_KEY`, then `GOOGLE_API_KEY`, read
   * at the first call (so a model can be built before the key is set).
   */
  apiKey?: string;
  /**
   * API root, e.g. a gateway or a local test server (`http://127.0.0.1:8080`),
   * passed to the SDK as `httpOptions.baseUrl`. Default: Google's endpoint.
   * Give the root only: the SDK appends `/v1beta/models/…`.
   */
  baseURL?: string;
  /** API version path segment. Default: the SDK's (`v1beta`). */
  apiVersion?: string;
  /** Model name. Default {@link GEMINI_MODEL_DEFAULT_MODEL}. */
  model?: string;
  /**
   * Retries after a retryable failure (429, 408, 5xx, a dropped connection
   * before the first byte). Default {@link GEMINI_MODEL_DEFAULT_MAX_RETRIES};
   * 0 turns retries off. The wait honours Google's `RetryInfo.retryDelay`
   * (and, with your own `fetch`, `retry-after` / `retry-after-ms` headers),
   * else backs off exponentially (0.5 s, 1 s, 2 s… up to 8 s, with jitter).
   */
  maxRetries?: number;
  /** Longest wait accepted between attempts. Default {@link GEMINI_MODEL_DEFAULT_MAX_RETRY_DELAY_MS}. */
  maxRetryDelayMs?: number;
  /** Per-attempt timeout in ms (the SDK's `httpOptions.timeout`). Default: none (the server bounds requests). */
  timeoutMs?: number;
  /** Output token cap (`maxOutputTokens`) when a request gives none. Default: the model's. */
  maxOutputTokens?: number;
  /**
   * How `responseFormat: { type: 'json' }` is sent: `json-schema` (default)
   * — `responseMimeType: application/json` + `responseJsonSchema`, Gemini
   * constrains the output; `json-object` — the mime type only (for schemas
   * Gemini's JSON Schema subset rejects; `generateObject` then puts the
   * schema in the prompt); `none` — no JSON mode (prompting only).
   */
  structuredOutput?: 'json-schema' | 'json-object' | 'none';
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /**
   * `fetch` used for the HTTP calls (a proxy, a gateway, a test double).
   * Default: `@google/genai`'s own, which lifts undici's 300 s header and body
   * timeouts so long generations are not cut. With a `fetch` of yours, the
   * model also reads `retry-after` / `retry-after-ms` headers of error
   * responses (gateways send them; Google's API puts `RetryInfo` in the
   * error body, which is read either way), and undici's timeouts apply.
   */
  fetch?: typeof globalThis.fetch;
}

/** {@link GeminiModelSettings} with defaults applied (the key is resolved at the first call). */
export interface ResolvedGeminiModelSettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  apiVersion: string | undefined;
  model: string;
  maxRetries: number;
  maxRetryDelayMs: number;
  timeoutMs: number | undefined;
  maxOutputTokens: number | undefined;
  structuredOutput: 'json-schema' | 'json-object' | 'none';
  headers: Record<string, string>;
  fetch: typeof globalThis.fetch | undefined;
}

/** Zod schema of {@link GeminiModelSettings}; unknown keys are rejected so typos are reported. */
export const geminiModelSettingsSchema = z.strictObject({
  apiKey: z.string().min(1, 'apiKey must not be empty').optional(),
  baseURL: z
    .url({ message: 'baseURL must be an absolute http(s) URL, e.g. http://127.0.0.1:8080' })
    .refine((value) => /^https?:\/\//i.test(value), { message: 'baseURL must use http:// or https://' })
    .optional(),
  apiVersion: z.string().min(1, 'apiVersion must not be empty').optional(),
  model: z.string().min(1, 'model must not be empty').optional(),
  maxRetries: z.number().int('maxRetries must be an integer').min(0, 'maxRetries must be 0 or more').max(10, 'maxRetries is capped at 10').optional(),
  maxRetryDelayMs: z.number().min(0, 'maxRetryDelayMs must be 0 or more').optional(),
  timeoutMs: z.number().int('timeoutMs must be an integer').positive('timeoutMs must be positive').optional(),
  maxOutputTokens: z.number().int('maxOutputTokens must be an integer').positive('maxOutputTokens must be positive').optional(),
  structuredOutput: z.enum(['json-schema', 'json-object', 'none']).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  fetch: z.custom<typeof globalThis.fetch>((value) => typeof value === 'function', 'fetch must be a function').optional(),
});

/** Validates settings (throws `ConfigError` naming each bad field) and applies defaults. */
export function resolveGeminiModelSettings(settings: GeminiModelSettings = {}): ResolvedGeminiModelSettings {
  const parsed = geminiModelSettingsSchema.safeParse(settings);
  if (!parsed.success) throw ConfigError.fromZod('createGeminiModel settings', parsed.error);
  const value = parsed.data;
  return {
    apiKey: value.apiKey,
    baseURL: value.baseURL?.replace(/\/+$/, ''),
    apiVersion: value.apiVersion,
    model: value.model ?? GEMINI_MODEL_DEFAULT_MODEL,
    maxRetries: value.maxRetries ?? GEMINI_MODEL_DEFAULT_MAX_RETRIES,
    maxRetryDelayMs: value.maxRetryDelayMs ?? GEMINI_MODEL_DEFAULT_MAX_RETRY_DELAY_MS,
    timeoutMs: value.timeoutMs,
    maxOutputTokens: value.maxOutputTokens,
    structuredOutput: value.structuredOutput ?? 'json-schema',
    headers: { ...value.headers },
    fetch: value.fetch,
  };
}

/**
 * The API key: `apiKey`, else `GEMINI_API_KEY`, else `GOOGLE_API_KEY`.
 * Throws `ConfigError` when there is none.
 */
export function resolveGeminiApiKey(apiKey: string | undefined, env: Record<string, string | undefined> = process.env): string {
  const key = apiKey ?? GEMINI_MODEL_API_KEY_ENV.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  if (key === undefined) {
    throw new ConfigError('createGeminiModel settings', [
      { path: ['apiKey'], message: `no API key: pass apiKey or set ${GEMINI_MODEL_API_KEY_ENV.join(' or ')}` },
    ]);
  }
  return key;
}
