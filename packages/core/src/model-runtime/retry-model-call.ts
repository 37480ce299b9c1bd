import { AbortError } from '../errors/abort-error';
import type { TroupeError } from '../errors/troupe-error';
import { ModelError } from '../model/model-error';

/** Default longest wait accepted between two attempts, in ms (a longer `retry-after` fails at once). */
export const DEFAULT_MODEL_RETRY_MAX_DELAY_MS = 60_000;

/** Options of {@link retryModelCall}. */
export interface RetryModelCallOptions {
  /** Retries after the first attempt (0 turns retries off). */
  maxRetries: number;
  /**
   * Longest wait accepted between attempts. A provider asking for a longer
   * pause gets its error thrown at once, with `retryAfterMs` set, so the
   * caller can schedule it. Default {@link DEFAULT_MODEL_RETRY_MAX_DELAY_MS}.
   */
  maxRetryDelayMs?: number;
  /** Cancels the wait between attempts (rejects with `AbortError`). */
  abortSignal?: AbortSignal | undefined;
  /** Maps whatever an attempt threw to a core error (`ModelError`, `AbortError`…). */
  toError: (error: unknown) => TroupeError;
  /** Called before each wait, e.g. for logs. */
  onRetry?: (info: { error: ModelError; retry: number; delayMs: number }) => void;
}

/** Exponential backoff for retry `n` (0-based): 0.5 s, 1 s, 2 s… capped at 8 s, minus up to 25 % jitter. */
export function modelRetryBackoffMs(retry: number): number {
  const base = Math.min(8_000, 500 * 2 ** retry);
  return Math.round(base * (1 - Math.random() * 0.25));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('The model call was aborted while waiting to retry', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('The model call was aborted while waiting to retry', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A retry around one model call, for providers whose SDK does not retry (or
 * not well): runs `attempt` and, after a retryable `ModelError` (429, 408,
 * 409, 5xx, connection and timeout failures), runs it again, at most
 * `maxRetries` times. The wait is the provider's (`retryAfterMs`, from
 * `retry-after` headers or the error body) when it gave one, else
 * {@link modelRetryBackoffMs}. Anything else is thrown as `toError` maps it.
 *
 * @example
 * ```ts
 * const response = await retryModelCall(() => client.generate(body, { signal }), {
 *   maxRetries: 2,
 *   abortSignal: signal,
 *   toError: (error) => toModelError(error),
 * });
 * ```
 */
export async function retryModelCall<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryModelCallOptions): Promise<T> {
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MODEL_RETRY_MAX_DELAY_MS;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry + 1);
    } catch (thrown) {
      const error = options.toError(thrown);
      if (!ModelError.isInstance(error) || !error.retryable || retry >= options.maxRetries) throw error;
      const delayMs = error.retryAfterMs ?? modelRetryBackoffMs(retry);
      if (delayMs > maxRetryDelayMs) throw error;
      options.onRetry?.({ error, retry: retry + 1, delayMs });
      await sleep(delayMs, options.abortSignal);
    }
  }
}
