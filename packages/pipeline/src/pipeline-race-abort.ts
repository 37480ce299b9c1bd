import { AbortError } from '@troupe/core';

/**
 * Settles with `work`, or rejects with `AbortError` as soon as `signal`
 * aborts, even when the work ignores its signal (a stopped run must not
 * wait for a planner or task that never looks at it). A late rejection of
 * the abandoned work is observed, so it cannot crash the process.
 *
 * @internal
 */
export function raceAbort<T>(work: () => T | PromiseLike<T>, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortError(`${what} was aborted`, { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError(`${what} was aborted`, { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(work());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
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
