/**
 * Settles with `work`, or rejects as soon as `signal` aborts, even when the
 * work ignores its signal: a stopped run must not wait for a planner, a judge
 * or a tool that never looks at it. The one abort race of the SDK.
 *
 * `work` is a promise, or a function that starts it (not called when the
 * signal has already aborted; a synchronous throw becomes the rejection).
 * The abort rejects with `toError(signal.reason)`: by default the reason
 * itself, so a caller sees the `TimeoutError` of `AbortSignal.timeout`; a
 * caller that owes its users a named error (`AbortError` with the reason as
 * `cause`) passes one. A late rejection of the abandoned work is observed, so
 * it cannot crash the process as an unhandled rejection.
 *
 * @example
 * ```ts
 * const plan = await raceAbort(() => planner.planBatch({ signal }), signal, (reason) => new AbortError('Planning was aborted', { cause: reason }));
 * ```
 */
export function raceAbort<T>(
  work: PromiseLike<T> | (() => T | PromiseLike<T>),
  signal: AbortSignal,
  toError: (reason: unknown) => unknown = (reason) => reason,
): Promise<T> {
  if (signal.aborted) {
    if (typeof work !== 'function') Promise.resolve(work).catch(() => {});
    return Promise.reject(toError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(toError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    let pending: PromiseLike<T>;
    try {
      pending = typeof work === 'function' ? Promise.resolve(work()) : work;
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
