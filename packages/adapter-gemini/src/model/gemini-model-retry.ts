import { retryModelCall } from '@troupe/core/model-runtime';
import { type ModelError, type TroupeError } from '@troupe/core';

/** A `fetch` for one attempt that remembers the headers of an error response. */
export interface GeminiAttemptFetch {
  fetch: typeof globalThis.fetch;
  /** Headers of the last response with status >= 400 (for `retry-after`, request ids). */
  errorHeaders(): Headers | undefined;
}

/** Wraps `base` so the headers of an error response survive the SDK's `ApiError` (which drops them). */
export function createGeminiAttemptFetch(base: typeof globalThis.fetch): GeminiAttemptFetch {
  let headers: Headers | undefined;
  return {
    fetch: async (input, init) => {
      const response = await base(input, init);
      if (response.status >= 400) headers = response.headers;
      return response;
    },
    errorHeaders: () => headers,
  };
}

/** Options of {@link withGeminiRetries}. */
export interface GeminiRetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Longest accepted wait; a longer `retry-after` fails at once. */
  maxRetryDelayMs: number;
  abortSignal?: AbortSignal | undefined;
  /** Maps a thrown value (and the error response's headers, when a `fetch` was given) to a core error. */
  toError: (error: unknown, headers: Headers | undefined) => TroupeError;
  /** Called before each wait, e.g. for logs. */
  onRetry?: (info: { error: ModelError; retry: number; delayMs: number }) => void;
}

/**
 * Runs `attempt` with core's retry around the call ({@link retryModelCall}):
 * retryable `ModelError`s (429, 408, 409, 5xx, connection and timeout
 * failures) are retried at most `maxRetries` times, waiting what Google's
 * `RetryInfo.retryDelay` (in the error body) asks, else backing off
 * exponentially. HTTP goes through `@google/genai`'s own fetch (which lifts
 * undici's 300 s header and body timeouts for long generations); only when
 * the user gives a `fetch` is each attempt's response seen here, so
 * `retry-after` / `retry-after-ms` headers (from gateways) are honoured too.
 */
export function withGeminiRetries<T>(
  attempt: (fetchCapture: GeminiAttemptFetch | undefined) => Promise<T>,
  userFetch: typeof globalThis.fetch | undefined,
  options: GeminiRetryOptions,
): Promise<T> {
  let capture: GeminiAttemptFetch | undefined;
  return retryModelCall(
    () => {
      capture = userFetch ? createGeminiAttemptFetch(userFetch) : undefined;
      return attempt(capture);
    },
    {
      maxRetries: options.maxRetries,
      maxRetryDelayMs: options.maxRetryDelayMs,
      abortSignal: options.abortSignal,
      toError: (error) => options.toError(error, capture?.errorHeaders()),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    },
  );
}
