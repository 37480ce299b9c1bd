// Abort helpers of the Looper's JUDGE step.

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. @internal */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** `timed out after N ms` for an `AbortSignal.timeout` rejection. @internal */
export function timeoutMessage(error: unknown, timeoutMs: number): string | undefined {
  return error instanceof DOMException && error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : undefined;
}
