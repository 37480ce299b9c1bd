import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { AbortError, ModelError, parseRetryAfterMs, TroupeError, type ModelErrorKind } from '@troupe/core';

/** @internal Context for {@link toOpenAIModelError}. */
export interface OpenAIErrorContext {
  provider: string;
  abortSignal: AbortSignal | undefined;
  /** Values to redact (the API key). */
  secrets: readonly string[];
}

const KIND_BY_CODE: Record<string, ModelErrorKind> = {
  invalid_api_key: 'authentication',
  rate_limit_exceeded: 'rate-limit',
  insufficient_quota: 'rate-limit',
  server_error: 'server',
  server_is_overloaded: 'overloaded',
  model_not_found: 'not-found',
};

function bodyMessage(body: unknown): string | undefined {
  const record = body as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = record?.message ?? record?.error?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * Maps anything the `openai` SDK throws to a `ModelError` (HTTP errors,
 * in-stream `error` events, connection failures, timeouts) or an
 * `AbortError` (the request's signal fired). The API key never appears in
 * the message.
 */
export function toOpenAIModelError(error: unknown, context: OpenAIErrorContext): TroupeError {
  if (TroupeError.isInstance(error)) return error;
  const { provider, secrets } = context;
  if (error instanceof APIUserAbortError || context.abortSignal?.aborted) {
    return new AbortError('The OpenAI request was aborted', { cause: context.abortSignal?.reason ?? error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError(`OpenAI request timed out: ${error.message}`, { provider, kind: 'timeout', cause: error, secrets });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError(`Cannot reach the OpenAI API: ${error.message}`, { provider, kind: 'connection', cause: error, secrets });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    const type = error.code ?? error.type ?? undefined;
    const providerMessage = bodyMessage(error.error) ?? error.message;
    const kind = status === undefined ? (type !== undefined ? (KIND_BY_CODE[type] ?? 'stream') : 'stream') : undefined;
    const retryAfterMs = parseRetryAfterMs(error.headers ?? undefined);
    return new ModelError(`OpenAI API error${status !== undefined ? ` ${status}` : ''}${type ? ` ${type}` : ''}: ${providerMessage}`, {
      provider,
      ...(status !== undefined ? { status } : {}),
      ...(kind !== undefined ? { kind } : {}),
      providerMessage,
      ...(type ? { providerErrorType: type } : {}),
      ...(error.requestID ? { requestId: error.requestID } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
      secrets,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`OpenAI request failed: ${message}`, { provider, kind: 'unknown', cause: error, secrets });
}
