import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/** An operation was canceled through its `AbortSignal`. `cause` holds the signal's reason. */
export class AbortError extends TroupeError {
  constructor(message = 'The operation was aborted', options: TroupeErrorOptions = {}) {
    super('ABORTED', message, options);
    this.name = 'AbortError';
  }

  /** Throws an {@link AbortError} when `signal` is already aborted. */
  static throwIfAborted(signal: AbortSignal | undefined, what = 'The operation'): void {
    if (signal?.aborted) throw new AbortError(`${what} was aborted`, { cause: signal.reason });
  }
}
