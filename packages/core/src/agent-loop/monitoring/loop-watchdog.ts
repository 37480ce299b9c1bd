import type { LoopPhase } from '../../loop/loop-stage';

/** Called when a phase has been running for at least the threshold. */
export type StuckPhaseListener = (phase: LoopPhase, iterationId: string, runningMs: number) => void;

/**
 * Stuck detection for one loop: reports a phase that runs past
 * `thresholdMs`, once per phase run. It keeps one unref'd timer per running
 * session and touches it only when the timer has fired (so a busy loop pays
 * nothing per phase): the timer re-arms for the remaining time while a phase
 * is young, and goes idle until the next phase starts otherwise.
 */
export class LoopWatchdog {
  private phase: LoopPhase | undefined;
  private iterationId = '';
  private startedAt = 0;
  private reported = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private idle = false;

  constructor(
    private readonly thresholdMs: number,
    private readonly now: () => number,
    private readonly onStuck: StuckPhaseListener,
  ) {}

  /** Starts watching (at `start()`/`resume()`). */
  arm(): void {
    this.disarm();
    this.idle = false;
    this.timer = setTimeout(this.check, this.thresholdMs);
    this.timer.unref();
  }

  /** Stops watching (at pause or stop). */
  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.phase = undefined;
  }

  /** A phase began at `startedAt` (on the loop's clock). */
  phaseStarted(phase: LoopPhase, iterationId: string, startedAt: number): void {
    this.phase = phase;
    if (iterationId !== this.iterationId) this.iterationId = iterationId; // the same for four phases: one write, not four
    this.startedAt = startedAt;
    this.reported = false;
    if (this.idle && this.timer !== undefined) {
      this.idle = false;
      this.timer.refresh();
    }
  }

  /** The phase ended. */
  phaseEnded(): void {
    this.phase = undefined;
  }

  private readonly check = (): void => {
    if (this.timer === undefined) return;
    const phase = this.phase;
    if (phase === undefined || this.reported) {
      this.idle = true; // re-armed when the next phase starts
      return;
    }
    const runningMs = this.now() - this.startedAt;
    if (runningMs < this.thresholdMs) {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.check, this.thresholdMs - runningMs);
      this.timer.unref();
      return;
    }
    this.reported = true;
    this.idle = true;
    this.onStuck(phase, this.iterationId, runningMs);
  };
}
