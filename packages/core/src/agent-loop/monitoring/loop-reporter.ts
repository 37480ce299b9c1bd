import type { EventBus } from '../../events/event-bus';
import type { AnyTroupeEvent, SerializedError, TroupeEvent, TroupeEventPayloads, TroupeEventType } from '../../events/event-map';
import { eventVersion } from '../../events/event-versions';
import { serializeError } from '../../util/serialize-error';
import type { LoopLogger } from '../../loop/loop-logger';
import { PhasePayloads } from '../loop-phase-payload';
import { stageOfError } from '../loop-phases';
import { summarizeReusing, type KnownShape, type LoopJsonValue, type ReusableSummary, type SummarizeOptions } from '../summarize-for-event';

/** The events of every iteration (and single step), published with {@link LoopReporter.emitAt}. */
export type IterationEventType = 'loop:started' | 'loop:phase-started' | 'loop:phase-completed' | 'loop:completed';

/** How long a wall-clock anchor is used before `Date.now()` is read again. */
const WALL_CLOCK_ANCHOR_MS = 1_000;

/** Phase of a `loop:error` event. */
export type LoopErrorPhase = TroupeEventPayloads['loop:error']['phase'];
/** What the loop did about an error. */
export type LoopErrorHandling = TroupeEventPayloads['loop:error']['handling'];

/** What {@link LoopReporter} needs. */
export interface LoopReporterOptions {
  loopId: string;
  bus: EventBus;
  logger: LoopLogger;
  secrets: readonly string[];
  summary: SummarizeOptions;
  now: () => number;
  /** True when `now` is the default monotonic clock, so wall-clock times can be derived from its readings. */
  derivedWallClock: boolean;
}

function isSerializedError(error: unknown): error is SerializedError {
  return (
    typeof error === 'object' &&
    error !== null &&
    !(error instanceof Error) &&
    typeof (error as SerializedError).name === 'string' &&
    typeof (error as SerializedError).message === 'string'
  );
}

/**
 * How a loop talks to the outside: `loop:*` events on the bus (built only
 * when someone listens), JSON summaries of phase inputs and outputs, error
 * logging, and event timestamps.
 */
export class LoopReporter {
  private payloads: PhasePayloads | undefined;
  /** Which iteration events have listeners (see {@link refreshListening}). */
  readonly listening = { started: false, phaseStarted: false, phaseCompleted: false, completed: false };
  private readonly emitOptions: { source: string };
  private lastSummary: ReusableSummary | undefined;
  /** Versions of the iteration events, looked up once (a registry lookup per event adds up). */
  private readonly startedVersion: number;
  private readonly phaseStartedVersion: number;
  private readonly phaseCompletedVersion: number;
  private readonly completedVersion: number;
  private wallOffset = 0;
  /** Loop-clock reading of the last wall-clock anchor. */
  private anchoredAt = Number.NEGATIVE_INFINITY;

  /** The bus's listener generation when {@link listening} was last computed. */
  private listenerGeneration = -1;

  /** `options.derivedWallClock`, as an own field (read on every event). */
  private readonly derived: boolean;
  /** `options.bus` and the events' source, as own fields (read on every event). */
  private readonly bus: EventBus;
  private readonly source: string;

  constructor(private readonly options: LoopReporterOptions) {
    this.derived = options.derivedWallClock;
    this.emitOptions = { source: `loop:${options.loopId}` };
    this.source = this.emitOptions.source;
    this.bus = options.bus;
    this.startedVersion = eventVersion('loop:started');
    this.phaseStartedVersion = eventVersion('loop:phase-started');
    this.phaseCompletedVersion = eventVersion('loop:phase-completed');
    this.completedVersion = eventVersion('loop:completed');
  }

  /** Phase event payloads whose summaries are built on first read (made on first use: an idle loop never needs them). */
  get phasePayloads(): PhasePayloads {
    this.payloads ??= new PhasePayloads((value, shape) => this.summarize(value, shape));
    return this.payloads;
  }

  /**
   * Checks which iteration events have listeners; called once per iteration
   * (and per step) so events nobody listens to are not even built.
   */
  refreshListening(): LoopReporter['listening'] {
    const listening = this.listening;
    const bus = this.options.bus;
    const generation = bus.listenerGeneration;
    if (generation === this.listenerGeneration && generation !== undefined) return listening; // no listener came or went since the last check
    this.listenerGeneration = generation;
    const all = bus.listenerCount('*') > 0;
    listening.started = all || bus.listenerCount('loop:started') > 0;
    listening.phaseStarted = all || bus.listenerCount('loop:phase-started') > 0;
    listening.phaseCompleted = all || bus.listenerCount('loop:phase-completed') > 0;
    listening.completed = all || bus.listenerCount('loop:completed') > 0;
    return listening;
  }

  /**
   * Re-anchors wall-clock times on a reading of the loop's clock. Called on
   * every iteration, it reads `Date.now()` only when `force` is set (a run
   * starts, a single step) or the anchor is {@link WALL_CLOCK_ANCHOR_MS}
   * old: a clock read costs as much as a quick phase, and the derived times
   * drift by far less than a millisecond in between.
   */
  anchorWallClock(at: number, force = false): void {
    if (!this.derived || (!force && at - this.anchoredAt < WALL_CLOCK_ANCHOR_MS)) return;
    this.anchoredAt = at;
    this.wallOffset = Date.now() - at;
  }

  /**
   * Wall-clock time (ms since the epoch) of a reading of the loop's clock:
   * derived from the monotonic clock by default, `Date.now()` with an injected clock.
   */
  wallClock(at: number): number {
    return this.derived ? Math.round(this.wallOffset + at) : Date.now();
  }

  /**
   * JSON summary for an event. A phase's output is the next phase's input,
   * and the Act result holds the action, so the last summary is reused.
   * `shape` names an object the loop built itself (see {@link KnownShape}).
   */
  summarize(value: unknown, shape?: KnownShape): LoopJsonValue {
    const last = this.lastSummary;
    if (value !== null && last !== undefined && value === last.value) return last.summary;
    const summarized = summarizeReusing(value, this.options.summary, last, shape);
    this.lastSummary = summarized;
    return summarized.summary;
  }

  /** Publishes a `loop:*` event with the loop as its source. */
  emit<T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T]): void {
    this.options.bus.emit(type, payload, this.emitOptions);
  }

  /**
   * Like {@link emit}, stamping the envelope with `timestamp` (a
   * {@link wallClock} reading the loop already made for the payload) instead
   * of reading the clock again: iteration events are many, and a clock read
   * costs as much as the rest of the envelope.
   */
  emitAt<T extends IterationEventType>(type: T, payload: TroupeEventPayloads[T], timestamp: number): AnyTroupeEvent {
    const event = { type, version: this.versionOf(type), timestamp, source: this.source, payload } as TroupeEvent<T> as AnyTroupeEvent;
    this.bus.publish(event);
    return event;
  }

  /** The version of an iteration event: a switch over constant fields (a keyed load by type name goes megamorphic on this path). */
  private versionOf(type: IterationEventType): number {
    switch (type) {
      case 'loop:phase-started':
        return this.phaseStartedVersion;
      case 'loop:phase-completed':
        return this.phaseCompletedVersion;
      case 'loop:started':
        return this.startedVersion;
      case 'loop:completed':
        return this.completedVersion;
    }
  }

  /** Logs an error and publishes `loop:error`; returns it as plain data (secrets redacted). */
  reportError(phase: LoopErrorPhase, error: unknown, details: { iterationId?: string; handling: LoopErrorHandling; stage?: string }): SerializedError {
    const { loopId, logger, secrets } = this.options;
    const serialized = isSerializedError(error) ? error : serializeError(error, secrets);
    const stage = details.stage ?? stageOfError(error);
    const payload: TroupeEventPayloads['loop:error'] = { loopId, phase, error: serialized, handling: details.handling, timestamp: Date.now() };
    if (details.iterationId !== undefined) payload.iterationId = details.iterationId;
    if (stage !== undefined) payload.stage = stage;
    logger.error(`Loop "${loopId}" ${phase} failed${stage ? ` in stage "${stage}"` : ''}: ${serialized.name}: ${serialized.message}`, {
      loopId,
      ...(details.iterationId === undefined ? {} : { iterationId: details.iterationId }),
      phase,
      handling: details.handling,
      error: serialized,
    });
    this.emit('loop:error', payload);
    return serialized;
  }
}
