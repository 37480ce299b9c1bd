import { AbortError } from '../errors/abort-error';
import { InvalidStateError } from '../errors/invalid-argument-error';
import { EventBus } from '../events/event-bus';
import { MemoryStore } from '../store/memory-store';
import type { Store } from '../store/store';
import { serializeError } from '../util/serialize-error';
import { resolveAgentLoopSettings, type AgentLoopOptions, type LoopControlOptions, type LoopState, type LoopStepOptions } from './agent-loop-options';
import type { Action, ActResult } from '../loop/loop-action';
import { ToolCapabilityTracker } from './loop-capabilities';
import type { Experience, LoopMemory, LoopMemoryReader } from '../loop/loop-experience';
import { LoopHealthMonitor } from './monitoring/loop-health-monitor';
import type { LoopIntervalPolicy } from './loop-interval';
import { LoopIterationRunner } from './loop-iteration';
import { silentLoopLogger, type LoopLogger } from '../loop/loop-logger';
import { StoreLoopMemory } from './loop-memory';
import type { Perception, PerceptionInput } from '../loop/loop-perception';
import { LoopReporter } from './monitoring/loop-reporter';
import { createRunSession, driveRunSession, endRunSession, NEVER_ABORTED, type RunSession } from './loop-run-session';
import { LoopSingleSteps } from './loop-single-steps';
import { LoopSleeper } from './loop-sleeper';
import type { LoopStage, ToolCapability } from '../loop/loop-stage';
import { LoopStageLifecycle } from './loop-stage-lifecycle';
import { LoopStageSet } from './loop-stage-set';
import { restoreLoopState, saveLoopState, type LoopStateParts } from './loop-state-snapshot';
import { LoopStatsRecorder, type LoopStats } from './monitoring/loop-stats';
import { LoopWatchdog } from './monitoring/loop-watchdog';
import type { ReflectResult } from './reflect-loop-result';

export type { AgentLoopOptions, LoopControlOptions, LoopState, LoopStepOptions } from './agent-loop-options';

/**
 * The Sense-Plan-Act-Reflect agent loop (seed 002). Each iteration runs the
 * four phases in order:
 *
 * 1. **Sense**: every sensor runs (concurrently); the perceptions then pass
 *    through the perception processors (dedupe, classify, intent, priority,
 *    fusion — see `@troupe/loop-stages`).
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
  private readonly stageSet: LoopStageSet;
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
  private readonly runner: LoopIterationRunner;
  private readonly steps: LoopSingleSteps;

  private memoryWrites: Promise<void> = Promise.resolve();
  private session: RunSession | undefined;
  private startPromise: Promise<void> | undefined;
  private pausePromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private detachStartSignal: (() => void) | undefined;
  private stateLoaded = false;

  constructor(options: AgentLoopOptions = {}) {
    const settings = resolveAgentLoopSettings(options);
    const id = settings.id;
    this.id = id;
    this.interval = settings.interval;
    this.bus = options.bus ?? new EventBus({ source: 'agent-loop' });
    this.store = options.store ?? new MemoryStore();
    this.logger = options.logger ?? silentLoopLogger;
    // Bound, not `() => performance.now()`: that reads the global `performance` accessor on every call,
    // which costs more than the clock itself (five readings an iteration).
    this.now = options.now ?? performance.now.bind(performance);
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
    this.lifecycle = new LoopStageLifecycle(() => this.stageSet, { loopId: id, logger: this.logger, bus: this.bus }, (phase, error) =>
      this.reporter.reportError(phase, error, { handling: 'continue' }),
    );
    this.health = new LoopHealthMonitor({
      loopId: id,
      policy: settings.health,
      recorder: this.recorder,
      reporter: this.reporter,
      logger: this.logger,
      secrets: this.secrets,
      lastError: () => this.runner.lastError,
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
    this.stageSet = new LoopStageSet({ added: () => this.lifecycle.added(), removed: (stage) => this.lifecycle.removed(stage) });
    this.runner = new LoopIterationRunner({
      loopId: id,
      stages: this.stageSet,
      lifecycle: this.lifecycle,
      reporter: this.reporter,
      watchdog: this.watchdog,
      recorder: this.recorder,
      health: this.health,
      capabilities: this.capabilityTracker,
      logger: this.logger,
      bus: this.bus,
      memory: this.memory,
      secrets: this.secrets,
      now: this.now,
      reflectInLoop: {
        stages: this.stageSet,
        capabilities: this.capabilityTracker,
        store: (experiences, context) => this.storeInBackground(experiences, context.iterationId),
      },
      reflectInStep: {
        stages: this.stageSet,
        capabilities: this.capabilityTracker,
        store: async (experiences, context) => {
          await this.memoryWrites;
          await this.activeMemory().record(experiences, { signal: context.signal });
        },
      },
    });
    this.steps = new LoopSingleSteps({
      loopId: id,
      state: () => this.stateValue,
      lifecycle: this.lifecycle,
      reporter: this.reporter,
      runner: this.runner,
      now: this.now,
    });
    if (options.stages && options.stages.length > 0) this.stageSet.add(options.stages);
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
    return this.stageSet.add(stages);
  }

  /** Names of the registered stages, by kind. */
  stages(): { kind: LoopStage['kind']; name: string }[] {
    return this.stageSet.all().map((stage) => ({ kind: stage.kind, name: stage.name }));
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
        if (!this.stateLoaded) {
          await restoreLoopState(this.store, this.stateParts(), options.signal ? { signal: options.signal } : {});
          this.stateLoaded = true;
        }
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
          await saveLoopState(this.store, this.stateParts());
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
  stepSense(options: LoopStepOptions = {}): Promise<Perception[]> {
    return this.steps.sense(options);
  }

  /**
   * Runs only the Plan phase on `perceptions` and returns the action (`null`:
   * nothing to do). Perceptions without `id`/`timestamp` get them.
   */
  stepPlan(perceptions: readonly (Perception | PerceptionInput)[], options: LoopStepOptions = {}): Promise<Action | null> {
    return this.steps.plan(perceptions, options);
  }

  /**
   * Runs only the Act phase on `action` and returns its result. A failing tool
   * call does not reject: the result has `ok: false` (and `loop:error` is published).
   */
  stepAct(action: Action, options: LoopStepOptions = {}): Promise<ActResult> {
    return this.steps.act(action, options);
  }

  /** Runs only the Reflect phase on an Act result; resolves once its experiences are stored. */
  stepReflect(result: ActResult, options: LoopStepOptions = {}): Promise<ReflectResult> {
    return this.steps.reflect(result, options);
  }

  private activeMemory(): LoopMemory {
    return this.stageSet.memory ?? this.defaultMemory;
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
    const session = createRunSession();
    this.session = session;
    this.reporter.anchorWallClock(this.now(), true);
    this.watchdog.arm();
    session.driver = driveRunSession(session, this.driver);
  }

  private readonly driver = {
    running: (): boolean => this.stateValue === 'running',
    runIteration: (session: RunSession): Promise<void> | undefined => this.runner.runIteration(session),
    crashed: (error: unknown): void => this.logger.error(`Loop "${this.id}" iteration crashed: ${serializeError(error, this.secrets).message}`, { loopId: this.id }),
    delayMs: (): number => Math.max(this.interval.delayMs(this.runner.lastPerceptionCount), this.health.backoffMs),
    sleeper: this.sleeper,
  };

  /**
   * Waits for a session's driver to finish its iteration; an iteration that
   * ignores an aborted signal is recorded as aborted and left behind.
   */
  private async endSession(session: RunSession): Promise<void> {
    await endRunSession(session, (iteration) => this.runner.finishIteration(iteration, 'aborted', undefined, this.now()));
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

  private stateParts(): LoopStateParts {
    return { loopId: this.id, recorder: this.recorder, capabilities: this.capabilityTracker, runner: this.runner };
  }

  private setState(to: LoopState): void {
    const from = this.stateValue;
    if (from === to) return;
    this.stateValue = to;
    this.logger.debug(`Loop "${this.id}": ${from} → ${to}`, { loopId: this.id });
    this.reporter.emit('loop:state-changed', { loopId: this.id, from, to, timestamp: Date.now() });
  }
}
