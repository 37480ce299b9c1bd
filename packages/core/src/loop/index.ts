// The loop stage contract (seed 002): what a sensor, perception processor, planner, tool, reflector or
// memory implements, the values they exchange, and the loop's event contracts; re-exported from the
// package root. The loop runner (`AgentLoop`) is in `@troupe/core/agent-loop`.
export type { Action, ActionExecutionPlan, ActResult, ToolCall, ToolCallResult, ToolCallStatus } from './loop-action';
export type {
  Experience,
  ExperienceInput,
  ExperienceOutcome,
  ExperienceQuery,
  LoopMemory,
  LoopMemoryCallOptions,
  LoopMemoryReader,
} from './loop-experience';
export type { Perception, PerceptionInput, PerceptionIntent } from './loop-perception';
export {
  loopStageMethods,
  type LoopContext,
  type LoopMemoryStage,
  type LoopPhase,
  type LoopPlanner,
  type LoopReflector,
  type LoopSensor,
  type LoopStage,
  type LoopStageBase,
  type LoopStageSetupContext,
  type LoopTool,
  type LoopToolContext,
  type LoopToolInfo,
  type PerceptionProcessor,
  type ToolCapability,
} from './loop-stage';
export { silentLoopLogger, type LoopLogger } from './loop-logger';
export { loopEventSchemas, loopIterationOutcomeSchema, loopPhaseSchema, loopStateSchema } from './loop-event-schemas';
