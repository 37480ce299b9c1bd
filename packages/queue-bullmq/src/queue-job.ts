import type { EventBus, Store } from '@troupe/core';

/**
 * What every job carries besides its payload. Only names and plain data: no
 * secret ever travels in a job (API keys stay in the workers' env or registry).
 */
export interface QueueJobData<P = unknown> {
  /** Which handler runs it (`looper`, `pipeline-task`, `sub-agent`…). */
  kind: string;
  payload: P;
  /** The stream the job's events go to (its origin's). */
  eventStream: string;
}

/** What a handler gets to run one attempt of a job on a worker. */
export interface QueueJobContext {
  queue: string;
  /** Stable across retries: use it for checkpoint keys and work folders. */
  jobId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** True when an earlier attempt started (after a crash, a stall or a failure): resume from the checkpoint. */
  resumed: boolean;
  workerId: string;
  /** Events emitted here reach the origin's bus, in order. */
  eventBus: EventBus;
  /** Durable storage shared by every worker (Redis): checkpoints go here. */
  store: Store;
  /** Aborts when the origin cancels the job, the worker is shut down, or the run lease is lost. */
  signal: AbortSignal;
  /** Commands sent from the origin (`stop`, `add_pending`, `status`…); returns an unsubscribe function. */
  onCommand(listener: (input: string) => void): () => void;
}

/**
 * Runs one kind of job on a worker. `parse` validates the payload (a bad one
 * fails the job at once, without retries); `run` does the work and returns a
 * JSON result, which BullMQ keeps with the job.
 */
export interface QueueJobHandler<P = unknown, R = unknown> {
  kind: string;
  parse(payload: unknown): P;
  run(payload: P, context: QueueJobContext): Promise<R>;
  /**
   * Called once when the worker starts, before it takes a job: cleans up what a killed worker left (e.g. the job
   * workspaces of a `kill -9`). A failure is reported on the worker's `ready` and does not stop the worker.
   */
  start?(context: { workerId: string; signal: AbortSignal }): Promise<void>;
}
