// The Sense-Plan-Act-Reflect agent loop (seed 002); re-exported from the package root.
export { AgentLoop, type AgentLoopOptions, type LoopControlOptions, type LoopState, type LoopStepOptions } from './agent-loop';
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
export { validateLoopStage } from './loop-stage-registry';
export { toLoopTool } from './loop-tool-from-tool';
export { silentLoopLogger, type LoopLogger } from './loop-logger';
export {
  adaptiveIntervalSeconds,
  defaultAdaptiveInterval,
  resolveLoopInterval,
  type AdaptiveIntervalOptions,
  type LoopIntervalPolicy,
  type LoopIntervalSetting,
} from './loop-interval';
export { loopConfigSchema, parseLoopConfig, type LoopConfig } from './loop-config';
export { loopBackoffMs, resolveLoopHealth, type LoopHealthAction, type LoopHealthOptions, type LoopRecoverContext, type ResolvedLoopHealth } from './loop-health';
export type { DurationStats, IterationTiming, LoopStats, LoopStatsTotals } from './loop-stats';
export { StoreLoopMemory, type StoreLoopMemoryOptions } from './loop-memory';
export { loopStateNamespace, type LoopStateSnapshot } from './loop-state-snapshot';
export { defaultLoopReflector, type ReflectResult } from './reflect-loop-result';
export { summarizeForEvent, type LoopJsonValue, type SummarizeOptions } from './summarize-for-event';
export { loopEventSchemas, loopIterationOutcomeSchema, loopPhaseSchema, loopStateSchema } from './loop-event-schemas';
