// `@troupe/core/agent-loop`: the Sense-Plan-Act-Reflect loop runner (seed 002) — `AgentLoop`, its
// interval and config, the store-backed memory, and its monitoring (health, watchdog, stats) in
// `monitoring/`. The stage contract it runs (`LoopSensor`, `LoopPlanner`…) is in the package root.
export { AgentLoop, type AgentLoopOptions, type LoopControlOptions, type LoopState, type LoopStepOptions } from './agent-loop';
export { validateLoopStage } from './loop-stage-set';
export { toLoopTool } from './loop-tool-from-tool';
export {
  adaptiveIntervalSeconds,
  defaultAdaptiveInterval,
  resolveLoopInterval,
  type AdaptiveIntervalOptions,
  type LoopIntervalPolicy,
  type LoopIntervalSetting,
} from './loop-interval';
export { loopConfigSchema, parseLoopConfig, type LoopConfig } from './loop-config';
export {
  loopBackoffMs,
  resolveLoopHealth,
  type LoopHealthAction,
  type LoopHealthOptions,
  type LoopRecoverContext,
  type ResolvedLoopHealth,
} from './monitoring/loop-health';
export type { DurationStats, IterationTiming, LoopStats, LoopStatsTotals } from './monitoring/loop-stats';
export { StoreLoopMemory, type StoreLoopMemoryOptions } from './loop-memory';
export { loopStateNamespace, type LoopStateSnapshot } from './loop-state-snapshot';
export { defaultLoopReflector, type ReflectResult } from './reflect-loop-result';
export { summarizeForEvent, type LoopJsonValue, type SummarizeOptions } from './summarize-for-event';
