import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { EventBus } from '../events/event-bus';
import type { AnyTroupeEvent, SerializedError, TroupeEventPayloads } from '../events/event-map';
import { eventScopesEnabled, withEventScope } from '../events/event-scope';
import { serializeError } from '../util/serialize-error';
import type { Action, ActResult } from '../loop/loop-action';
import type { ToolCapabilityTracker } from './loop-capabilities';
import type { LoopMemoryReader } from '../loop/loop-experience';
import type { LoopHealthMonitor } from './monitoring/loop-health-monitor';
import type { LoopLogger } from '../loop/loop-logger';
import type { Perception, PerceptionInput } from '../loop/loop-perception';
import { planPhase, reflectPhase, sensePhase, type ReflectDependencies } from './loop-phases';
import type { LoopReporter } from './monitoring/loop-reporter';
import type { LoopContext, LoopPhase, ToolCapability } from '../loop/loop-stage';
import type { LoopStageLifecycle } from './loop-stage-lifecycle';
import type { LoopStageSet } from './loop-stage-set';
import type { IterationTiming, LoopStatsRecorder } from './monitoring/loop-stats';
import type { LoopWatchdog } from './monitoring/loop-watchdog';
import { executeLoopAction } from './run-loop-action';
import { newIteration, recordPhase, type IterationSession, type LoopIteration } from './loop-iteration-record';
import { copyFields, hasTwoKeys } from '../util/copy-fields';

/** What {@link LoopIterationRunner} needs from its loop. */
export interface LoopIterationDependencies {
  loopId: string;
  stages: LoopStageSet;
  lifecycle: LoopStageLifecycle;
  reporter: LoopReporter;
  watchdog: LoopWatchdog;
  recorder: LoopStatsRecorder;
  health: LoopHealthMonitor;
  capabilities: ToolCapabilityTracker;
  logger: LoopLogger;
  bus: EventBus;
  memory: LoopMemoryReader;
  secrets: readonly string[];
  now: () => number;
  /** Reflect dependencies of loop iterations (experiences stored in the background) and of single steps (awaited). */
  reflectInLoop: ReflectDependencies;
  reflectInStep: ReflectDependencies;
}

/**
 * Runs iterations of the Sense-Plan-Act-Reflect loop and single phases:
 * events, timing, stuck tracking, statistics, error policy, health checks.
 *
 * The phases run as a chain of continuations that stays synchronous while
 * the stages answer synchronously and switches to promises at the first
 * stage that returns one, so a loop of quick stages pays for no microtask
 * per phase. Five clock readings time an iteration: its start and the end of
 * each phase.
 */
export class LoopIterationRunner {
  /** Iterations started so far (restored from saved state). */
  iterationCount = 0;
  /** Perceptions of the last iteration (0 when its Sense failed), for the adaptive interval. */
  lastPerceptionCount = 0;
  /** The error of the last failed iteration. */
  lastError: SerializedError | undefined;
  private perceptionSeq = 0;
  /** Wall-clock time given to perceptions without a timestamp (the Sense phase's start). */
  private perceptionTime = 0;
  private readonly listCapabilities: () => ToolCapability[];
  // The dependencies the hot path reads, as own fields (one load instead of two).
  private readonly loopId: string;
  private readonly reporter: LoopReporter;
  private readonly recorder: LoopStatsRecorder;
  private readonly watchdog: LoopWatchdog;
  private readonly now: () => number;
  /** `<loopId>#` and `<loopId>:p`, made once: ids are these plus a number. */
  private readonly iterationIdPrefix: string;
  private readonly perceptionIdPrefix: string;

  constructor(private readonly deps: LoopIterationDependencies) {
    this.iterationIdPrefix = `${deps.loopId}#`;
    this.perceptionIdPrefix = `${deps.loopId}:p`;
    this.listCapabilities = () => deps.capabilities.list();
    this.loopId = deps.loopId;
    this.reporter = deps.reporter;
    this.recorder = deps.recorder;
    this.watchdog = deps.watchdog;
    this.now = deps.now;
  }

  /** Runs one loop iteration: `undefined` when it ended synchronously, else a promise of its end (never rejects for a phase error). */
  runIteration(session: IterationSession): Promise<void> | undefined {
    const iteration = ++this.iterationCount;
    const { reporter, loopId } = this;
    const now = this.now();
    const info = newIteration(this.iterationIdPrefix + iteration, iteration, session, session.signal, undefined, now);
    session.iteration = info;
    reporter.anchorWallClock(now);
    if (reporter.refreshListening().started) {
      const timestamp = reporter.wallClock(now);
      reporter.emitAt('loop:started', { loopId, iterationId: info.iterationId, iteration, timestamp }, timestamp);
    }
    if (this.deps.lifecycle.hasPending) return this.setupThenSense(info);
    return this.sense(info);
  }

  // The phases' asynchronous continuations live in methods of their own: a closure in a phase method would
  // make every call of it allocate a context, even when the stages answer synchronously.

  private setupThenSense(info: LoopIteration): Promise<void> {
    return this.deps.lifecycle.setup(false).then(() => {
      info.clock = this.now();
      return this.sense(info);
    });
  }

  /**
   * Runs one phase with its events, timing and stuck tracking. Returns the
   * output directly when the phase's stages all answered synchronously, a
   * promise otherwise (so quick stages cost no extra microtask).
   */
  runPhase(phase: LoopPhase, input: unknown, info: LoopIteration): unknown {
    // Kept small, with the rarer work (events, event scopes) in methods of its own: V8 then inlines more of
    // the iteration into one optimized function, and no closure makes this frame allocate a context.
    const context = this.phaseContext(phase, info);
    const startedAt = info.clock;
    const phaseEvent = this.reporter.listening.phaseStarted ? this.emitPhaseStarted(phase, input, info, startedAt) : undefined;
    if (!info.step) this.watchdog.phaseStarted(phase, info.iterationId, startedAt);
    let pending: unknown;
    try {
      pending = eventScopesEnabled() ? this.invokeInScope(phaseEvent, phase, input, context, info, startedAt) : this.invoke(phase, input, context, info, startedAt);
    } catch (error) {
      this.phaseFailed(phase, info, startedAt);
      throw error;
    }
    // Phase bodies return native promises (never other thenables): `instanceof` spares a megamorphic `then` lookup.
    if (pending instanceof Promise) return this.settlePhase(phase, pending, info, startedAt);
    return this.phaseDone(phase, pending, info, startedAt);
  }

  /** The context the stages of one phase get. */
  private phaseContext(phase: LoopPhase, info: LoopIteration): LoopContext {
    const deps = this.deps;
    return {
      loopId: this.loopId,
      iterationId: info.iterationId,
      iteration: info.iteration,
      phase,
      signal: info.signal,
      logger: deps.logger,
      bus: deps.bus,
      memory: deps.memory,
      tools: deps.stages.toolList(),
      capabilities: this.listCapabilities,
    };
  }

  private emitPhaseStarted(phase: LoopPhase, input: unknown, info: LoopIteration, startedAt: number): AnyTroupeEvent {
    const reporter = this.reporter;
    const timestamp = reporter.wallClock(startedAt);
    return reporter.emitAt('loop:phase-started', reporter.phasePayloads.started(this.loopId, info.iterationId, phase, input, info.step, timestamp), timestamp);
  }

  private emitPhaseCompleted(phase: LoopPhase, output: unknown, info: LoopIteration, endedAt: number, durationMs: number): void {
    const reporter = this.reporter;
    const timestamp = reporter.wallClock(endedAt);
    reporter.emitAt('loop:phase-completed', reporter.phasePayloads.completed(this.loopId, info.iterationId, phase, output, durationMs, info.step, timestamp), timestamp);
  }

  /** With event scopes on (a usage ledger, tracing), the phase's model and tool calls are charged and linked to it. */
  private invokeInScope(phaseEvent: AnyTroupeEvent | undefined, phase: LoopPhase, input: unknown, context: LoopContext, info: LoopIteration, startedAt: number): unknown {
    const loopId = this.loopId;
    return withEventScope({ event: phaseEvent, bus: this.deps.bus, agentId: loopId, run: { kind: 'loop', id: loopId } }, () =>
      this.invoke(phase, input, context, info, startedAt),
    );
  }

  /** Records an iteration's timing and publishes `loop:completed`. */
  finishIteration(info: LoopIteration, outcome: IterationTiming['outcome'], failedPhase: LoopPhase | undefined, endedAt = info.clock): void {
    info.finished = true;
    const { reporter, recorder, loopId } = this;
    this.watchdog.phaseEnded();
    this.lastPerceptionCount = failedPhase === 'sense' ? 0 : info.perceptionCount;
    const durationMs = endedAt - info.startedAt;
    const timing: IterationTiming = {
      iterationId: info.iterationId,
      outcome,
      durationMs,
      phaseDurations: info.durations,
      perceptionCount: info.perceptionCount,
      completedAt: reporter.wallClock(endedAt),
    };
    if (failedPhase !== undefined) timing.failedPhase = failedPhase;
    recorder.recordIteration(timing);
    if (reporter.listening.completed) {
      const payload: TroupeEventPayloads['loop:completed'] = {
        loopId,
        iterationId: info.iterationId,
        iteration: info.iteration,
        timestamp: timing.completedAt,
        durationMs,
        outcome,
        perceptionCount: info.perceptionCount,
        phaseDurations: info.durations,
      };
      if (failedPhase !== undefined) payload.failedPhase = failedPhase;
      reporter.emitAt('loop:completed', payload, timing.completedAt);
    }
  }

  /** Gives perceptions without `id`/`timestamp` their own (the timestamp: now, outside an iteration). */
  normalizeStepPerceptions(inputs: readonly (Perception | PerceptionInput)[], from: string): Perception[] {
    this.perceptionTime = Date.now();
    return this.normalizePerceptions(inputs, from, false);
  }

  // ---------------------------------------------------------------- the phases of an iteration

  private sense(info: LoopIteration): Promise<void> | undefined {
    let sensed: unknown;
    try {
      sensed = this.runPhase('sense', null, info);
    } catch (error) {
      return this.skip(info, 'sense', error);
    }
    if (sensed instanceof Promise) return this.planLater(info, sensed);
    return this.plan(info, sensed as Perception[]);
  }

  private planLater(info: LoopIteration, sensed: Promise<unknown>): Promise<void | undefined> {
    return sensed.then(
      (perceptions) => this.plan(info, perceptions as Perception[]),
      (error: unknown) => this.skip(info, 'sense', error),
    );
  }

  private plan(info: LoopIteration, perceptions: Perception[]): Promise<void> | undefined {
    info.perceptionCount = perceptions.length;
    let planned: unknown;
    try {
      planned = this.runPhase('plan', perceptions, info);
    } catch (error) {
      return this.skip(info, 'plan', error);
    }
    if (planned instanceof Promise) return this.actLater(info, planned);
    return this.act(info, planned as Action | null);
  }

  private actLater(info: LoopIteration, planned: Promise<unknown>): Promise<void | undefined> {
    return planned.then(
      (action) => this.act(info, action as Action | null),
      (error: unknown) => this.skip(info, 'plan', error),
    );
  }

  private act(info: LoopIteration, action: Action | null): Promise<void> | undefined {
    if (action === null) {
      info.outcome = 'idle';
      return this.end(info);
    }
    let acted: unknown;
    try {
      acted = this.runPhase('act', action, info);
    } catch (error) {
      return this.reflect(info, this.actFailure(action, error, info));
    }
    if (acted instanceof Promise) return this.reflectLater(info, action, acted);
    return this.reflect(info, acted as ActResult);
  }

  private reflectLater(info: LoopIteration, action: Action, acted: Promise<unknown>): Promise<void | undefined> {
    return acted.then(
      (result) => this.reflect(info, result as ActResult),
      (error: unknown) => this.reflect(info, this.actFailure(action, error, info)),
    );
  }

  private reflect(info: LoopIteration, result: ActResult): Promise<void> | undefined {
    if (!result.ok && this.actFailed(info, result)) return this.end(info);
    let reflected: unknown;
    try {
      reflected = this.runPhase('reflect', result, info);
    } catch (error) {
      return this.reflectFailed(info, error);
    }
    if (reflected instanceof Promise) return this.endLater(info, reflected);
    return this.end(info);
  }

  /** Act error: logged and published now, then Reflect analyses the failure. True when the iteration was aborted instead. */
  private actFailed(info: LoopIteration, result: ActResult): boolean {
    info.failedPhase = 'act';
    info.error = result.error;
    info.handling = 'reflect-failure';
    info.stage = result.results.find((call) => call.status === 'failed')?.tool;
    if (info.signal.aborted) return true;
    const stage = info.stage;
    this.lastError = this.reporter.reportError('act', info.error, { iterationId: info.iterationId, handling: 'reflect-failure', ...(stage === undefined ? {} : { stage }) });
    info.clock = this.now();
    return false;
  }

  private endLater(info: LoopIteration, reflected: Promise<unknown>): Promise<void | undefined> {
    return reflected.then(
      () => this.end(info),
      (error: unknown) => this.reflectFailed(info, error),
    );
  }

  private actFailure(action: Action, error: unknown, info: LoopIteration): ActResult {
    return { action, ok: false, results: [], error: serializeError(error, this.deps.secrets), durationMs: info.durations.act ?? 0 };
  }

  private reflectFailed(info: LoopIteration, error: unknown): Promise<void> | undefined {
    if (info.failedPhase === undefined) {
      info.failedPhase = 'reflect';
      info.error = error;
      info.handling = 'continue';
      info.stage = undefined;
    } else if (!info.signal.aborted) {
      this.reporter.reportError('reflect', error, { iterationId: info.iterationId, handling: 'continue' });
    }
    return this.end(info);
  }

  /** Sense or Plan failed: the rest of the iteration is skipped. */
  private skip(info: LoopIteration, phase: LoopPhase, error: unknown): Promise<void> | undefined {
    info.failedPhase = phase;
    info.error = error;
    return this.end(info);
  }

  private end(info: LoopIteration): Promise<void> | undefined {
    if (info.finished) return undefined; // abandoned by stop()/pause() with an aborted signal, and already recorded
    const failedPhase = info.failedPhase === undefined ? undefined : this.settleFailure(info, info.failedPhase);
    this.finishIteration(info, info.outcome, failedPhase);
    if (info.outcome === 'failed') return this.deps.health.afterFailure();
    if (info.outcome !== 'aborted') this.deps.health.afterSuccess();
    return undefined;
  }

  /** A phase failed: the outcome is `aborted` (returns undefined) or `failed`, its error reported unless Act's was already. */
  private settleFailure(info: LoopIteration, failedPhase: LoopPhase): LoopPhase | undefined {
    if (info.signal.aborted) {
      info.outcome = 'aborted';
      return undefined;
    }
    info.outcome = 'failed';
    if (!(failedPhase === 'act' && info.handling === 'reflect-failure')) {
      const stage = info.stage;
      this.lastError = this.reporter.reportError(failedPhase, info.error, {
        iterationId: info.iterationId,
        handling: info.handling,
        ...(stage === undefined ? {} : { stage }),
      });
    }
    return failedPhase;
  }

  // ---------------------------------------------------------------- one phase

  /** Runs one phase's body on its input (sync stages stay sync). */
  private invoke(phase: LoopPhase, input: unknown, context: LoopContext, info: LoopIteration, startedAt: number): unknown {
    switch (phase) {
      case 'sense':
        this.perceptionTime = this.reporter.wallClock(startedAt);
        return sensePhase(this.deps.stages, context, this.normalizePerceptions);
      case 'plan':
        return planPhase(this.deps.stages, input as Perception[], context);
      case 'act':
        return executeLoopAction(input as Action, {
          loopId: this.loopId,
          iterationId: context.iterationId,
          tools: this.deps.stages.tools,
          signal: context.signal,
          session: info.session,
          logger: this.deps.logger,
          secrets: this.deps.secrets,
          now: this.now,
          startedAt,
        });
      case 'reflect':
        return reflectPhase(input as ActResult, context, info.step ? this.deps.reflectInStep : this.deps.reflectInLoop);
    }
  }

  private async settlePhase(phase: LoopPhase, pending: PromiseLike<unknown>, info: LoopIteration, startedAt: number): Promise<unknown> {
    let output: unknown;
    try {
      output = await (info.abort ? Promise.race([pending, info.abort]) : pending);
    } catch (error) {
      this.phaseFailed(phase, info, startedAt);
      throw error;
    }
    return this.phaseDone(phase, output, info, startedAt);
  }

  private phaseDone(phase: LoopPhase, output: unknown, info: LoopIteration, startedAt: number): unknown {
    if (info.session !== undefined && info.session.isAborted) this.abortedInPhase(phase, info, startedAt);
    // The Act result was timed from `startedAt` to its last reading: that reading ends the phase (one clock read fewer).
    const endedAt = phase === 'act' ? startedAt + (output as ActResult).durationMs : this.now();
    info.clock = endedAt;
    const durationMs = endedAt - startedAt;
    recordPhase(info, phase, durationMs);
    if (!info.step) {
      this.watchdog.phaseEnded();
      this.recorder.addPhase(phase, durationMs, phase === 'act' && !(output as ActResult).ok);
    }
    if (this.reporter.listening.phaseCompleted) this.emitPhaseCompleted(phase, output, info, endedAt, durationMs);
    return output;
  }

  /** The session was aborted while the phase ran: the phase ends failed, with an `AbortError`. */
  private abortedInPhase(phase: LoopPhase, info: LoopIteration, startedAt: number): never {
    this.phaseFailed(phase, info, startedAt);
    throw new AbortError(`Loop "${this.loopId}" iteration was aborted`, { cause: info.signal.reason });
  }

  private phaseFailed(phase: LoopPhase, info: LoopIteration, startedAt: number): void {
    info.clock = this.now();
    const durationMs = info.clock - startedAt;
    recordPhase(info, phase, durationMs);
    if (!info.step) {
      this.watchdog.phaseEnded();
      this.recorder.addPhase(phase, durationMs, true);
    }
  }

  private readonly normalizePerceptions = (inputs: readonly (Perception | PerceptionInput)[], from: string, sensor: boolean): Perception[] => {
    const out: Perception[] = new Array(inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i] as PerceptionInput;
      if (typeof input !== 'object' || input === null || typeof input.source !== 'string' || typeof input.content !== 'string') {
        throw new InvalidArgumentError(`${sensor ? `sensor "${from}"` : from} perception [${i}]`, 'expected { source: string, content: string, … }');
      }
      if (input.id !== undefined && input.timestamp !== undefined) {
        out[i] = input as Perception;
        continue;
      }
      if (hasTwoKeys(input, 'source', 'content')) {
        // The usual perception: a literal is the cheapest copy (V8 is slowest at `{ ...input, id }`).
        out[i] = { source: input.source, content: input.content, id: this.perceptionIdPrefix + ++this.perceptionSeq, timestamp: this.perceptionTime };
        continue;
      }
      const perception = copyFields(input) as Perception;
      perception.id = input.id ?? this.perceptionIdPrefix + ++this.perceptionSeq;
      perception.timestamp = input.timestamp ?? this.perceptionTime;
      out[i] = perception;
    }
    return out;
  };
}
