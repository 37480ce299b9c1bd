// `@troupe/core/process-groups`: process groups started by AgentProcess and the records of live ones, so a
// later process can find and stop what an earlier one left running (no process runner, no zod loaded).
export {
  isGroupAlive,
  terminateProcessGroup,
  trackedProcessGroupCount,
  trackedProcessGroups,
  trackProcessGroup,
  untrackProcessGroup,
} from './kill-process-group';
export { liveProcesses, stopLeftoverProcesses, watchLiveProcesses, type LiveProcessRecord } from './live-processes';
export { RUN_TOKEN_ENV, sweepRunTokens } from './process-sweep';
