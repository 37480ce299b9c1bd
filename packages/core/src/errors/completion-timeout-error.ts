import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/** The agent did not complete within its total timeout. */
export class CompletionTimeoutError extends TroupeError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  /** Which timer fired. */
  readonly kind: 'total';

  constructor(message: string, details: { timeoutMs: number } & TroupeErrorOptions) {
    super('COMPLETION_TIMEOUT', message, details);
    this.name = 'CompletionTimeoutError';
    this.timeoutMs = details.timeoutMs;
    this.kind = 'total';
  }
}
