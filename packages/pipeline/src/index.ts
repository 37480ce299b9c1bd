// @troupe/pipeline: the planner/executor batch pipeline of seed 003 (PlanAgent/TestAgent), serial or concurrent, over core's Store and EventBus.
export { BatchPipeline, createBatchPipeline, type BatchPipelineOptions, type PipelineRunOptions } from './create-batch-pipeline';
export type {
  BatchEventRecord,
  BatchEventType,
  BatchState,
  BatchStatus,
  ExecuteTaskContext,
  ExecuteTaskFunction,
  PipelineExecutor,
  PipelineMode,
  PipelinePlanner,
  PipelineRunResult,
  PipelineRunStatus,
  PipelineStatus,
  PlanBatchContext,
  PlanBatchFunction,
  PlanBatchResult,
  PlannedBatch,
  PlanningProgress,
  TaskFailureDecision,
  TaskFailureInfo,
  TaskFailurePolicy,
  TaskRecord,
} from './pipeline-types';
export { BatchStateManager, type BatchStateUpdate } from './batch-state-manager';
export { BatchEventLog, type BatchEventInput } from './batch-event-log';
export { PipelineError, type PipelineErrorDetails, type PipelineErrorKind } from './pipeline-error';
export { pipelineEventSchemas, pipelineRoleSchema, registerPipelineEvents, type PipelineEventPayloads } from './pipeline-events';
export { BATCH_EVENT_TYPES, type ThreadLayout } from './pipeline-store-layout';
export {
  defaultTaskPrompt,
  executorFromAgent,
  executorFromAgentMember,
  parsePlannedBatch,
  plannedBatchAnswerSchema,
  plannerFromAgent,
  plannerFromAgentMember,
  type AgentExecutorOptions,
  type AgentMemberOptions,
  type AgentPlannerOptions,
  type AgentTaskResult,
} from './pipeline-agent-adapters';
export { executorFromModel, plannerFromModel, type ModelExecutorOptions, type ModelPlannerOptions, type ModelTaskResult } from './pipeline-model-adapters';
