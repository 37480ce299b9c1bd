import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { EventBus } from '../events/event-bus';
import type { AnyTroupeEvent, SerializedError, TroupeEventPayloads } from '../events/event-map';
import { eventScopesEnabled, withEventScope } from '../events/event-scope';
import { MemoryStore } from '../store/memory-store';
import type { Store } from '../store/store';
import { serializeError } from '../util/serialize-error';
import { resolveAgentLoopSettings, type AgentLoopOptions, type LoopControlOptions, type LoopState, type LoopStepOptions } from './agent-loop-options';
import type { Action, ActResult } from './loop-action';
import { ToolCapabilityTracker } from './loop-capabilities';
import type { Experience, LoopMemory, LoopMemoryReader } from './loop-experience';
import { LoopHealthMonitor } from './loop-health-monitor';
import type { LoopIntervalPolicy } from './loop-interval';
import { silentLoopLogger, type LoopLogger } from './loop-logger';
import { StoreLoopMemory } from './loop-memory';
import type { Perception, PerceptionInput } from './loop-perception';
import { planPhase, reflectPhase, sensePhase, type ReflectDependencies } from './loop-phases';
import { LoopReporter, type LoopErrorHandling } from './loop-reporter';
import { LoopSleeper } from './loop-sleeper';
import type { LoopContext, LoopPhase, LoopStage, ToolCapability } from './loop-stage';
import { LoopStageLifecycle } from './loop-stage-lifecycle';
import { LoopStageRegistry } from './loop-stage-registry';
import { loadLoopStateSnapshot, saveLoopStateSnapshot } from './loop-state-snapshot';
import { LoopStatsRecorder, type IterationTiming, type LoopStats } from './loop-stats';
import { LoopWatchdog } from './loop-watchdog';
import type { ReflectResult } from './reflect-loop-result';
import { executeLoopAction, normalizeAction } from './run-loop-action';

export type { AgentLoopOptions, LoopControlOptions, LoopState, LoopStepOptions } from './agent-loop-options';

interface IterationInfo {
  iterationId: string;
  iteration: number;
  step: boolean;
  signal: AbortSignal;
  /** Single steps only: rejects when the step's signal aborts. */
  abort: Promise<never> | undefined;
  startedAt: number;
  /** Last reading of the loop's clock: a phase starts when the previous one ended. */
  clock: number;
  durations: Partial<Record<LoopPhase, number>>;
  perceptionCount: number;
  /** Recorded (normally, or by `stop()`/`pause()` abandoning it). */
  finished: boolean;
  /** The run session of a loop iteration (undefined for single steps). */
  session: RunSession | undefined;
}

/** One stretch of running, from `start()`/`resume()` to the pause or stop. */
interface RunSession {
  controller: AbortController;
  signal: AbortSignal;
  /** `signal.aborted`, kept by an abort listener (cheaper to read than the signal's getter). */
  isAborted: boolean;
  /** Resolves (never rejects) when the session is aborted. */
  aborted: Promise<void>;
  driver: Promise<void> | undefined;
  /** The iteration in progress, if any. */
  iteration: IterationInfo | undefined;
}

const NEVER_ABORTED = new AbortController().signal;

function abortPromise(signal: AbortSignal, what: string): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    const fail = () => reject(new AbortError(`${what} was aborted`, { cause: signal.reason }));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  promise.catch(() => {});
  return promise;
}

/**
 * The Sense-Plan-Act-Reflect agent loop (seed 002). Each iteration runs the
 * four phases in order:
 *
 * 1. **Sense**: every sensor runs (concurrently); the perceptions then pass
 *    through the perception processors (dedupe, classify, intent, priority,
 *    fusion — see `@troupe/looper`).
 * 2. **Plan**: the planner turns them into an {@link Action} (task, tool
 *    choice, parameters, execution plan), with a memory query handle in its
 *    context; `null` means nothing to do.
 * 3. **Act**: the action's tool calls run (concurrently when there are
 *    several); an {@link ActResult} comes back.
 * 4. **Reflect**: reflectors turn the result into experiences (successes and
 *    failure analyses), tool capabilities are updated, and the experiences
 *    are stored in memory in the background.
 *
 * Errors never end the loop: a failed Sense or Plan skips the rest of the
 * iteration, a failed Act goes on to Reflect with the failure, a failed
 * Reflect leaves the next iteration unaffected. Each is logged and published
 * as `loop:error`. Everything is asynchronous: many loops run side by side
 * and a slow phase only delays its own loop.
 *
 * @example
 * ```ts
 * const loop = new AgentLoop({ id: 'monitor', interval: 'adaptive' });
 * loop.use(
 *   { kind: 'sensor', name: 'inbox', sense: async () => inbox.drain().map((text) => ({ source: 'inbox', content: text })) },
 *   {
 *     kind: 'planner',
 *     name: 'triage',
 *     plan: async (perceptions, { memory }) => {
 *       if (perceptions.length === 0) return null;
 *       const past = await memory.query({ task: 'reply', outcome: 'failure', limit: 3 });
 *       return { task: 'reply', toolCalls: perceptions.map((p) => ({ tool: 'reply', input: { text: p.content, past: past.length } })) };
 *     },
 *   },
 *   { kind: 'tool', name: 'reply', execute: async (input) => send(input) },
 * );
 * loop.bus.on('loop:phase-completed', (event) => console.log(event.payload.phase, event.payload.durationMs));
 * await loop.start();
 * // …later
 * await loop.stop(); // finishes the current iteration, tears stages down, saves state
 * ```
 */
export class AgentLoop {
  /** The loop's id. */
  readonly id: string;
  /** Where `loop:*` events are published. */
  readonly bus: EventBus;
  /** Where state and the default memory live. */
  readonly store: Store;
  /** The loop's logger. */
  readonly logger: LoopLogger;
  /** Query handle on the experience memory (waits for pending writes first). */
  readonly memory: LoopMemoryReader;

  private stateValue: LoopState = 'idle';
  private readonly registry: LoopStageRegistry;
  private readonly lifecycle: LoopStageLifecycle;
  private readonly reporter: LoopReporter;
  private readonly watchdog: LoopWatchdog;
  private readonly health: LoopHealthMonitor;
  private readonly sleeper = new LoopSleeper();
  private readonly defaultMemory: StoreLoopMemory;
  private readonly recorder: LoopStatsRecorder;
  private readonly capabilityTracker = new ToolCapabilityTracker();
  private readonly interval: LoopIntervalPolicy;
  private readonly now: () => number;
  private readonly secrets: readonly string[];
  private readonly listCapabilities = (): ToolCapability[] => this.capabilityTracker.list();
  private readonly reflectInLoop: ReflectDependencies;
  private readonly reflectInStep: ReflectDependencies;

  private memoryWrites: Promise<void> = Promise.resolve();
  private session: RunSession | undefined;
  private startPromise: Promise<void> | undefined;
  private pausePromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private detachStartSignal: (() => void) | undefined;
  private stateLoaded = false;
  private iterationCount = 0;
  private stepCount = 0;
  private perceptionSeq = 0;
  private lastPerceptionCount = 0;
  private lastError: SerializedError | undefined;

  constructor(options: AgentLoopOptions = {}) {
    const settings = resolveAgentLoopSettings(options);
    const id = settings.id;
    this.id = id;
    this.interval = settings.interval;
    this.bus = options.bus ?? new EventBus({ source: 'agent-loop' });
    this.store = options.store ?? new MemoryStore();
    this.logger = options.logger ?? silentLoopLogger;
    this.now = options.now ?? (() => performance.now());
    this.secrets = options.secrets ?? [];
    this.recorder = new LoopStatsRecorder(settings.statsWindow);
    this.reporter = new LoopReporter({
      loopId: id,
      bus: this.bus,
      logger: this.logger,
      secrets: this.secrets,
      summary: { ...options.eventSummary, secrets: this.secrets },
      now: this.now,
      derivedWallClock: options.now === undefined,
    });
    this.watchdog = new LoopWatchdog(settings.stuckThresholdMs, this.now, (phase, iterationId, runningMs) => {
      this.recorder.stuckPhases++;
      this.logger.warn(`Loop "${id}" ${phase} phase has been running for ${Math.round(runningMs)} ms`, { loopId: id, iterationId, phase });
      this.reporter.emit('loop:stuck', { loopId: id, iterationId, phase, runningMs, thresholdMs: settings.stuckThresholdMs, timestamp: Date.now() });
    });
    this.lifecycle = new LoopStageLifecycle(() => this.registry, { loopId: id, logger: this.logger, bus: this.bus }, (phase, error) =>
      this.reporter.reportError(phase, error, { handling: 'continue' }),
    );
    this.health = new LoopHealthMonitor({
      loopId: id,
      policy: settings.health,
      recorder: this.recorder,
      reporter: this.reporter,
      logger: this.logger,
      secrets: this.secrets,
      lastError: () => this.lastError,
      signal: () => this.session?.signal ?? NEVER_ABORTED,
      stop: () => this.stop(),
      reinitialiseStages: async () => {
        await this.lifecycle.teardown();
        await this.lifecycle.setup(true);
      },
    });
    this.defaultMemory = new StoreLoopMemory({ store: this.store, namespace: ['loop', id, 'experiences'] });
    this.memory = {
      query: async (query, callOptions) => {
        await this.memoryWrites;
        return this.activeMemory().query(query, callOptions);
      },
    };
    this.registry = new LoopStageRegistry({ added: () => this.lifecycle.added(), removed: (stage) => this.lifecycle.removed(stage) });
    this.reflectInLoop = {
      registry: this.registry,
      capabilities: this.capabilityTracker,
      store: (experiences, context) => this.storeInBackground(experiences, context.iterationId),
    };
    this.reflectInStep = {
      registry: this.registry,
      capabilities: this.capabilityTracker,
      store: async (experiences, context) => {
        await this.memoryWrites;
        await this.activeMemory().record(experiences, { signal: context.signal });
      },
    };
    if (options.stages && options.stages.length > 0) this.registry.add(options.stages);
  }

  /** Current lifecycle state. */
  get state(): LoopState {
    return this.stateValue;
  }

  /** The interval setting in force, e.g. `1s` or `adaptive 0.5–5s`. */
  get intervalDescription(): string {
    return this.interval.describe();
  }

  /**
   * Registers stages (sensors, perception processors, a planner, tools,
   * reflectors, a memory) at runtime, all or none. Returns a function that
   * unregisters them (tearing down those that were set up); calling it twice
   * is harmless.
   *
   * @throws InvalidArgumentError for a malformed stage (the message names the field).
   * @throws InvalidStateError for a duplicate name, a second planner or a second memory.
   */
  use(...stages: LoopStage[]): () => void {
    return this.registry.add(stages);
  }

  /** Names of the registered stages, by kind. */
  stages(): { kind: LoopStage['kind']; name: string }[] {
    return this.registry.all().map((stage) => ({ kind: stage.kind, name: stage.name }));
  }

  /** Statistics: iteration counts, error rate, per-phase mean and p95 durations, last iteration's timing. */
  stats(): LoopStats {
    return this.recorder.snapshot(this.id, this.stateValue);
  }

  /** Per-tool success statistics, updated by every Reflect phase. */
  capabilities(): ToolCapability[] {
    return this.capabilityTracker.list();
  }

  // ---------------------------------------------------------------- control

  /**
   * Starts the loop: restores saved state from the Store (first start only),
   * sets every stage up, then runs iterations until `stop()`. Resolves once
   * the loop is running (the first iteration has begun).
   *
   * @throws InvalidStateError unless the loop is `idle` or `stopped`.
   * @throws whatever a stage's `setup` throws (the loop stays stopped).
   */
  async start(options: LoopControlOptions = {}): Promise<void> {
    if (this.stateValue !== 'idle' && this.stateValue !== 'stopped') {
      throw new InvalidStateError(`Cannot start loop "${this.id}": it is ${this.stateValue}${this.stateValue === 'paused' ? '; call resume()' : ''}`);
    }
    AbortError.throwIfAborted(options.signal, `Starting loop "${this.id}"`);
    const previous = this.stateValue;
    this.setState('starting');
    this.startPromise = (async () => {
      try {
        if (!this.stateLoaded) await this.restoreState(options.signal);
        await this.lifecycle.setup(true);
        AbortError.throwIfAborted(options.signal, `Starting loop "${this.id}"`);
      } catch (error) {
        await this.lifecycle.teardown();
        this.setState(previous);
        throw error;
      }
      this.attachStartSignal(options.signal);
      this.setState('running');
      this.startSession();
    })();
    try {
      await this.startPromise;
    } finally {
      this.startPromise = undefined;
    }
  }

  /**
   * Pauses after the current iteration (a wait between iterations is cut
   * short). Resolves once the loop is `paused`; calling it again while
   * pausing returns the same promise.
   *
   * @throws InvalidStateError unless the loop is `running` (or already `pausing`).
   */
  pause(options: LoopControlOptions = {}): Promise<void> {
    if (this.stateValue === 'pausing' && this.pausePromise) {
      this.linkAbort(options.signal);
      return this.pausePromise;
    }
    if (this.stateValue !== 'running') {
      return Promise.reject(new InvalidStateError(`Cannot pause loop "${this.id}": it is ${this.stateValue}`));
    }
    this.setState('pausing');
    this.linkAbort(options.signal);
    this.sleeper.wake();
    const session = this.session;
    this.pausePromise = (async () => {
      try {
        if (session) await this.endSession(session);
        if (this.stateValue === 'pausing') this.setState('paused');
      } finally {
        this.pausePromise = undefined;
      }
    })();
    return this.pausePromise;
  }

  /**
   * Resumes a paused loop with a new iteration. Resolves once it is running.
   *
   * @throws InvalidStateError unless the loop is `paused` (or `pausing`, which it waits for).
   */
  async resume(): Promise<void> {
    if (this.stateValue === 'pausing' && this.pausePromise) await this.pausePromise;
    if (this.stateValue !== 'paused') {
      throw new InvalidStateError(`Cannot resume loop "${this.id}": it is ${this.stateValue}${this.stateValue === 'running' ? '' : '; only a paused loop resumes'}`);
    }
    this.setState('running');
    this.startSession();
  }

  /**
   * Stops after the current iteration, waits for pending memory writes, tears
   * every stage down and saves state (iteration totals, tool capabilities) to
   * the Store. Resolves once the loop is `stopped`; calling it again while
   * stopping returns the same promise.
   *
   * @throws InvalidStateError when the loop is `idle` or already `stopped`.
   */
  stop(options: LoopControlOptions = {}): Promise<void> {
    if (this.stateValue === 'stopping' && this.stopPromise) {
      this.linkAbort(options.signal);
      return this.stopPromise;
    }
    if (this.stateValue === 'starting' && this.startPromise) {
      return this.startPromise.then(
        () => this.stop(options),
        () => undefined,
      );
    }
    if (this.stateValue !== 'running' && this.stateValue !== 'pausing' && this.stateValue !== 'paused') {
      return Promise.reject(new InvalidStateError(`Cannot stop loop "${this.id}": it is ${this.stateValue}`));
    }
    this.setState('stopping');
    this.linkAbort(options.signal);
    this.sleeper.wake();
    const session = this.session;
    this.stopPromise = (async () => {
      try {
        if (session) await this.endSession(session);
        this.detachStartSignal?.();
        this.detachStartSignal = undefined;
        await this.memoryWrites;
        await this.lifecycle.teardown();
        try {
          await this.saveState();
        } catch (error) {
          this.reporter.reportError('memory', error, { handling: 'continue' });
          this.setState('stopped');
          throw error;
        }
        this.setState('stopped');
      } finally {
        this.stopPromise = undefined;
      }
    })();
    return this.stopPromise;
  }

  /**
   * Releases everything: stops the loop if it is active, and tears down stages
   * set up by single steps. Safe to call in any state, more than once.
   */
  async dispose(): Promise<void> {
    if (this.stateValue === 'starting' || this.stateValue === 'running' || this.stateValue === 'pausing' || this.stateValue === 'paused' || this.stateValue === 'stopping') {
      await this.stop().catch(() => {});
    }
    await this.memoryWrites;
    await this.lifecycle.teardown();
  }

  // ---------------------------------------------------------------- single steps

  /**
   * Runs only the Sense phase (sensors, then perception processors) and returns
   * the perceptions. Publishes the phase events with `step: true`.
   *
   * @throws InvalidStateError while the loop is running; the phase's error otherwise.
   */
  async stepSense(options: LoopStepOptions = {}): Promise<Perception[]> {
    const info = await this.prepareStep('stepSense', options);
    return (await this.stepPhase('sense', null, info)) as Perception[];
  }

  /**
   * Runs only the Plan phase on `perceptions` and returns the action (`null`:
   * nothing to do). Perceptions without `id`/`timestamp` get them.
   */
  async stepPlan(perceptions: readonly (Perception | PerceptionInput)[], options: LoopStepOptions = {}): Promise<Action | null> {
    if (!Array.isArray(perceptions)) throw new InvalidArgumentError('perceptions', 'expected an array of perceptions');
    const info = await this.prepareStep('stepPlan', options);
    const list = this.normalizePerceptions(perceptions, 'stepPlan');
    return (await this.stepPhase('plan', list, info)) as Action | null;
  }

  /**
   * Runs only the Act phase on `action` and returns its result. A failing tool
   * call does not reject: the result has `ok: false` (and `loop:error` is published).
   */
  async stepAct(action: Action, options: LoopStepOptions = {}): Promise<ActResult> {
    const info = await this.prepareStep('stepAct', options);
    const normalized = normalizeAction(action, info.iterationId);
    if (normalized === null) throw new InvalidArgumentError('action', 'expected an Action, got nothing');
    const result = (await this.stepPhase('act', normalized, info)) as ActResult;
    if (!result.ok) {
      const stage = result.results.find((call) => call.status === 'failed')?.tool;
      this.reporter.reportError('act', result.error, { iterationId: info.iterationId, handling: 'continue', ...(stage === undefined ? {} : { stage }) });
    }
    return result;
  }

  /** Runs only the Reflect phase on an Act result; resolves once its experiences are stored. */
  async stepReflect(result: ActResult, options: LoopStepOptions = {}): Promise<ReflectResult> {
    if (typeof result !== 'object' || result === null || typeof result.action?.task !== 'string' || !Array.isArray(result.results)) {
      throw new InvalidArgumentError('result', 'expected an ActResult ({ action, ok, results, durationMs })');
    }
    const info = await this.prepareStep('stepReflect', options);
    return (await this.stepPhase('reflect', result, info)) as ReflectResult;
  }

  // ---------------------------------------------------------------- the loop

  private async drive(session: RunSession): Promise<void> {
    while (this.stateValue === 'running' && !session.isAborted) {
      try {
        await this.runIteration(session);
      } catch (error) {
        this.logger.error(`Loop "${this.id}" iteration crashed: ${serializeError(error, this.secrets).message}`, { loopId: this.id });
      }
      if (this.stateValue !== 'running' || session.isAborted) break;
      await this.sleeper.sleep(Math.max(this.interval.delayMs(this.lastPerceptionCount), this.health.backoffMs));
    }
  }

  private async runIteration(session: RunSession): Promise<void> {
    const iteration = ++this.iterationCount;
    const info: IterationInfo = {
      iterationId: `${this.id}#${iteration}`,
      iteration,
      step: false,
      signal: session.signal,
      abort: undefined,
      startedAt: 0,
      clock: 0,
      durations: {},
      perceptionCount: 0,
      finished: false,
      session,
    };
    info.startedAt = info.clock = this.now();
    session.iteration = info;
    const reporter = this.reporter;
    reporter.anchorWallClock(info.startedAt);
    if (reporter.refreshListening().started) {
      const timestamp = reporter.wallClock(info.startedAt);
      reporter.emitAt('loop:started', { loopId: this.id, iterationId: info.iterationId, iteration, timestamp }, timestamp);
    }
    if (this.lifecycle.hasPending) {
      await this.lifecycle.setup(false);
      info.clock = this.now();
    }
    let outcome: IterationTiming['outcome'] = 'completed';
    let failedPhase: LoopPhase | undefined;
    let error: unknown;
    let handling: LoopErrorHandling = 'skip-iteration';
    let stage: string | undefined;
    iteration: {
      let perceptions: Perception[];
      try {
        const sensed = this.runPhase('sense', null, info);
        perceptions = (sensed instanceof Promise ? await sensed : sensed) as Perception[];
      } catch (caught) {
        failedPhase = 'sense';
        error = caught;
        break iteration;
      }
      info.perceptionCount = perceptions.length;
      let action: Action | null;
      try {
        const planned = this.runPhase('plan', perceptions, info);
        action = (planned instanceof Promise ? await planned : planned) as Action | null;
      } catch (caught) {
        failedPhase = 'plan';
        error = caught;
        break iteration;
      }
      if (action === null) {
        outcome = 'idle';
        break iteration;
      }
      const planned = action;
      let result: ActResult;
      try {
        const acted = this.runPhase('act', planned, info);
        result = (acted instanceof Promise ? await acted : acted) as ActResult;
      } catch (caught) {
        result = { action: planned, ok: false, results: [], error: serializeError(caught, this.secrets), durationMs: info.durations.act ?? 0 };
      }
      if (!result.ok) {
        // Act error: logged and published now, then Reflect analyses the failure.
        failedPhase = 'act';
        error = result.error;
        handling = 'reflect-failure';
        stage = result.results.find((call) => call.status === 'failed')?.tool;
        if (info.signal.aborted) break iteration;
        this.lastError = reporter.reportError('act', error, { iterationId: info.iterationId, handling, ...(stage === undefined ? {} : { stage }) });
        info.clock = this.now();
      }
      try {
        const reflected = this.runPhase('reflect', result, info);
        if (reflected instanceof Promise) await reflected;
      } catch (caught) {
        if (failedPhase === undefined) {
          failedPhase = 'reflect';
          error = caught;
          handling = 'continue';
          stage = undefined;
        } else if (!info.signal.aborted) {
          reporter.reportError('reflect', caught, { iterationId: info.iterationId, handling: 'continue' });
        }
      }
    }
    if (info.finished) return; // abandoned by stop()/pause() with an aborted signal, and already recorded
    if (failedPhase !== undefined) {
      if (info.signal.aborted) {
        outcome = 'aborted';
        failedPhase = undefined;
      } else {
        outcome = 'failed';
        if (!(failedPhase === 'act' && handling === 'reflect-failure')) {
          this.lastError = reporter.reportError(failedPhase, error, { iterationId: info.iterationId, handling, ...(stage === undefined ? {} : { stage }) });
        }
      }
    }
    this.finishIteration(info, outcome, failedPhase);
    if (outcome === 'failed') await this.health.afterFailure();
    else if (outcome !== 'aborted') this.health.afterSuccess();
  }

  /** Records an iteration's timing and publishes `loop:completed`. */
  private finishIteration(info: IterationInfo, outcome: IterationTiming['outcome'], failedPhase: LoopPhase | undefined, endedAt = info.clock): void {
    info.finished = true;
    this.watchdog.phaseEnded();
    this.lastPerceptionCount = failedPhase === 'sense' ? 0 : info.perceptionCount;
    const durationMs = endedAt - info.startedAt;
    const timing: IterationTiming = {
      iterationId: info.iterationId,
      outcome,
      durationMs,
      phaseDurations: info.durations,
      perceptionCount: info.perceptionCount,
      completedAt: this.reporter.wallClock(endedAt),
    };
    if (failedPhase !== undefined) timing.failedPhase = failedPhase;
    this.recorder.recordIteration(timing);
    if (this.reporter.listening.completed) {
      const payload: TroupeEventPayloads['loop:completed'] = {
        loopId: this.id,
        iterationId: info.iterationId,
        iteration: info.iteration,
        timestamp: timing.completedAt,
        durationMs,
        outcome,
        perceptionCount: info.perceptionCount,
        phaseDurations: info.durations,
      };
      if (failedPhase !== undefined) payload.failedPhase = failedPhase;
      this.reporter.emitAt('loop:completed', payload, timing.completedAt);
    }
  }

  /**
   * Runs one phase with its events, timing and stuck tracking. Returns the
   * output directly when the phase's stages all answered synchronously, a
   * promise otherwise (so quick stages cost no extra microtask).
   */
  private runPhase(phase: LoopPhase, input: unknown, info: IterationInfo): unknown {
    const context: LoopContext = {
      loopId: this.id,
      iterationId: info.iterationId,
      iteration: info.iteration,
      phase,
      signal: info.signal,
      logger: this.logger,
      bus: this.bus,
      memory: this.memory,
      tools: this.registry.toolList(),
      capabilities: this.listCapabilities,
    };
    const startedAt = info.clock;
    const reporter = this.reporter;
    let phaseEvent: AnyTroupeEvent | undefined;
    if (reporter.listening.phaseStarted) {
      const timestamp = reporter.wallClock(startedAt);
      phaseEvent = reporter.emitAt(
        'loop:phase-started',
        { loopId: this.id, iterationId: info.iterationId, phase, input: reporter.summarize(input), step: info.step, timestamp },
        timestamp,
      );
    }
    if (!info.step) this.watchdog.phaseStarted(phase, info.iterationId, startedAt);
    let pending: unknown;
    try {
      // With event scopes on (a usage ledger, tracing), the phase's model and tool calls are charged and linked to it.
      pending = eventScopesEnabled()
        ? withEventScope({ event: phaseEvent, bus: this.bus, agentId: this.id, run: { kind: 'loop', id: this.id } }, () => this.invoke(phase, input, context, info.step, startedAt))
        : this.invoke(phase, input, context, info.step, startedAt);
    } catch (error) {
      this.phaseFailed(phase, info, startedAt);
      throw error;
    }
    // Phase bodies return native promises (never other thenables): `instanceof` spares a megamorphic `then` lookup.
    if (pending instanceof Promise) return this.settlePhase(phase, pending, info, startedAt);
    return this.phaseDone(phase, pending, info, startedAt);
  }

  /** Runs one phase's body on its input (sync stages stay sync). */
  private invoke(phase: LoopPhase, input: unknown, context: LoopContext, step: boolean, startedAt: number): unknown {
    switch (phase) {
      case 'sense':
        return sensePhase(this.registry, context, this.normalizePerceptions);
      case 'plan':
        return planPhase(this.registry, input as Perception[], context);
      case 'act':
        return executeLoopAction(input as Action, {
          loopId: this.id,
          iterationId: context.iterationId,
          tools: this.registry.tools,
          signal: context.signal,
          logger: this.logger,
          secrets: this.secrets,
          now: this.now,
          startedAt,
        });
      case 'reflect':
        return reflectPhase(input as ActResult, context, step ? this.reflectInStep : this.reflectInLoop);
    }
  }

  private async settlePhase(phase: LoopPhase, pending: PromiseLike<unknown>, info: IterationInfo, startedAt: number): Promise<unknown> {
    let output: unknown;
    try {
      output = await (info.abort ? Promise.race([pending, info.abort]) : pending);
    } catch (error) {
      this.phaseFailed(phase, info, startedAt);
      throw error;
    }
    return this.phaseDone(phase, output, info, startedAt);
  }

  private phaseDone(phase: LoopPhase, output: unknown, info: IterationInfo, startedAt: number): unknown {
    if (info.session !== undefined && info.session.isAborted) {
      this.phaseFailed(phase, info, startedAt);
      throw new AbortError(`Loop "${this.id}" iteration was aborted`, { cause: info.signal.reason });
    }
    const endedAt = this.now();
    info.clock = endedAt;
    const durationMs = endedAt - startedAt;
    info.durations[phase] = durationMs;
    if (!info.step) {
      this.watchdog.phaseEnded();
      this.recorder.phases[phase].add(durationMs, phase === 'act' && !(output as ActResult).ok);
    }
    const reporter = this.reporter;
    if (reporter.listening.phaseCompleted) {
      const timestamp = reporter.wallClock(endedAt);
      const shape = phase === 'act' ? 'act-result' : phase === 'reflect' ? 'reflect-result' : undefined;
      reporter.emitAt(
        'loop:phase-completed',
        { loopId: this.id, iterationId: info.iterationId, phase, output: reporter.summarize(output, shape), durationMs, step: info.step, timestamp },
        timestamp,
      );
    }
    return output;
  }

  private phaseFailed(phase: LoopPhase, info: IterationInfo, startedAt: number): void {
    info.clock = this.now();
    const durationMs = info.clock - startedAt;
    info.durations[phase] = durationMs;
    if (!info.step) {
      this.watchdog.phaseEnded();
      this.recorder.phases[phase].add(durationMs, true);
    }
  }

  private readonly normalizePerceptions = (inputs: readonly (Perception | PerceptionInput)[], from: string): Perception[] => {
    const out: Perception[] = new Array(inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i] as PerceptionInput;
      if (typeof input !== 'object' || input === null || typeof input.source !== 'string' || typeof input.content !== 'string') {
        throw new InvalidArgumentError(`${from} perception [${i}]`, 'expected { source: string, content: string, … }');
      }
      if (input.id !== undefined && input.timestamp !== undefined) {
        out[i] = input as Perception;
        continue;
      }
      // Object.assign, then set: V8 is much slower at `{ ...input, id }` (spread followed by properties).
      const perception = Object.assign({}, input) as Perception;
      perception.id = input.id ?? `${this.id}:p${++this.perceptionSeq}`;
      perception.timestamp = input.timestamp ?? Date.now();
      out[i] = perception;
    }
    return out;
  };

  private activeMemory(): LoopMemory {
    return this.registry.memory ?? this.defaultMemory;
  }

  /** Stores experiences without holding up the next iteration; failures are reported. */
  private storeInBackground(experiences: Experience[], iterationId: string): void {
    const memory = this.activeMemory();
    this.memoryWrites = this.memoryWrites
      .then(() => memory.record(experiences))
      .then(undefined, (error: unknown) => {
        this.recorder.memoryWriteErrors++;
        this.reporter.reportError('memory', error, { iterationId, handling: 'continue' });
      });
  }

  // ---------------------------------------------------------------- run sessions

  private startSession(): void {
    const controller = new AbortController();
    let markAborted!: () => void;
    const aborted = new Promise<void>((resolve) => {
      markAborted = resolve;
    });
    const session: RunSession = { controller, signal: controller.signal, isAborted: false, aborted, driver: undefined, iteration: undefined };
    controller.signal.addEventListener(
      'abort',
      () => {
        session.isAborted = true;
        markAborted();
      },
      { once: true },
    );
    this.session = session;
    this.watchdog.arm();
    session.driver = this.drive(session);
  }

  /**
   * Waits for a session's driver to finish its iteration. When the session is
   * aborted and the iteration does not end right away (a phase ignoring its
   * signal), stops waiting and records that iteration as aborted.
   */
  private async endSession(session: RunSession): Promise<void> {
    const driver = session.driver;
    if (driver) {
      const abandoned = await Promise.race([
        driver.then(() => false),
        session.aborted.then(() => new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))),
      ]);
      const info = session.iteration;
      if (abandoned && info && !info.finished) this.finishIteration(info, 'aborted', undefined, this.now());
    }
    if (this.session === session) {
      this.watchdog.disarm();
      this.session = undefined;
    }
  }

  private linkAbort(signal: AbortSignal | undefined): void {
    const controller = this.session?.controller;
    if (!signal || !controller) return;
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }

  private attachStartSignal(signal: AbortSignal | undefined): void {
    if (!signal) return;
    const onAbort = () => {
      if (this.stateValue === 'running' || this.stateValue === 'pausing' || this.stateValue === 'paused') {
        this.stop({ signal }).catch((error: unknown) => this.logger.error(`Loop "${this.id}" could not stop: ${serializeError(error, this.secrets).message}`));
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.detachStartSignal = () => signal.removeEventListener('abort', onAbort);
  }

  // ---------------------------------------------------------------- steps

  private async prepareStep(method: string, options: LoopStepOptions): Promise<IterationInfo> {
    if (this.stateValue !== 'idle' && this.stateValue !== 'paused' && this.stateValue !== 'stopped') {
      throw new InvalidStateError(`Cannot ${method}() on loop "${this.id}" while it is ${this.stateValue}; pause or stop it first`);
    }
    const signal = options.signal ?? NEVER_ABORTED;
    AbortError.throwIfAborted(signal, `${method}()`);
    if (!this.lifecycle.active || this.lifecycle.hasPending) await this.lifecycle.setup(true);
    this.reporter.refreshListening();
    const now = this.now();
    this.reporter.anchorWallClock(now);
    return {
      iterationId: `${this.id}#step-${++this.stepCount}`,
      iteration: 0,
      step: true,
      signal,
      abort: options.signal ? abortPromise(signal, `${method}()`) : undefined,
      startedAt: now,
      clock: now,
      durations: {},
      perceptionCount: 0,
      finished: false,
      session: undefined,
    };
  }

  private async stepPhase(phase: LoopPhase, input: unknown, info: IterationInfo): Promise<unknown> {
    try {
      const output = this.runPhase(phase, input, info);
      return output instanceof Promise ? await output : output;
    } catch (error) {
      if (!info.signal.aborted) this.reporter.reportError(phase, error, { iterationId: info.iterationId, handling: 'rethrow' });
      throw error;
    }
  }

  // ---------------------------------------------------------------- state

  private async restoreState(signal: AbortSignal | undefined): Promise<void> {
    const snapshot = await loadLoopStateSnapshot(this.store, this.id, signal ? { signal } : {});
    this.stateLoaded = true;
    if (!snapshot) return;
    this.recorder.totals = { ...snapshot.totals };
    this.iterationCount = Math.max(this.iterationCount, snapshot.totals.iterations);
    this.capabilityTracker.restore(snapshot.capabilities);
    if (snapshot.lastIteration) this.recorder.lastIteration = snapshot.lastIteration;
  }

  private saveState(): Promise<void> {
    return saveLoopStateSnapshot(this.store, {
      version: 1,
      loopId: this.id,
      savedAt: Date.now(),
      totals: { ...this.recorder.totals },
      capabilities: this.capabilityTracker.list(),
      ...(this.recorder.lastIteration ? { lastIteration: this.recorder.lastIteration } : {}),
    });
  }

  private setState(to: LoopState): void {
    const from = this.stateValue;
    if (from === to) return;
    this.stateValue = to;
    this.logger.debug(`Loop "${this.id}": ${from} → ${to}`, { loopId: this.id });
    this.reporter.emit('loop:state-changed', { loopId: this.id, from, to, timestamp: Date.now() });
  }
}
