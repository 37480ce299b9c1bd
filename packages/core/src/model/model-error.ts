import { TroupeError, type TroupeErrorCode, type TroupeErrorOptions } from '../errors/troupe-error';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';

/** Codes of the model and tool errors. */
export type ModelErrorCode = Extract<TroupeErrorCode, 'MODEL_ERROR' | 'MODEL_OUTPUT_INVALID' | 'TOOL_ERROR'>;

const MODEL_ERROR_MARKER = Symbol.for('troupe.model-error');
const MODEL_OUTPUT_ERROR_MARKER = Symbol.for('troupe.model-output-error');

/**
 * What kind of failure a {@link ModelError} is, independent of the vendor:
 * decides retries and what to tell the user.
 */
export type ModelErrorKind =
  | 'authentication'
  | 'permission'
  | 'not-found'
  | 'invalid-request'
  | 'rate-limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'stream'
  | 'unknown';

/** Fields of a {@link ModelError}. */
export interface ModelErrorDetails extends TroupeErrorOptions {
  /** The model's `provider` (e.g. `anthropic.messages`). */
  provider: string;
  /** What kind of failure; derived from `status` when omitted. */
  kind?: ModelErrorKind;
  /** HTTP status, when the provider answered one. */
  status?: number;
  /** Whether sending the same request again may succeed; derived from `status`/`kind` when omitted. */
  retryable?: boolean;
  /** The provider's own error message (redacted). */
  providerMessage?: string;
  /** The provider's error type/code (`rate_limit_error`, `invalid_api_key`, `RESOURCE_EXHAUSTED`). */
  providerErrorType?: string;
  /** Provider request id, for support tickets. */
  requestId?: string;
  /** How long the provider asked to wait (`retry-after`), in ms. */
  retryAfterMs?: number;
  /** Values to redact from every message (the API key). Not stored. */
  secrets?: Iterable<string>;
}

/** The {@link ModelErrorKind} an HTTP status means. */
export function modelErrorKindForStatus(status: number | undefined): ModelErrorKind {
  if (status === undefined) return 'unknown';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limit';
  if (status === 529 || status === 503) return 'overloaded';
  if (status >= 500) return 'server';
  if (status >= 400) return 'invalid-request';
  return 'unknown';
}

/** Whether a failure of this kind/status is worth retrying (408, 409, 429, 5xx, connection, timeout). */
export function isRetryableModelFailure(status: number | undefined, kind: ModelErrorKind): boolean {
  if (status !== undefined) return status === 408 || status === 409 || status === 429 || status >= 500;
  return kind === 'connection' || kind === 'timeout' || kind === 'overloaded' || kind === 'rate-limit' || kind === 'server';
}

/**
 * Reads `retry-after-ms` / `retry-after` (seconds or an HTTP date) from
 * response headers, in milliseconds.
 */
export function parseRetryAfterMs(headers: { get(name: string): string | null } | Record<string, string | undefined> | undefined): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null | undefined =>
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get(name)
      : (headers as Record<string, string | undefined>)[name];
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after');
  if (raw == null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * A model provider call failed: an HTTP error (401, 429, 5xx…), a dropped
 * connection, a timeout, or an error event inside a stream. Every vendor
 * error maps to this one class, so callers branch on `kind`, `status` and
 * `retryable` rather than on vendor SDK classes. Messages never contain the
 * API key.
 *
 * @example
 * ```ts
 * try { await runToolLoop({ model, prompt }); }
 * catch (error) {
 *   if (ModelError.isInstance(error) && error.retryable) scheduleRetry(error.retryAfterMs);
 * }
 * ```
 */
export class ModelError extends TroupeError {
  private readonly [MODEL_ERROR_MARKER] = true;
  readonly provider: string;
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly providerMessage: string | undefined;
  readonly providerErrorType: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: ModelErrorDetails) {
    // The API key given, and any secret of this process's environment.
    const secrets = [...(details.secrets ?? []), ...secretValuesFromEnv(process.env)];
    const kind = details.kind ?? modelErrorKindForStatus(details.status);
    super('MODEL_ERROR', redactSecrets(message, secrets), details);
    this.name = 'ModelError';
    this.provider = details.provider;
    this.kind = kind;
    this.status = details.status;
    this.retryable = details.retryable ?? isRetryableModelFailure(details.status, kind);
    this.providerMessage = details.providerMessage === undefined ? undefined : redactSecrets(details.providerMessage, secrets);
    this.providerErrorType = details.providerErrorType;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** True for a ModelError from any copy of `@troupe/core`. */
  static override isInstance(error: unknown): error is ModelError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MODEL_ERROR_MARKER] === true;
  }
}

/** One reason the model's output was rejected. */
export interface ModelOutputIssue {
  /** Path into the object (`decision.reason`), `(root)` for the whole value. */
  path: string;
  message: string;
}

/**
 * The model's answer could not be used: `generateObject` got text that is
 * not JSON or does not match the schema, even after asking the model to fix
 * it. `text` holds the last raw answer.
 */
export class ModelOutputError extends TroupeError {
  private readonly [MODEL_OUTPUT_ERROR_MARKER] = true;
  /** The model's last raw answer. */
  readonly text: string;
  /** What was wrong with it. */
  readonly issues: readonly ModelOutputIssue[];
  /** How many answers were tried. */
  readonly attempts: number;

  constructor(message: string, details: { text: string; issues: readonly ModelOutputIssue[]; attempts: number } & TroupeErrorOptions) {
    super('MODEL_OUTPUT_INVALID', message, details);
    this.name = 'ModelOutputError';
    this.text = details.text;
    this.issues = details.issues;
    this.attempts = details.attempts;
  }

  /** True for a ModelOutputError from any copy of `@troupe/core`. */
  static override isInstance(error: unknown): error is ModelOutputError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MODEL_OUTPUT_ERROR_MARKER] === true;
  }
}
