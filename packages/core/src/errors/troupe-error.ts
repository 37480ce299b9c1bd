/**
 * Every error code Troupe throws. A union of string literals so `switch`
 * statements over `error.code` are exhaustive.
 */
export type TroupeErrorCode =
  | 'PROCESS_FAILED'
  | 'COMMAND_NOT_FOUND'
  | 'PROCESS_NOT_FOUND'
  | 'COMPLETION_TIMEOUT'
  | 'ABORTED'
  | 'ADAPTER_NOT_FOUND'
  | 'AGENT_NOT_FOUND'
  | 'ADAPTER_ALREADY_REGISTERED'
  | 'AGENT_NOT_RUNNING'
  | 'CONFIG_INVALID'
  | 'INVALID_ARGUMENT'
  | 'INVALID_STATE'
  | 'CAPABILITY_UNSUPPORTED'
  | 'AGENT_ERROR'
  | 'MODEL_ERROR'
  | 'MODEL_OUTPUT_INVALID'
  | 'STRUCTURED_OUTPUT_INVALID'
  | 'TOOL_ERROR'
  | 'STORE_ERROR'
  | 'MCP_ERROR'
  | 'ACP_ERROR';

const MARKER = Symbol.for('troupe.error');

/** Options every Troupe error accepts. */
export interface TroupeErrorOptions {
  /** The underlying error, kept for debugging (`error.cause`). */
  cause?: unknown;
}

/**
 * Base class of every error Troupe throws.
 *
 * Use {@link TroupeError.isInstance} rather than `instanceof`: it checks a
 * `Symbol.for()` marker, so it still works when two copies of `@troupe/core`
 * are installed, or when ESM and CJS builds are mixed.
 *
 * @example
 * ```ts
 * try { await manager.sendAndReceive('coder', 'hi'); }
 * catch (error) {
 *   if (TroupeError.isInstance(error) && error.code === 'COMPLETION_TIMEOUT') retry();
 * }
 * ```
 */
export class TroupeError extends Error {
  private readonly [MARKER] = true;
  /** Machine-readable code; stable across versions. */
  readonly code: TroupeErrorCode;

  constructor(code: TroupeErrorCode, message: string, options: TroupeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TroupeError';
    this.code = code;
  }

  /** True for any Troupe error, from any copy of the package. */
  static isInstance(error: unknown): error is TroupeError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }

  /** True when `error` is a Troupe error with the given code. */
  static hasCode<C extends TroupeErrorCode>(error: unknown, code: C): error is TroupeError & { code: C } {
    return TroupeError.isInstance(error) && error.code === code;
  }
}
