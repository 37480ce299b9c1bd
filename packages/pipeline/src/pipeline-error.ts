import { TroupeError, type TroupeErrorOptions } from '@troupe/core';

const PIPELINE_ERROR_MARKER = Symbol.for('troupe.pipeline-error');

/**
 * What went wrong: the store failed (`store`), a stored record is not what
 * the pipeline wrote (`corrupt-state`), the planner failed or returned
 * something unusable (`planner`), or a task failed under the `stop` policy
 * (`task`).
 */
export type PipelineErrorKind = 'store' | 'corrupt-state' | 'planner' | 'task';

/** Where a {@link PipelineError} happened. */
export interface PipelineErrorDetails extends TroupeErrorOptions {
  kind: PipelineErrorKind;
  /** The pipeline thread that failed. */
  threadId: string;
  /** The batch concerned, when there is one. */
  batchIndex?: number;
  /** The task concerned, when there is one. */
  taskIndex?: number;
  taskId?: string;
  /** For store errors: the store call that failed, e.g. `put [pipeline, t1, batch-states] batch-state-00000003`. */
  operation?: string;
}

/**
 * A run of a batch pipeline failed. The run rejects with it; the stored
 * state stays as it was after the last successful write, so the run can be
 * resumed once the cause is fixed. `code` is `INVALID_STATE` for store and
 * corrupt-state errors, `AGENT_ERROR` for planner and task failures; `kind`
 * says which.
 *
 * @example
 * ```ts
 * try { await pipeline.run(); }
 * catch (error) {
 *   if (PipelineError.isInstance(error) && error.kind === 'task') console.log(`task ${error.taskId} failed`, error.cause);
 * }
 * ```
 */
export class PipelineError extends TroupeError {
  private readonly [PIPELINE_ERROR_MARKER] = true;
  /** What failed: `store`, `corrupt-state`, `planner` or `task`. */
  readonly kind: PipelineErrorKind;
  /** The pipeline thread that failed. */
  readonly threadId: string;
  /** The batch concerned, when there is one. */
  readonly batchIndex: number | undefined;
  /** The task concerned, when there is one. */
  readonly taskIndex: number | undefined;
  readonly taskId: string | undefined;
  /** For store errors: the store call that failed. */
  readonly operation: string | undefined;

  constructor(message: string, details: PipelineErrorDetails) {
    super(details.kind === 'store' || details.kind === 'corrupt-state' ? 'INVALID_STATE' : 'AGENT_ERROR', message, details);
    this.name = 'PipelineError';
    this.kind = details.kind;
    this.threadId = details.threadId;
    this.batchIndex = details.batchIndex;
    this.taskIndex = details.taskIndex;
    this.taskId = details.taskId;
    this.operation = details.operation;
  }

  /** True for a PipelineError from any copy of `@troupe/pipeline`. */
  static override isInstance(error: unknown): error is PipelineError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[PIPELINE_ERROR_MARKER] === true;
  }
}
