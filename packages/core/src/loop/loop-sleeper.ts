/**
 * The wait between iterations: a timer, or just a turn of the event loop
 * (`setImmediate`) for a zero interval, so other loops and I/O run either way.
 * `wake()` cuts a wait short (pause, stop).
 */
export class LoopSleeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;
  private resolve: (() => void) | undefined;

  /** Resolves after `ms` (next turn of the event loop for 0), or at `wake()`. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      if (ms <= 0) this.immediate = setImmediate(this.done);
      else this.timer = setTimeout(this.done, ms);
    });
  }

  /** Ends the current wait now, if there is one. */
  wake(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.done();
  }

  private readonly done = (): void => {
    const resolve = this.resolve;
    this.resolve = undefined;
    this.timer = undefined;
    this.immediate = undefined;
    resolve?.();
  };
}
