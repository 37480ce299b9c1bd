// looper area of @troupe/looper: the Looper graph agent (Coder → Review → JUDGE), its schemas and events; its commands,
// state, checkpoint store and texts are in ../commands (the zod-free `@troupe/looper/commands` entry).
export { Looper } from './looper';
export type { CoderPromptInput, LooperAdapterMember, LooperMember, LooperOptions, LooperReply, LooperStepTimeouts, LooperWorkspaceResult, LooperWorkspaceSetup } from './looper-options';
export { mergeLooperWorkspace, type LooperMergeConflict, type LooperMergeOutcome, type LooperMergeStrategy } from './looper-workspace-merge';
export { looperCommandSchema } from './looper-command-schema';
export {
  looperEventSchemas,
  looperRunOutcomeSchema,
  looperStateSchema,
  looperStepSchema,
  registerLooperEvents,
  type LooperEventPayloads,
} from './looper-events';
export { AUTO_PREFIX, formatLooperStatus } from './looper-messages';
export {
  buildReviewPrompt,
  formatReviewReport,
  parseReviewReport,
  reviewFindingSchema,
  reviewHealthSchema,
  reviewReportSchema,
  type ParsedReviewReport,
  type ReviewFinding,
  type ReviewHealth,
  type ReviewPromptInput,
  type ReviewReport,
} from './looper-review-report';
export { looperSnapshotSchema, looperWorkspaceSchema } from './looper-state-schema';
export {
  classifyStepFailure,
  truncateText,
  type LooperStepResult,
  type ReviewStepResult,
  type StepFailureKind,
} from './looper-step-result';
