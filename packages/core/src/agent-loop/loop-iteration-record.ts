import type { LoopErrorHandling } from './monitoring/loop-reporter';
import type { LoopPhase } from '../loop/loop-stage';
import type { IterationTiming } from './monitoring/loop-stats';

/** The run session an iteration belongs to, as the runner sees it (see `RunSession`). */
export interface IterationSession {
  readonly signal: AbortSignal;
  /** True once the session was aborted. */
  readonly isAborted: boolean;
  /** The iteration in progress. */
  iteration: LoopIteration | undefined;
}

/** One iteration (or single step) in progress. */
export interface LoopIteration {
  readonly iterationId: string;
  readonly iteration: number;
  readonly step: boolean;
  readonly signal: AbortSignal;
  /** Single steps only: rejects when the step's signal aborts. */
  readonly abort: Promise<never> | undefined;
  readonly startedAt: number;
  /** Last reading of the loop's clock: a phase starts when the previous one ended. */
  clock: number;
  readonly durations: Partial<Record<LoopPhase, number>>;
  perceptionCount: number;
  /** Recorded (normally, or by `stop()`/`pause()` abandoning it). */
  finished: boolean;
  /** The run session of a loop iteration (undefined for single steps). */
  readonly session: IterationSession | undefined;
  outcome: IterationTiming['outcome'];
  /** The phase that failed, its error, what the loop did about it, and the stage that threw. */
  failedPhase: LoopPhase | undefined;
  error: unknown;
  handling: LoopErrorHandling;
  stage: string | undefined;
}

/** Sets a phase's duration with a constant key per phase (a keyed store by phase name is much slower). */
export function recordPhase(info: LoopIteration, phase: LoopPhase, durationMs: number): void {
  const durations = info.durations;
  switch (phase) {
    case 'sense':
      durations.sense = durationMs;
      break;
    case 'plan':
      durations.plan = durationMs;
      break;
    case 'act':
      durations.act = durationMs;
      break;
    case 'reflect':
      durations.reflect = durationMs;
      break;
  }
}

/** Creates the record of an iteration or step starting at `now`. */
export function newIteration(iterationId: string, iteration: number, session: IterationSession | undefined, signal: AbortSignal, abort: Promise<never> | undefined, now: number): LoopIteration {
  return {
    iterationId,
    iteration,
    step: session === undefined,
    signal,
    abort,
    startedAt: now,
    clock: now,
    durations: {},
    perceptionCount: 0,
    finished: false,
    session,
    outcome: 'completed',
    failedPhase: undefined,
    error: undefined,
    handling: 'skip-iteration',
    stage: undefined,
  };
}
