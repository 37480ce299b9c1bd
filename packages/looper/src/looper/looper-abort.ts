// Abort helpers of the Looper's JUDGE step.

// The abort race is core's (it rejects with the signal's reason, as JUDGE's fallback expects).
export { raceAbort } from '@troupe/core/util';

/** `timed out after N ms` for an `AbortSignal.timeout` rejection. @internal */
export function timeoutMessage(error: unknown, timeoutMs: number): string | undefined {
  return error instanceof DOMException && error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : undefined;
}
