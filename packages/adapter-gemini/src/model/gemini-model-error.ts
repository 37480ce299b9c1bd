import { ApiError } from '@google/genai';
import { AbortError, ModelError, TroupeError, parseRetryAfterMs } from '@troupe/core';
import { REDACTED, redactSecrets } from '@troupe/core/util';
import { googleStatusCode } from '../google-status-codes';

/** What is known about the call that failed, besides the error. */
export interface GeminiErrorContext {
  /** The model's provider name. */
  provider: string;
  /** The API key, to redact. */
  apiKey: string;
  /** The caller's signal: when it fired, any failure is an `AbortError`. */
  abortSignal?: AbortSignal | undefined;
  /** Headers of the failed HTTP response, when one was received (for `retry-after` and the request id). */
  responseHeaders?: Headers | undefined;
}

interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: unknown[];
}

/** Hides API keys in URLs (`?key=…`, `&key=…`) and the key itself. */
export function redactGeminiSecrets(text: string, apiKey: string): string {
  return redactSecrets(text.replace(/([?&]key=)[^&\s"']+/gi, `$1${REDACTED}`), [apiKey]);
}

function readGoogleErrorBody(message: string): GoogleErrorBody | undefined {
  const start = message.indexOf('{');
  if (start === -1) return undefined;
  try {
    const value = JSON.parse(message.slice(start)) as { error?: unknown } | null;
    const error = value?.error;
    if (typeof error !== 'object' || error === null) return undefined;
    const { code, message: text, status, details } = error as Record<string, unknown>;
    return {
      ...(typeof code === 'number' ? { code } : {}),
      ...(typeof text === 'string' ? { message: text } : {}),
      ...(typeof status === 'string' ? { status } : {}),
      ...(Array.isArray(details) ? { details } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Google's `RetryInfo` detail (`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}`), in ms. */
function retryInfoDelayMs(details: readonly unknown[] | undefined): number | undefined {
  for (const detail of details ?? []) {
    if (typeof detail !== 'object' || detail === null) continue;
    const { '@type': type, retryDelay } = detail as Record<string, unknown>;
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo') || typeof retryDelay !== 'string') continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(retryDelay.trim());
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

/** Redacts the key from an SDK error kept as `cause` (its message may echo the request). */
function sanitizeCause(error: unknown, apiKey: string): unknown {
  if (error instanceof Error) {
    try {
      error.message = redactGeminiSecrets(error.message, apiKey);
      if (typeof error.stack === 'string') error.stack = redactGeminiSecrets(error.stack, apiKey);
    } catch {
      // Read-only (a DOMException): its fixed message holds no key.
    }
  }
  return error;
}

function isAbortLike(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/**
 * Maps whatever `@google/genai` threw to core's errors:
 * - the caller's signal fired → `AbortError`;
 * - `ApiError` (an HTTP error, or an error chunk inside a stream) →
 *   `ModelError` with the status, Google's status name
 *   (`RESOURCE_EXHAUSTED`) as `providerErrorType`, its message as
 *   `providerMessage`, `retryAfterMs` from `retry-after` or `RetryInfo`, and
 *   `retryable` for 408, 409, 429 and 5xx;
 * - a network failure → `ModelError` of kind `connection` (retryable), a
 *   per-attempt timeout → kind `timeout`, a garbled stream → kind `stream`.
 *
 * The API key never appears: it is redacted from every message (and from
 * the SDK error kept as `cause`), `?key=` query parameters included.
 */
export function toGeminiModelError(error: unknown, context: GeminiErrorContext): TroupeError {
  if (context.abortSignal?.aborted) {
    if (TroupeError.hasCode(error, 'ABORTED')) return error;
    return new AbortError('The Gemini request was aborted', { cause: context.abortSignal.reason });
  }
  if (TroupeError.isInstance(error)) return error;
  const { provider, apiKey } = context;
  const secrets = [apiKey];
  sanitizeCause(error, apiKey);
  const requestId = context.responseHeaders?.get('x-request-id') ?? context.responseHeaders?.get('x-goog-request-id') ?? undefined;
  if (error instanceof ApiError || (error as { name?: unknown } | null)?.name === 'ApiError') {
    const apiError = error as ApiError;
    const raw = redactGeminiSecrets(apiError.message, apiKey);
    const body = readGoogleErrorBody(raw);
    const status = typeof apiError.status === 'number' ? apiError.status : (body?.code ?? (body?.status ? googleStatusCode(body.status) : undefined));
    const providerMessage = body?.message ?? raw;
    const retryAfterMs = parseRetryAfterMs(context.responseHeaders ?? undefined) ?? retryInfoDelayMs(body?.details);
    const label = ['Gemini API error', status, body?.status].filter((piece) => piece !== undefined && piece !== '').join(' ');
    return new ModelError(`${label}: ${providerMessage}`, {
      provider,
      ...(status !== undefined ? { status } : {}),
      providerMessage,
      ...(body?.status !== undefined ? { providerErrorType: body.status } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(requestId ? { requestId } : {}),
      secrets,
      cause: error,
    });
  }
  const message = redactGeminiSecrets(error instanceof Error ? error.message : String(error), apiKey);
  if (isAbortLike(error)) {
    return new ModelError(`Gemini request timed out: ${message}`, { provider, kind: 'timeout', secrets, cause: error });
  }
  if (error instanceof TypeError && /fetch failed|network|socket|ECONN|terminated/i.test(`${message} ${String((error as { cause?: unknown }).cause)}`)) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = typeof cause?.code === 'string' ? ` (${cause.code})` : typeof cause?.message === 'string' ? ` (${redactGeminiSecrets(cause.message, apiKey)})` : '';
    return new ModelError(`Cannot reach the Gemini API: ${message}${detail}`, { provider, kind: 'connection', secrets, cause: error });
  }
  if (/Incomplete JSON segment|exception parsing stream chunk|Response body is empty/i.test(message)) {
    return new ModelError(`Gemini stream failed: ${message}`, { provider, kind: 'stream', retryable: true, secrets, cause: error });
  }
  return new ModelError(`Gemini request failed: ${message}`, { provider, kind: 'unknown', secrets, cause: error });
}
