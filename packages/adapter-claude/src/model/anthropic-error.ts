import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { AbortError, ModelError, parseRetryAfterMs, TroupeError, type ModelErrorKind } from '@troupe/core';

const KIND_BY_TYPE: Record<string, ModelErrorKind> = {
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not-found',
  invalid_request_error: 'invalid-request',
  request_too_large: 'invalid-request',
  rate_limit_error: 'rate-limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  timeout_error: 'timeout',
};

/** @internal Context for {@link toAnthropicModelError}. */
export interface AnthropicErrorContext {
  provider: string;
  abortSignal: AbortSignal | undefined;
  /** Values to redact (the API key). */
  secrets: readonly string[];
}

function bodyMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}

function bodyType(body: unknown): string | undefined {
  const type = (body as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * Maps anything the Anthropic SDK throws to a `ModelError` (HTTP and stream
 * errors, connection failures, timeouts) or an `AbortError` (the request's
 * signal fired). The API key never appears in the message.
 */
export function toAnthropicModelError(error: unknown, context: AnthropicErrorContext): TroupeError {
  if (TroupeError.isInstance(error)) return error;
  const { provider, secrets } = context;
  if (error instanceof APIUserAbortError || context.abortSignal?.aborted) {
    return new AbortError('The Anthropic request was aborted', { cause: context.abortSignal?.reason ?? error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError(`Anthropic request timed out: ${error.message}`, { provider, kind: 'timeout', cause: error, secrets });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError(`Cannot reach the Anthropic API: ${error.message}`, { provider, kind: 'connection', cause: error, secrets });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    const type = error.type ?? bodyType(error.error) ?? undefined;
    const providerMessage = error.apiMessage ?? bodyMessage(error.error) ?? error.message;
    const kind = status === undefined ? (type !== undefined ? (KIND_BY_TYPE[type] ?? 'stream') : 'stream') : undefined;
    const retryAfterMs = parseRetryAfterMs(error.headers ?? undefined);
    const label = [status, type].filter((part) => part !== undefined).join(' ');
    return new ModelError(`Anthropic API error${label ? ` ${label}` : ''}: ${providerMessage}`, {
      provider,
      ...(status !== undefined ? { status } : {}),
      ...(kind !== undefined ? { kind } : {}),
      providerMessage,
      ...(type !== undefined ? { providerErrorType: type } : {}),
      ...(error.requestID ? { requestId: error.requestID } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
      secrets,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`Anthropic request failed: ${message}`, { provider, kind: 'unknown', cause: error, secrets });
}
