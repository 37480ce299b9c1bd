import {
  AbortError,
  EventBus,
  InvalidArgumentError,
  InvalidStateError,
  TroupeError,
  withEventScope,
  type Namespace,
  type Store,
} from '@troupe/core';
import { checkUsageBudgetLimits, UsageBudget, UsageLedger, type UsageBudgetLimits } from '@troupe/usage';
import { nextProcessCount, processSingleton, secretValuesFromEnv } from '@troupe/core/util';
import { BatchEventLog } from './batch-event-log';
import { BatchStateManager } from './batch-state-manager';
import { runExecutorLoop } from './pipeline-executor-loop';
import { registerPipelineEvents } from './pipeline-events';
import { defaultTaskId, runPlannerLoop, type TaskIdFunction } from './pipeline-planner-loop';
import { guardStore, parseStored } from './pipeline-store-guard';
import { taskRecordSchema, threadLayout } from './pipeline-store-layout';
import { PipelineThread } from './pipeline-thread';
import type {
  BatchEventRecord,
  BatchEventType,
  BatchState,
  ExecuteTaskFunction,
  PipelineExecutor,
  PipelineMode,
  PipelinePlanner,
  PipelineRunResult,
  PipelineStatus,
  PlanBatchFunction,
  TaskFailurePolicy,
  TaskRecord,
} from './pipeline-types';
import { checkNamespace, checkThreadId } from './pipeline-validation';
import { PipelineWakeups } from './pipeline-wakeups';

/** Options of {@link createBatchPipeline}. */
export interface BatchPipelineOptions<TTask = unknown, TResult = unknown> {
  /** Plans the batches: a {@link PipelinePlanner} or a plain function. */
  planner: PipelinePlanner<TTask> | PlanBatchFunction<TTask>;
  /** Runs the tasks: a {@link PipelineExecutor} or a plain function. */
  executor: PipelineExecutor<TTask, TResult> | ExecuteTaskFunction<TTask, TResult>;
  /**
   * Where batches, states, task outcomes and events are kept. Use a durable
   * store (e.g. `@troupe/store-sqlite`) to resume after a restart.
   */
  store: Store;
  /**
   * `serial` (seed §1): plan every batch, then execute. `concurrent` (§2):
   * the executor starts each batch as soon as it is planned, while the
   * planner plans the next. Default `concurrent`.
   */
  mode?: PipelineMode;
  /** Prefix of the thread's records, e.g. `['plans', project, environment]`. Default `['pipeline']`. */
  namespace?: string | Namespace;
  /** The thread: the key a stopped run resumes by. */
  threadId: string;
  /** Where `pipeline:*` events go (and where the executor hears about new batches). Default: a private bus. */
  eventBus?: EventBus;
  /** What a failed task does to the run: `stop` (default) or `continue`, or a function deciding per failure. */
  onTaskFailure?: TaskFailurePolicy;
  /**
   * How many batches may execute at once. Default 1: batches execute one
   * after another in batch order. Above 1, later batches may start (and
   * finish) before earlier ones; tasks inside a batch stay in order.
   */
  batchConcurrency?: number;
  /** Task ids (stored, and given to the executor). Default `<batchIndex>-<taskIndex>`. */
  taskId?: (task: TTask, batchIndex: number, taskIndex: number) => string;
  /** Clock for stored timestamps. Default `Date.now`. */
  now?: () => number;
  /**
   * Caps each run's cost (US dollars) and/or tokens, counted over the model
   * calls and agent turns its planner and tasks make (see `UsageLedger`):
   * `usage:budget-warning` at 80%, then the run stops like `stop()` (status
   * `stopped`, with the `reason`); a later run resumes the thread.
   */
  budget?: UsageBudgetLimits;
  /** The ledger the budget counts from. Default: the event bus's (`UsageLedger.forBus`). */
  ledger?: UsageLedger;
  /**
   * Values redacted from every stored or emitted error (planner and task
   * failures, store errors). Default: the values of secret-looking
   * environment variables (`*_KEY`, `*TOKEN*`…); well-known API key shapes
   * are always redacted.
   */
  secrets?: Iterable<string>;
}

/** Options of a run. */
export interface PipelineRunOptions {
  /** Cancels the run: the task or planner call in flight gets it, and the run rejects with `AbortError`. */
  signal?: AbortSignal;
}

/** Which role(s) a run plays. */
type Role = 'both' | 'planner' | 'executor';

/**
 * Roles claimed per store instance in this process: `<channelId>|planner`, `<channelId>|executor`.
 * One map per process, shared by the ESM and CJS builds.
 */
const claims = processSingleton('pipeline.claims.v1', () => new WeakMap<object, Set<string>>());

/**
 * A planner/executor batch pipeline over one thread (seed 003). Create it
 * with {@link createBatchPipeline}.
 */
export class BatchPipeline<TTask = unknown, TResult = unknown> {
  /** The thread's batch states. */
  readonly states: BatchStateManager;
  /** The thread's stored batch events and their processed flags. */
  readonly eventLog: BatchEventLog;
  /** Where `pipeline:*` events are emitted. */
  readonly eventBus: EventBus;
  /** `serial` or `concurrent`. */
  readonly mode: PipelineMode;
  /** The thread this pipeline runs and resumes. */
  readonly threadId: string;
  /** Prefix of the thread's records in the store. */
  readonly namespace: Namespace;
  /** Channel id of this thread's bus events (`<namespace joined by "/">:<threadId>`). */
  readonly channelId: string;
  private readonly store: Store;
  private readonly planner: PipelinePlanner<TTask>;
  private readonly executor: PipelineExecutor<TTask, TResult>;
  private readonly onTaskFailure: TaskFailurePolicy;
  private readonly batchConcurrency: number;
  private readonly taskId: TaskIdFunction;
  private readonly now: () => number;
  private readonly secrets: readonly string[];
  private readonly budgetLimits: UsageBudgetLimits | undefined;
  private readonly ledger: UsageLedger | undefined;
  private active: { stop: AbortController; settled: Promise<void> } | undefined;

  /** Use {@link createBatchPipeline}. */
  constructor(options: BatchPipelineOptions<TTask, TResult>) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { planner, executor, store, threadId }');
    const { store } = options;
    if (!store || typeof store.get !== 'function' || typeof store.put !== 'function' || typeof store.list !== 'function' || typeof store.transaction !== 'function') {
      throw new InvalidArgumentError('store', 'expected a Store (get/put/delete/list/transaction), e.g. new MemoryStore()');
    }
    checkThreadId(options.threadId);
    const mode = options.mode ?? 'concurrent';
    if (mode !== 'serial' && mode !== 'concurrent') throw new InvalidArgumentError('mode', `expected "serial" or "concurrent", got ${JSON.stringify(mode)}`);
    const batchConcurrency = options.batchConcurrency ?? 1;
    if (!Number.isInteger(batchConcurrency) || batchConcurrency < 1) {
      throw new InvalidArgumentError('batchConcurrency', `expected a positive integer, got ${String(batchConcurrency)}`);
    }
    const policy = options.onTaskFailure ?? 'stop';
    if (policy !== 'stop' && policy !== 'continue' && typeof policy !== 'function') {
      throw new InvalidArgumentError('onTaskFailure', `expected "stop", "continue" or a function, got ${JSON.stringify(policy)}`);
    }
    if (options.taskId !== undefined && typeof options.taskId !== 'function') throw new InvalidArgumentError('taskId', 'expected a function (task, batchIndex, taskIndex) => string');
    if (options.secrets !== undefined && (typeof options.secrets !== 'object' || options.secrets === null || typeof (options.secrets as Iterable<string>)[Symbol.iterator] !== 'function')) {
      throw new InvalidArgumentError('secrets', 'expected an array (or other iterable) of strings to redact');
    }
    if (options.eventBus !== undefined && !(options.eventBus instanceof EventBus)) throw new InvalidArgumentError('eventBus', 'expected an EventBus from @troupe/core');
    this.planner = toPlanner(options.planner);
    this.executor = toExecutor(options.executor);
    this.store = store;
    this.mode = mode;
    this.threadId = options.threadId;
    this.namespace = checkNamespace(options.namespace ?? ['pipeline']);
    this.channelId = `${this.namespace.join('/')}:${this.threadId}`;
    this.eventBus = options.eventBus ?? new EventBus({ source: 'pipeline' });
    this.onTaskFailure = policy;
    this.batchConcurrency = batchConcurrency;
    this.taskId = (options.taskId as TaskIdFunction | undefined) ?? defaultTaskId;
    this.now = options.now ?? Date.now;
    this.secrets = [...(options.secrets ?? secretValuesFromEnv(process.env))];
    this.budgetLimits = checkUsageBudgetLimits(options.budget);
    this.ledger = options.ledger;
    this.states = new BatchStateManager(store, this.namespace);
    this.eventLog = new BatchEventLog(store, this.namespace, this.now);
    registerPipelineEvents();
  }

  /** True while a run is in progress. */
  get running(): boolean {
    return this.active !== undefined;
  }

  /**
   * Runs both roles until every batch is planned and executed, resuming
   * from the stored state of the thread. Resolves with `completed`, or with
   * `stopped` after {@link stop}; rejects with `AbortError` when `signal`
   * aborts, or with a {@link PipelineError} when the store, the planner, or
   * a task under the `stop` policy fails.
   *
   * @example
   * ```ts
   * const result = await pipeline.run({ signal });
   * console.log(result.status, result.executedTasks);
   * ```
   */
  run(options: PipelineRunOptions = {}): Promise<PipelineRunResult> {
    return this.start('both', options);
  }

  /**
   * Runs only the planning role (e.g. in another process than the
   * executor, over the same durable store and a bridged bus).
   */
  runPlanner(options: PipelineRunOptions = {}): Promise<PipelineRunResult> {
    return this.start('planner', options);
  }

  /**
   * Runs only the executing role: executes the unprocessed batches, then
   * waits for `pipeline:batch-planned` / `pipeline:planning-completed` on the
   * bus until execution is complete. A restarted executor therefore picks up
   * exactly the batches whose `BATCH_PLANNED` event is not processed.
   */
  runExecutor(options: PipelineRunOptions = {}): Promise<PipelineRunResult> {
    return this.start('executor', options);
  }

  /**
   * Stops the run in progress: the planner call and the task in flight get
   * an aborted signal (their outcome is not recorded, so they run again on
   * resume), and `run()` resolves with `stopped`. Resolves when the run has
   * settled; harmless when nothing runs.
   */
  async stop(reason?: unknown): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.stop.abort(reason ?? new AbortError(`Pipeline thread "${this.threadId}" was stopped`));
    await active.settled;
  }

  /** Planning progress, execution completion and every batch state of the thread. */
  async getStatus(options: PipelineRunOptions = {}): Promise<PipelineStatus> {
    const thread = this.thread(options.signal ?? new AbortController().signal);
    const planning = await thread.read('read the planning progress', (store) => thread.readPlanning(store));
    const completed = await this.eventLog.getEvents(this.threadId, 'EXECUTION_COMPLETED', options);
    return { threadId: this.threadId, planning, executionCompleted: completed.length > 0, batches: await this.states.getAllBatchStates(this.threadId, options) };
  }

  /** Every batch state of the thread, by batch index. */
  getAllBatchStates(options: PipelineRunOptions = {}): Promise<BatchState[]> {
    return this.states.getAllBatchStates(this.threadId, options);
  }

  /** Stored task outcomes, of one batch or of all, in batch then task order. */
  async getTaskResults(batchIndex?: number, options: PipelineRunOptions = {}): Promise<TaskRecord[]> {
    if (batchIndex !== undefined && (!Number.isInteger(batchIndex) || batchIndex < 0)) throw new InvalidArgumentError('batchIndex', `expected a non-negative integer, got ${String(batchIndex)}`);
    const layout = threadLayout(this.namespace, this.threadId);
    const namespace = batchIndex === undefined ? [...layout.base, 'results'] : layout.results(batchIndex);
    return guardStore(this.store, { threadId: this.threadId, action: 'list the task outcomes', ...(options.signal ? { signal: options.signal } : {}) }, async (store) => {
      const items = await store.list(namespace, { recursive: batchIndex === undefined, ...(options.signal ? { signal: options.signal } : {}) });
      return items.map((item) => parseStored(taskRecordSchema, item, { threadId: this.threadId }) as TaskRecord).sort((a, b) => a.batchIndex - b.batchIndex || a.taskIndex - b.taskIndex);
    });
  }

  /** Stored batch events with their processed flags (one type, or all). */
  getEvents(type?: BatchEventType, options: PipelineRunOptions = {}): Promise<BatchEventRecord[]> {
    return this.eventLog.getEvents(this.threadId, type, options);
  }

  private thread(signal: AbortSignal): PipelineThread {
    return new PipelineThread(this.store, this.namespace, this.threadId, this.channelId, this.eventBus, this.now, signal, this.secrets);
  }

  private async start(role: Role, options: PipelineRunOptions): Promise<PipelineRunResult> {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { signal? }');
    if (this.active) throw new InvalidStateError(`Pipeline thread "${this.threadId}" is already running; await the run or stop() it first`);
    AbortError.throwIfAborted(options.signal, `The run of pipeline thread "${this.threadId}"`);
    const release = this.claim(role);
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let settle!: () => void;
    this.active = { stop, settled: new Promise<void>((resolve) => (settle = resolve)) };
    try {
      return await this.execute(role, signal, stop.signal, options.signal);
    } finally {
      release();
      this.active = undefined;
      settle();
    }
  }

  /** One planner and one executor per thread and store at a time, in this process. */
  private claim(role: Role): () => void {
    let held = claims.get(this.store);
    if (!held) {
      held = new Set();
      claims.set(this.store, held);
    }
    const wanted = role === 'both' ? ['planner', 'executor'] : [role];
    const keys = wanted.map((r) => `${this.channelId}|${r}`);
    const taken = keys.find((key) => held.has(key));
    if (taken) {
      throw new InvalidStateError(`Another pipeline already runs the ${taken.split('|')[1]} of thread "${this.threadId}" over this store; stop it first`);
    }
    for (const key of keys) held.add(key);
    return () => {
      for (const key of keys) held.delete(key);
    };
  }

  private async execute(role: Role, signal: AbortSignal, stopSignal: AbortSignal, userSignal: AbortSignal | undefined): Promise<PipelineRunResult> {
    const runId = `${this.threadId}-run-${nextProcessCount('pipeline.run-id')}`;
    const startedAt = performance.now();
    const thread = this.thread(signal);
    const wakeups = role === 'planner' ? undefined : new PipelineWakeups(this.eventBus, this.channelId);
    const budget = this.startBudget(runId);
    const finished = (status: 'completed' | 'stopped' | 'aborted' | 'failed', error?: unknown) => {
      budget?.dispose();
      thread.emit('pipeline:run-finished', {
        runId,
        role,
        status,
        durationMs: performance.now() - startedAt,
        ...thread.stats,
        ...(error !== undefined ? { error: thread.serialize(error) } : {}),
        ...(status === 'stopped' && budget?.reason !== undefined ? { reason: budget.reason } : {}),
      });
    };
    const started = thread.emit('pipeline:run-started', { runId, mode: this.mode, role });
    let status: 'completed' | 'stopped' = 'completed';
    try {
      // The run's event scope: its planners' and executors' calls are charged to it and traced under it.
      await withEventScope({ event: started, bus: this.eventBus, run: { kind: 'pipeline', id: runId } }, () => this.runRoles(role, thread, wakeups));
    } catch (error) {
      if (stopSignal.aborted) status = 'stopped';
      else if (userSignal?.aborted) {
        finished('aborted');
        throw toAbortError(error, userSignal, this.threadId);
      } else {
        finished('failed', error);
        throw error;
      }
    } finally {
      wakeups?.dispose();
    }
    let batches: BatchState[];
    try {
      batches = await this.states.getAllBatchStates(this.threadId);
    } catch (error) {
      finished('failed', error);
      throw error;
    }
    finished(status);
    const { plannedBatches, executedTasks, failedTasks, skippedBatches } = thread.stats;
    return {
      status,
      threadId: this.threadId,
      batches,
      plannedBatches,
      executedTasks,
      failedTasks,
      skippedBatches,
      durationMs: performance.now() - startedAt,
      ...(status === 'stopped' && budget?.reason !== undefined ? { reason: budget.reason } : {}),
    };
  }

  /** Counts a run's spending against `budget`; once spent, the run stops like `stop()`. */
  private startBudget(runId: string): UsageBudget | undefined {
    if (!this.budgetLimits) return undefined;
    const budget = new UsageBudget({ run: { kind: 'pipeline', id: runId }, ledger: this.ledger ?? UsageLedger.forBus(this.eventBus), eventBus: this.eventBus, ...this.budgetLimits });
    budget.signal.addEventListener('abort', () => this.active?.stop.abort(budget.signal.reason), { once: true });
    return budget;
  }

  private async runRoles(role: Role, thread: PipelineThread, wakeups: PipelineWakeups | undefined): Promise<void> {
    const executorOptions = () => ({ mode: this.mode, batchConcurrency: this.batchConcurrency, onTaskFailure: this.onTaskFailure, wakeups: wakeups as PipelineWakeups });
    if (role === 'planner') return runPlannerLoop(thread, this.planner as PipelinePlanner, this.taskId);
    if (role === 'executor') return runExecutorLoop(thread, this.executor as PipelineExecutor, executorOptions());
    if (this.mode === 'serial') {
      await runPlannerLoop(thread, this.planner as PipelinePlanner, this.taskId);
      return runExecutorLoop(thread, this.executor as PipelineExecutor, executorOptions());
    }
    // Concurrent: both roles at once; the first failure stops the other.
    const sibling = new AbortController();
    const shared = new PipelineThread(this.store, this.namespace, this.threadId, this.channelId, this.eventBus, this.now, AbortSignal.any([thread.signal, sibling.signal]), this.secrets);
    let first: { error: unknown } | undefined;
    const guard = (work: Promise<void>) =>
      work.catch((error: unknown) => {
        if (!first && !thread.signal.aborted) first = { error };
        sibling.abort(error);
        throw error;
      });
    const results = await Promise.allSettled([
      guard(runPlannerLoop(shared, this.planner as PipelinePlanner, this.taskId)),
      guard(runExecutorLoop(shared, this.executor as PipelineExecutor, executorOptions())),
    ]);
    Object.assign(thread.stats, shared.stats);
    if (first) throw first.error;
    const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (rejected) throw rejected.reason;
  }
}

/** Turns whatever a run threw while its signal aborted into an `AbortError`. */
function toAbortError(error: unknown, signal: AbortSignal, threadId: string): unknown {
  if (TroupeError.hasCode(error, 'ABORTED')) return error;
  return new AbortError(`The run of pipeline thread "${threadId}" was aborted`, { cause: signal.reason });
}

function toPlanner<TTask>(planner: PipelinePlanner<TTask> | PlanBatchFunction<TTask>): PipelinePlanner<TTask> {
  if (typeof planner === 'function') return { planBatch: planner };
  if (planner && typeof planner === 'object' && typeof planner.planBatch === 'function') return planner;
  throw new InvalidArgumentError('planner', 'expected a function (context) => { tasks } | null, or an object with planBatch(context)');
}

function toExecutor<TTask, TResult>(executor: PipelineExecutor<TTask, TResult> | ExecuteTaskFunction<TTask, TResult>): PipelineExecutor<TTask, TResult> {
  if (typeof executor === 'function') return { executeTask: executor };
  if (executor && typeof executor === 'object' && typeof executor.executeTask === 'function') return executor;
  throw new InvalidArgumentError('executor', 'expected a function (task, context) => result, or an object with executeTask(task, context)');
}

/**
 * Creates a planner/executor batch pipeline (seed 003): a planner produces
 * tasks in batches, an executor runs them, and every step is stored so a
 * stopped run resumes where it stopped.
 *
 * - `serial` (§1): the planner plans and stores every batch, marks planning
 *   complete (`PLANNING_COMPLETED`), and the executor then runs batch after
 *   batch, task after task, storing each outcome.
 * - `concurrent` (§2): each planned batch is stored with a `BATCH_PLANNED`
 *   event (processed flag in the store) and announced on the bus; the
 *   executor starts it while the planner plans the next, and records
 *   `BATCH_EXECUTED`, then `EXECUTION_COMPLETED`.
 *
 * Store errors fail the run with a {@link PipelineError} naming the store
 * call; the executor waits on bus notifications, never polls; an empty
 * batch is recorded and skipped; a failing task is recorded and
 * `onTaskFailure` decides.
 *
 * @example
 * ```ts
 * const pipeline = createBatchPipeline({
 *   planner: ({ batchIndex }) => ({ tasks: tools.slice(batchIndex * 5, batchIndex * 5 + 5), totalBatches: Math.ceil(tools.length / 5) }),
 *   executor: async (tool, { signal }) => ({ passed: await testTool(tool, signal) }),
 *   store: new MemoryStore(),
 *   mode: 'concurrent',
 *   namespace: ['plans', 'my-project'],
 *   threadId: 'run-42',
 * });
 * pipeline.eventBus.on('pipeline:task-completed', (e) => console.log(e.payload.taskId, e.payload.status));
 * const result = await pipeline.run();
 * ```
 */
export function createBatchPipeline<TTask = unknown, TResult = unknown>(options: BatchPipelineOptions<TTask, TResult>): BatchPipeline<TTask, TResult> {
  return new BatchPipeline(options);
}
