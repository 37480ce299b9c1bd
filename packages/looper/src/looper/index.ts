// looper area of @troupe/looper: the Looper graph agent (Coder → Review → JUDGE), its commands, state and events.
export { Looper } from './looper-agent';
export type { CoderPromptInput, LooperAdapterMember, LooperMember, LooperOptions, LooperReply, LooperStepTimeouts } from './looper-options';
export {
  LOOPER_COMMAND_TYPES,
  LOOPER_COMMAND_USAGE,
  looperCommandSchema,
  parseLooperCommand,
  type LooperCommand,
  type ParseLooperCommandResult,
} from './looper-command';
export {
  looperEventSchemas,
  looperRunOutcomeSchema,
  looperStateSchema,
  looperStepSchema,
  registerLooperEvents,
  type LooperEventPayloads,
} from './looper-events';
export { AUTO_PREFIX, formatLooperStatus } from './looper-messages';
export { englishLooperTexts, STATUS_PENDING_SHOWN, type LooperCommandTexts, type LooperTexts, type RuleJudgeTexts } from './looper-texts';
export { simplifiedChineseLooperTexts } from './looper-texts-zh-cn';
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
export {
  addPending,
  continueRun,
  createLooperSnapshot,
  finishRun,
  looperSnapshotSchema,
  recordCoderResult,
  recordReviewResult,
  requestStop,
  startRun,
  type LooperRunOutcome,
  type LooperSnapshot,
  type LooperState,
  type LooperStep,
} from './looper-state';
export {
  createLooperStateStore,
  type LooperHistoryEntry,
  type LooperStateStore,
  type LooperStateStoreOptions,
} from './looper-state-store';
export {
  classifyStepFailure,
  truncateText,
  type LooperStepResult,
  type ReviewStepResult,
  type StepFailureKind,
} from './looper-step-result';
