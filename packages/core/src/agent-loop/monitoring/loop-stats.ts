import type { LoopPhase } from '../../loop/loop-stage';

/** Duration statistics of one phase (or of whole iterations). */
export interface DurationStats {
  /** How many runs were measured. */
  count: number;
  /** How many of them failed. */
  errors: number;
  /** Mean duration over every run, in ms. */
  meanMs: number;
  /** 95th percentile (nearest rank) over the last `statsWindow` runs, in ms. */
  p95Ms: number;
  /** Longest run, in ms. */
  maxMs: number;
  /** Last run, in ms. */
  lastMs: number;
}

/** Timing of one iteration. */
export interface IterationTiming {
  iterationId: string;
  outcome: 'completed' | 'idle' | 'failed' | 'aborted';
  failedPhase?: LoopPhase;
  durationMs: number;
  phaseDurations: Partial<Record<LoopPhase, number>>;
  perceptionCount: number;
  /** Ms since the epoch. */
  completedAt: number;
}

/** What `AgentLoop.stats()` returns. */
export interface LoopStats {
  loopId: string;
  state: string;
  /** Total iterations run (any outcome). */
  iterations: number;
  /** Iterations where every phase succeeded. */
  completed: number;
  /** Iterations that ran Sense and Plan but had nothing to act on. */
  idle: number;
  /** Iterations where a phase failed. */
  failed: number;
  /** Iterations cut short by an abort (`stop`/`pause` with an aborted signal). */
  aborted: number;
  /** `failed / iterations` (0 before the first iteration). */
  errorRate: number;
  /** Failed iterations in a row, right now. */
  consecutiveFailures: number;
  /** Per-phase durations and error counts. */
  phases: Record<LoopPhase, DurationStats>;
  /** Whole-iteration durations (`errors` = failed iterations). */
  iteration: DurationStats;
  /** The last iteration's timing. */
  lastIteration?: IterationTiming;
  /** `loop:stuck` reports so far. */
  stuckPhases: number;
  /** Background memory writes that failed. */
  memoryWriteErrors: number;
  /** Health alerts (`loop:health` with status `unhealthy`) so far. */
  healthAlerts: number;
}

/** Counts, sums and a bounded window of recent durations (grows lazily, so idle loops stay small). */
class DurationSeries {
  count = 0;
  errors = 0;
  sum = 0;
  max = 0;
  last = 0;
  private readonly window: number[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(durationMs: number, failed: boolean): void {
    this.count++;
    if (failed) this.errors++;
    this.sum += durationMs;
    if (durationMs > this.max) this.max = durationMs;
    this.last = durationMs;
    if (this.window.length < this.capacity) this.window.push(durationMs);
    else {
      this.window[this.next] = durationMs;
      this.next = (this.next + 1) % this.capacity;
    }
  }

  snapshot(): DurationStats {
    let p95 = 0;
    if (this.window.length > 0) {
      const sorted = [...this.window].sort((a, b) => a - b);
      p95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] as number;
    }
    return {
      count: this.count,
      errors: this.errors,
      meanMs: this.count === 0 ? 0 : this.sum / this.count,
      p95Ms: p95,
      maxMs: this.max,
      lastMs: this.last,
    };
  }
}

/** Counters persisted with the loop's state, so a restarted loop continues its numbering and totals. */
export interface LoopStatsTotals {
  iterations: number;
  completed: number;
  idle: number;
  failed: number;
  aborted: number;
}

/** Collects the numbers behind {@link LoopStats}. */
export class LoopStatsRecorder {
  readonly phases: Record<LoopPhase, DurationSeries>;
  readonly iteration: DurationSeries;
  totals: LoopStatsTotals = { iterations: 0, completed: 0, idle: 0, failed: 0, aborted: 0 };
  consecutiveFailures = 0;
  stuckPhases = 0;
  memoryWriteErrors = 0;
  healthAlerts = 0;
  lastIteration: IterationTiming | undefined;

  constructor(window: number) {
    this.phases = {
      sense: new DurationSeries(window),
      plan: new DurationSeries(window),
      act: new DurationSeries(window),
      reflect: new DurationSeries(window),
    };
    this.iteration = new DurationSeries(window);
  }

  /** Adds a phase's duration (a switch, not a keyed load by phase name: this runs four times per iteration). */
  addPhase(phase: LoopPhase, durationMs: number, failed: boolean): void {
    const phases = this.phases;
    switch (phase) {
      case 'sense':
        return phases.sense.add(durationMs, failed);
      case 'plan':
        return phases.plan.add(durationMs, failed);
      case 'act':
        return phases.act.add(durationMs, failed);
      case 'reflect':
        return phases.reflect.add(durationMs, failed);
    }
  }

  recordIteration(timing: IterationTiming): void {
    this.lastIteration = timing;
    this.totals.iterations++;
    this.totals[timing.outcome]++;
    if (timing.outcome === 'aborted') return;
    this.iteration.add(timing.durationMs, timing.outcome === 'failed');
    if (timing.outcome === 'failed') this.consecutiveFailures++;
    else this.consecutiveFailures = 0;
  }

  snapshot(loopId: string, state: string): LoopStats {
    const { iterations, completed, idle, failed, aborted } = this.totals;
    return {
      loopId,
      state,
      iterations,
      completed,
      idle,
      failed,
      aborted,
      errorRate: iterations === 0 ? 0 : failed / iterations,
      consecutiveFailures: this.consecutiveFailures,
      phases: {
        sense: this.phases.sense.snapshot(),
        plan: this.phases.plan.snapshot(),
        act: this.phases.act.snapshot(),
        reflect: this.phases.reflect.snapshot(),
      },
      iteration: this.iteration.snapshot(),
      ...(this.lastIteration ? { lastIteration: { ...this.lastIteration, phaseDurations: { ...this.lastIteration.phaseDurations } } } : {}),
      stuckPhases: this.stuckPhases,
      memoryWriteErrors: this.memoryWriteErrors,
      healthAlerts: this.healthAlerts,
    };
  }
}
