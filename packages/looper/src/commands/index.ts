// `@troupe/looper/commands`: what answers a Looper command from a checkpoint — parsing commands, the snapshot
// and its changes, the checkpoint store and the texts — without the Looper runtime. zod loads only when a
// checkpoint is read (to check it) or a command is refused (to say why), so `status` on a new workspace starts fast.
export {
  LOOPER_COMMAND_TYPES,
  LOOPER_COMMAND_USAGE,
  parseLooperCommand,
  type LooperCommand,
  type ParseLooperCommandResult,
} from '../looper/parse-looper-command';
export {
  addPending,
  continueRun,
  createLooperSnapshot,
  finishRun,
  recordCoderResult,
  recordReviewResult,
  recordWorkspace,
  requestStop,
  startRun,
  type LooperRunOutcome,
  type LooperSnapshot,
  type LooperState,
  type LooperStep,
  type LooperWorkspace,
} from '../looper/looper-state';
export { createLooperStateStore, type LooperHistoryEntry, type LooperStateStore, type LooperStateStoreOptions } from '../looper/looper-state-store';
export { englishLooperTexts, STATUS_PENDING_SHOWN, type LooperCommandTexts, type LooperTexts, type LooperWorkspaceTexts, type RuleJudgeTexts } from '../looper/looper-texts';
export { simplifiedChineseLooperTexts } from '../looper/looper-texts-zh-cn';
export { englishDevHubTexts, simplifiedChineseDevHubTexts, type DevHubTexts } from '../devhub/devhub-texts';
