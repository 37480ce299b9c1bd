// @troupe/queue-bullmq: Looper runs, pipeline tasks and orchestrator sub-agents on worker processes, over BullMQ and Redis.
export { DEFAULT_QUEUE_PREFIX, redactUrl, type QueueConnection } from './queue-connection';
export { RedisStore, type RedisStoreOptions } from './redis-store';
export { queueEventSchemas, registerQueueEvents, type QueueEventPayloads } from './queue-events';
export type { QueueJobContext, QueueJobData, QueueJobHandler } from './queue-job';
export {
  QueueError,
  queueFailureMessages,
  type GitUrlRefusalRule,
  type QueueFailureCode,
  type QueueFailureParams,
  type QueueFailureTexts,
  type QueueFolderField,
} from './queue-error';
export { createQueueWorker, type QueueWorker, type QueueWorkerOptions } from './queue-worker';
export {
  assertNoSecretInPayload,
  createQueueClient,
  QueueJobError,
  type QueueBackoff,
  type QueueClient,
  type QueueClientOptions,
  type QueuedJob,
  type SubmitOptions,
} from './queue-client';
export {
  createLooperJobHandler,
  LOOPER_QUEUE,
  looperJobNamespace,
  looperJobSpecSchema,
  looperJobStateStore,
  type LooperJobEnvironment,
  type LooperJobHandlerOptions,
  type LooperJobResult,
  type LooperJobSpec,
} from './looper-job';
export { looperWorkspaceSchema, type JobRepositoryOptions, type JobRepositorySpec } from './queue-job-repository';
export { QueuedLooper, submitLooperJob, type QueuedLooperOptions } from './queued-looper';
export { DEFAULT_MAX_RESULT_BYTES, type JobChangeFormat, type JobWorkspaceResult, type QueueIsolation } from './queue-job-workspace';
export { applyJobResult, readOriginCheckout, type AppliedJobResult, type ApplyJobResultOptions } from './queue-apply-job-result';
export type { JobWorkspaceGcReport } from './queue-workspace-gc';
export { gitUrlKind, type GitUrlKind } from './queue-git-clone';
export {
  createPipelineTaskJobHandler,
  createQueuedPipelineExecutor,
  PIPELINE_QUEUE,
  pipelineTaskJobSchema,
  type PipelineTaskEnvironment,
  type PipelineTaskJob,
} from './pipeline-job';
export {
  createQueuedForkAgentsTool,
  createSubAgentJobHandler,
  SUB_AGENT_QUEUE,
  subAgentJobSchema,
  type SubAgentEnvironment,
  type SubAgentJob,
  type SubAgentJobResult,
} from './sub-agent-job';
export {
  applyBestOfNAttempt,
  BEST_OF_N_QUEUE,
  bestOfNAttemptJobSchema,
  createBestOfNAttemptJobHandler,
  submitBestOfNAttempt,
  type BestOfNAttemptJob,
  type BestOfNAttemptJobHandlerOptions,
  type BestOfNAttemptJobResult,
} from './best-of-n-attempt-job';
export {
  createEvalTrialJobHandler,
  EVAL_QUEUE,
  evalTrialJobSchema,
  submitEvalTrial,
  type EvalTrialJob,
  type EvalTrialJobHandlerOptions,
} from './eval-trial-job';
export { createQueuedEvalTrialRunner, type QueuedEvalTrialRunnerOptions } from './eval-trial-runner';
export {
  createQueuedBestOfNRunner,
  type QueuedBestOfNRunner,
  type QueuedBestOfNRunnerOptions,
  type QueuedBestOfNTurnRequest,
} from './best-of-n-queued-runner';
