// Background tasks (seed 000 `TaskManager`): how the Looper runs its steps; re-exported from the package root.
export {
  TaskEmitter,
  TaskManager,
  waitForCompletion,
  type BackgroundTask,
  type BackgroundTaskStatus,
  type StartBackgroundOptions,
  type TaskEvents,
  type TaskManagerOptions,
} from './task-manager';
