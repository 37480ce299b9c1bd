/**
 * The wait between iterations: a timer, or just a turn of the event loop
 * (`setImmediate`) for a zero interval, so other loops and I/O run either way.
 * `wake()` cuts a wait short (pause, stop).
 */
export class LoopSleeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;
  private callback: (() => void) | undefined;

  /** Calls `callback` after `ms` (next turn of the event loop for 0), or soon after `wake()`. One wait at a time. */
  schedule(ms: number, callback: () => void): void {
    this.callback = callback;
    if (ms <= 0) this.immediate = setImmediate(this.done);
    else this.timer = setTimeout(this.done, ms);
  }

  /** Ends the current wait now, if there is one (its callback runs in a microtask, not inside the caller). */
  wake(): void {
    if (this.callback === undefined) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    queueMicrotask(this.done);
  }

  private readonly done = (): void => {
    const callback = this.callback;
    this.callback = undefined;
    this.timer = undefined;
    this.immediate = undefined;
    callback?.();
  };
}
