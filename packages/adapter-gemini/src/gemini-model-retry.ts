import { AbortError, ModelError, type TroupeError } from '@troupe/core';

const UNDICI_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface UndiciDispatcher {
  dispatch(options: Record<string, unknown>, handler: unknown): boolean;
}

function globalDispatcher(): UndiciDispatcher | undefined {
  const read = () => (globalThis as Record<symbol, unknown>)[UNDICI_GLOBAL_DISPATCHER] as UndiciDispatcher | undefined;
  if (!read()) new Headers(); // Node creates its fetch dispatcher lazily.
  const dispatcher = read();
  return typeof dispatcher?.dispatch === 'function' ? dispatcher : undefined;
}

/**
 * Node's `fetch` without undici's 300 s header and body timeouts, as
 * `@google/genai` does for its own default fetch (long generations would
 * otherwise be cut; the server bounds requests). Giving the SDK any `fetch`
 * turns its version off, so the model's default fetch does the same.
 */
export const geminiDefaultFetch: typeof globalThis.fetch = (input, init) => {
  const base = globalDispatcher();
  if (!base) return globalThis.fetch(input, init);
  const dispatcher = {
    dispatch: (options: Record<string, unknown>, handler: unknown) => base.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler),
  };
  return globalThis.fetch(input, { ...init, dispatcher } as unknown as RequestInit);
};

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
  /** Maps a thrown value (and the error response's headers) to a core error. */
  toError: (error: unknown, headers: Headers | undefined) => TroupeError;
  /** Called before each wait, e.g. for logs. */
  onRetry?: (info: { error: ModelError; retry: number; delayMs: number }) => void;
}

/** Exponential backoff for retry `n` (0-based): 0.5 s, 1 s, 2 s… capped at 8 s, minus up to 25 % jitter. */
export function geminiBackoffMs(retry: number): number {
  const base = Math.min(8_000, 500 * 2 ** retry);
  return Math.round(base * (1 - Math.random() * 0.25));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('The Gemini request was aborted', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('The Gemini request was aborted', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` and retries it after a retryable `ModelError` (429, 408,
 * 409, 5xx, connection and timeout failures), at most `maxRetries` times.
 * The wait is the provider's (`retry-after-ms`, `retry-after`, Google's
 * `RetryInfo.retryDelay`) when it gave one, else {@link geminiBackoffMs}. A
 * provider wait longer than `maxRetryDelayMs` is not waited for: the error is
 * thrown with its `retryAfterMs`. Aborting during a wait rejects with
 * `AbortError`.
 */
export async function withGeminiRetries<T>(
  attempt: (fetchCapture: GeminiAttemptFetch) => Promise<T>,
  base: typeof globalThis.fetch,
  options: GeminiRetryOptions,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    const capture = createGeminiAttemptFetch(base);
    try {
      return await attempt(capture);
    } catch (thrown) {
      const error = options.toError(thrown, capture.errorHeaders());
      if (!ModelError.isInstance(error) || !error.retryable || retry >= options.maxRetries) throw error;
      const delayMs = error.retryAfterMs ?? geminiBackoffMs(retry);
      if (delayMs > options.maxRetryDelayMs) throw error;
      options.onRetry?.({ error, retry: retry + 1, delayMs });
      await sleep(delayMs, options.abortSignal);
    }
  }
}
