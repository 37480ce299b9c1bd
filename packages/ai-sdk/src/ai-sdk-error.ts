import { AbortError, ModelError, parseRetryAfterMs, TroupeError, type ModelErrorKind } from '@troupe/core';

/** @internal Context for {@link toAISdkModelError}. */
export interface AISdkErrorContext {
  /** The model's provider id (`openai.responses`, `anthropic.messages`…). */
  provider: string;
  abortSignal: AbortSignal | undefined;
  /** Values to redact (API keys). */
  secrets: readonly string[];
}

/** Fields of the AI SDK's `APICallError` (`@ai-sdk/provider`), read without importing it. */
interface APICallErrorLike {
  name: string;
  message: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  data?: unknown;
}

const API_CALL_ERROR_MARKER = Symbol.for('vercel.ai.error.AI_APICallError');
const LOAD_API_KEY_ERROR_MARKER = Symbol.for('vercel.ai.error.AI_LoadAPIKeyError');

/** Error types providers put in their error bodies and stream error events, by what they mean. */
const KIND_BY_TYPE: Record<string, ModelErrorKind> = {
  authentication_error: 'authentication',
  invalid_api_key: 'authentication',
  UNAUTHENTICATED: 'authentication',
  permission_error: 'permission',
  PERMISSION_DENIED: 'permission',
  not_found_error: 'not-found',
  NOT_FOUND: 'not-found',
  invalid_request_error: 'invalid-request',
  INVALID_ARGUMENT: 'invalid-request',
  rate_limit_error: 'rate-limit',
  rate_limit_exceeded: 'rate-limit',
  RESOURCE_EXHAUSTED: 'rate-limit',
  overloaded_error: 'overloaded',
  UNAVAILABLE: 'overloaded',
  api_error: 'server',
  server_error: 'server',
  INTERNAL: 'server',
  timeout_error: 'timeout',
};

function marked(error: unknown, marker: symbol, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  return (error as Record<symbol, unknown>)[marker] === true || (error as { name?: unknown }).name === name;
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError' || (error as { code?: unknown } | null)?.code === 20;
}

/** `{ error: { message, type | code | status } }` (OpenAI, Anthropic, Google) or `{ message, type }`. */
function describeBody(value: unknown): { message: string | undefined; type: string | undefined } {
  if (typeof value === 'string') {
    try {
      return describeBody(JSON.parse(value));
    } catch {
      return { message: value.trim() === '' ? undefined : value, type: undefined };
    }
  }
  if (typeof value !== 'object' || value === null) return { message: undefined, type: undefined };
  const record = value as { error?: unknown; message?: unknown; type?: unknown; code?: unknown; status?: unknown };
  if (typeof record.error === 'object' && record.error !== null) return describeBody(record.error);
  if (typeof record.error === 'string') return { message: record.error, type: undefined };
  const message = typeof record.message === 'string' ? record.message : undefined;
  const type = [record.type, record.code, record.status].find((field): field is string => typeof field === 'string');
  return { message, type };
}

function requestId(headers: Record<string, string> | undefined): string | undefined {
  if (!headers) return undefined;
  return headers['request-id'] ?? headers['x-request-id'] ?? headers['x-goog-request-id'];
}

/**
 * Maps anything an AI SDK model throws (or puts in an `error` stream part) to
 * a `ModelError` — HTTP errors (`APICallError`: status, retryable,
 * `retry-after`, the provider's message and error type, request id), a
 * missing API key, connection failures, provider error events in a stream —
 * or an `AbortError` when the request's signal fired. Secrets never appear
 * in the message.
 *
 * @internal
 */
export function toAISdkModelError(error: unknown, context: AISdkErrorContext): TroupeError {
  if (TroupeError.isInstance(error)) return error;
  const { provider, secrets } = context;
  if (context.abortSignal?.aborted || isAbort(error)) {
    return new AbortError(`The ${provider} request was aborted`, { cause: context.abortSignal?.reason ?? error });
  }
  if (marked(error, LOAD_API_KEY_ERROR_MARKER, 'AI_LoadAPIKeyError')) {
    return new ModelError(`${provider}: ${(error as Error).message}`, { provider, kind: 'authentication', retryable: false, cause: error, secrets });
  }
  if (marked(error, API_CALL_ERROR_MARKER, 'AI_APICallError')) {
    const apiError = error as APICallErrorLike;
    const status = typeof apiError.statusCode === 'number' ? apiError.statusCode : undefined;
    const body = describeBody(apiError.data ?? apiError.responseBody);
    const providerMessage = body.message ?? apiError.message;
    const retryAfterMs = parseRetryAfterMs(apiError.responseHeaders);
    const id = requestId(apiError.responseHeaders);
    const kind: ModelErrorKind | undefined = status === undefined ? 'connection' : undefined;
    const label = [status, body.type].filter((part) => part !== undefined).join(' ');
    const what = status === undefined ? `Cannot reach the ${provider} API` : `${provider} API error${label ? ` ${label}` : ''}`;
    return new ModelError(`${what}: ${providerMessage}`, {
      provider,
      ...(status !== undefined ? { status } : {}),
      ...(kind !== undefined ? { kind } : {}),
      ...(typeof apiError.isRetryable === 'boolean' ? { retryable: apiError.isRetryable } : {}),
      providerMessage,
      ...(body.type !== undefined ? { providerErrorType: body.type } : {}),
      ...(id !== undefined ? { requestId: id } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
      secrets,
    });
  }
  if (error instanceof TypeError && /fetch failed|ECONNREFUSED|ENOTFOUND|socket/i.test(`${error.message} ${String(error.cause)}`)) {
    return new ModelError(`Cannot reach the ${provider} API: ${error.message}`, { provider, kind: 'connection', cause: error, secrets });
  }
  if (!(error instanceof Error)) {
    // A provider's error event in a stream (`{ type: 'error', error: { type: 'overloaded_error', message } }`).
    const body = describeBody(error);
    const kind = body.type !== undefined ? (KIND_BY_TYPE[body.type] ?? 'stream') : 'stream';
    const message = body.message ?? safeJson(error);
    return new ModelError(`${provider} stream error${body.type !== undefined ? ` ${body.type}` : ''}: ${message}`, {
      provider,
      kind,
      providerMessage: message,
      ...(body.type !== undefined ? { providerErrorType: body.type } : {}),
      cause: error,
      secrets,
    });
  }
  return new ModelError(`${provider} request failed: ${error.message}`, { provider, kind: 'unknown', cause: error, secrets });
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
