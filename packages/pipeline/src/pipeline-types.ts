import type { SerializedError } from '@troupe/core';

/** How the two roles take turns: §1 of seed 003 (`serial`) or §2 (`concurrent`). */
export type PipelineMode = 'serial' | 'concurrent';

/** What a planner is told when asked for one batch. */
export interface PlanBatchContext {
  /** Index of the batch to plan (0-based, consecutive). */
  batchIndex: number;
  /** The pipeline's thread (the resume key). */
  threadId: string;
  /** Total batch count, once an earlier batch of this thread announced it; else `undefined`. */
  totalBatches: number | undefined;
  /** Aborted when the run is stopped or its signal aborts; pass it to anything long-running. */
  signal: AbortSignal;
}

/**
 * One planned batch. `tasks` may be empty: the batch is then recorded and
 * skipped. Tasks and the results of executing them are stored, so both must
 * be JSON-serializable.
 */
export interface PlannedBatch<TTask = unknown> {
  tasks: readonly TTask[];
  /** True when this is the last batch (planning is then complete). */
  last?: boolean;
  /**
   * How many batches the plan has in total, when the planner knows it (the
   * seed's `totalBatches`). Planning completes after batch `totalBatches - 1`.
   */
  totalBatches?: number;
}

/**
 * What a planner returns: a batch, or `null` when there is no further batch
 * (planning completes without adding one).
 */
export type PlanBatchResult<TTask = unknown> = PlannedBatch<TTask> | null;

/** A planner as a plain function. */
export type PlanBatchFunction<TTask = unknown> = (context: PlanBatchContext) => PlanBatchResult<TTask> | PromiseLike<PlanBatchResult<TTask>>;

/**
 * The planning role (the seed's PlanAgent): produces tasks one batch at a
 * time. A plain function, a prompt agent ({@link plannerFromModel}), any
 * `RunnableAgent` ({@link plannerFromAgent}) or a CLI member
 * ({@link plannerFromAgentMember}) can play it.
 *
 * @example
 * ```ts
 * const planner: PipelinePlanner<string> = {
 *   planBatch: ({ batchIndex }) => ({ tasks: [`test tool ${batchIndex}`], totalBatches: 3 }),
 * };
 * ```
 */
export interface PipelinePlanner<TTask = unknown> {
  planBatch(context: PlanBatchContext): PlanBatchResult<TTask> | PromiseLike<PlanBatchResult<TTask>>;
}

/** What an executor is told with each task. */
export interface ExecuteTaskContext {
  /** The batch the task belongs to. */
  batchIndex: number;
  /** Index of the task in its batch. */
  taskIndex: number;
  /** Stable id of the task (`<batch>-<task>` unless the pipeline's `taskId` option says otherwise). */
  taskId: string;
  /** The pipeline's thread. */
  threadId: string;
  /** 1 on the first run of the task; more when a task that stopped the run is retried on resume. */
  attempt: number;
  /** Aborted when the run is stopped or its signal aborts. */
  signal: AbortSignal;
}

/** An executor as a plain function. Its result is stored, so it must be JSON-serializable (`undefined` is stored as `null`). */
export type ExecuteTaskFunction<TTask = unknown, TResult = unknown> = (task: TTask, context: ExecuteTaskContext) => TResult | PromiseLike<TResult>;

/**
 * The executing role (the seed's TestAgent): runs one task at a time. Throw
 * to fail the task; the pipeline records the failure and applies its
 * `onTaskFailure` policy.
 *
 * @example
 * ```ts
 * const executor: PipelineExecutor<string, { ok: boolean }> = {
 *   executeTask: async (task, { signal }) => ({ ok: await runTest(task, signal) }),
 * };
 * ```
 */
export interface PipelineExecutor<TTask = unknown, TResult = unknown> {
  executeTask(task: TTask, context: ExecuteTaskContext): TResult | PromiseLike<TResult>;
}

/**
 * Per-batch status (seed 003 §2.3.1). `failed` means the planner failed on
 * the batch, a task failed under the `stop` policy (the batch's
 * `BATCH_PLANNED` event stays unprocessed and a resume retries it), or the
 * batch ran to its end with failed tasks under `continue` (processed; the
 * failures are final).
 */
export type BatchStatus = 'planning' | 'planned' | 'executing' | 'executed' | 'failed';

/**
 * The state of one batch, as {@link BatchStateManager} stores it. Times are
 * milliseconds since the epoch (the seed's `planningStarted`… ISO strings).
 */
export interface BatchState {
  batchIndex: number;
  status: BatchStatus;
  /** When the planner was asked for the batch (the last time, after a retry). */
  planningStartedAt?: number;
  /** When the batch and its tasks were stored. */
  planningCompletedAt?: number;
  /** When the executor first started the batch (kept across resumes). */
  executionStartedAt?: number;
  /** When the batch's last task was recorded (or the empty batch skipped). */
  executionCompletedAt?: number;
  /** Tasks the planner produced for the batch. */
  taskCount?: number;
  /** Tasks that ran to a recorded outcome (succeeded or failed). */
  executedTasks?: number;
  /** Of those, the ones that failed. */
  failedTasks?: number;
  /** True for an empty batch: recorded, then skipped. */
  skipped?: boolean;
  /** Why the batch failed (planner error, or the task failure that stopped the run). */
  error?: SerializedError;
}

/** What the pipeline decides after a task fails. */
export type TaskFailureDecision = 'continue' | 'stop';

/** What an `onTaskFailure` function is told. */
export interface TaskFailureInfo {
  batchIndex: number;
  taskIndex: number;
  taskId: string;
  /** The task's input as stored. */
  task: unknown;
  /** What the executor threw (or the error for a result that is not JSON). */
  error: unknown;
  /** 1 on the first run; more when a task that stopped an earlier run is retried. */
  attempt: number;
}

/**
 * The batch policy for a failed task: `continue` records it and goes on with
 * the next task (the failure is final: a resume does not retry it); `stop`
 * records it, marks the batch `failed` and fails the run (a resume retries
 * that task). A function decides per failure.
 */
export type TaskFailurePolicy = TaskFailureDecision | ((failure: TaskFailureInfo) => TaskFailureDecision | PromiseLike<TaskFailureDecision>);

/** The stored outcome of one task. */
export interface TaskRecord {
  batchIndex: number;
  taskIndex: number;
  taskId: string;
  /** How the task ended. */
  status: 'succeeded' | 'failed';
  /** The executor's result (JSON), when it succeeded. */
  result?: unknown;
  /** The failure, secrets redacted, when it failed. */
  error?: SerializedError;
  /** What the policy decided for a failure: `continue` makes it final, `stop` makes a resume retry the task. */
  decision?: TaskFailureDecision;
  /** Which run of the task this was (1 first). */
  attempt: number;
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** Milliseconds since the epoch. */
  finishedAt: number;
}

/** The seed's four batch events, as stored with their processed flags. */
export type BatchEventType = 'BATCH_PLANNED' | 'BATCH_EXECUTED' | 'PLANNING_COMPLETED' | 'EXECUTION_COMPLETED';

/**
 * A batch event as stored in the thread's event log (seed 003 §2.2.1).
 * `processed` is set once the pipeline acted on it: `BATCH_PLANNED` when the
 * batch was executed (or skipped), `PLANNING_COMPLETED` when execution
 * completed. `BATCH_EXECUTED` and `EXECUTION_COMPLETED` are reports with
 * no consumer inside the pipeline; they are stored already processed.
 */
export interface BatchEventRecord {
  /** `<threadId>-<type>-<batchIndex>`. */
  id: string;
  type: BatchEventType;
  /** The thread the event belongs to. */
  threadId: string;
  /** The batch; for `PLANNING_COMPLETED` / `EXECUTION_COMPLETED`, the batch count. */
  batchIndex: number;
  /** Batch count when known. */
  totalBatches: number | null;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Details: `taskCount` for `BATCH_PLANNED`; counts, `status` and `skipped` for `BATCH_EXECUTED`; thread totals for `EXECUTION_COMPLETED`. */
  data?: Record<string, unknown>;
  /** True once the pipeline acted on the event. */
  processed: boolean;
  /** When it was marked processed (milliseconds since the epoch). */
  processedAt?: number;
}

/** Where planning stands (the seed's `toolBatch` + `planCompletion`). */
export interface PlanningProgress {
  /** The next batch to plan. */
  nextBatchIndex: number;
  /** Batch count, once known. */
  totalBatches: number | null;
  /** True once no batch follows (the seed's `planCompletion.planningCompleted`). */
  planningCompleted: boolean;
  /** When planning completed (milliseconds since the epoch). */
  completedAt?: number;
}

/** The overall state of a pipeline thread. */
export interface PipelineStatus {
  threadId: string;
  /** Where planning stands. */
  planning: PlanningProgress;
  /** True once `EXECUTION_COMPLETED` is stored. */
  executionCompleted: boolean;
  /** Every batch state, by index. */
  batches: BatchState[];
}

/** How a run ended when it did not throw. */
export type PipelineRunStatus = 'completed' | 'stopped';

/** What `run()`, `runPlanner()` and `runExecutor()` resolve with. */
export interface PipelineRunResult {
  /** `completed`, or `stopped` after `stop()`. */
  status: PipelineRunStatus;
  threadId: string;
  /** Every batch state after the run. */
  batches: BatchState[];
  /** Batches this run planned. */
  plannedBatches: number;
  /** Tasks this run executed (succeeded or failed), not counting ones a previous run recorded. */
  executedTasks: number;
  /** Of those, the ones that failed. */
  failedTasks: number;
  /** Empty batches this run skipped. */
  skippedBatches: number;
  /** Wall time of the run. */
  durationMs: number;
  /** Why a `stopped` run stopped, when it was not `stop()` (a spent budget). */
  reason?: string;
}
