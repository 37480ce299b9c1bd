// The Looper graph (Coder → Review → JUDGE), the JUDGE agent and DevHub (seed 000).
export * from './looper/index';
// How the Looper runs its steps: background tasks with a timeout each (moved here from `@troupe/core`).
export * from './tasks/index';
// Its commands, snapshot, checkpoint store and texts: also the `@troupe/looper/commands` entry, which loads no zod.
export * from './commands/index';
export * from './judge/index';
export * from './devhub/index';

// Deprecated: the AgentLoop's perception, reflection and config-file stages moved to `@troupe/loop-stages` (the
// Looper never used them). These aliases keep the old imports working for one minor version.
import * as loopStages from '@troupe/loop-stages';

/** @deprecated Import `createDedupeProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createDedupeProcessor = loopStages.createDedupeProcessor;
/** @deprecated Import `createClassifyProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createClassifyProcessor = loopStages.createClassifyProcessor;
/** @deprecated Import `defaultClassifyRules` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultClassifyRules = loopStages.defaultClassifyRules;
/** @deprecated Import `sourceMatches` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const sourceMatches = loopStages.sourceMatches;
/** @deprecated Import `createIntentProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createIntentProcessor = loopStages.createIntentProcessor;
/** @deprecated Import `defaultIntents` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultIntents = loopStages.defaultIntents;
/** @deprecated Import `createPriorityProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createPriorityProcessor = loopStages.createPriorityProcessor;
/** @deprecated Import `defaultCategoryScores` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultCategoryScores = loopStages.defaultCategoryScores;
/** @deprecated Import `defaultIntentScores` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultIntentScores = loopStages.defaultIntentScores;
/** @deprecated Import `defaultKeywordBoosts` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultKeywordBoosts = loopStages.defaultKeywordBoosts;
/** @deprecated Import `createFusionProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createFusionProcessor = loopStages.createFusionProcessor;
/** @deprecated Import `createPerceptionStages` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createPerceptionStages = loopStages.createPerceptionStages;
/** @deprecated Import `DedupeOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type DedupeOptions = loopStages.DedupeOptions;
/** @deprecated Import `DedupeProcessor` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type DedupeProcessor = loopStages.DedupeProcessor;
/** @deprecated Import `ClassifyOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type ClassifyOptions = loopStages.ClassifyOptions;
/** @deprecated Import `ClassifyRule` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type ClassifyRule = loopStages.ClassifyRule;
/** @deprecated Import `IntentDefinition` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type IntentDefinition = loopStages.IntentDefinition;
/** @deprecated Import `IntentOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type IntentOptions = loopStages.IntentOptions;
/** @deprecated Import `IntentPattern` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type IntentPattern = loopStages.IntentPattern;
/** @deprecated Import `PriorityOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type PriorityOptions = loopStages.PriorityOptions;
/** @deprecated Import `PriorityWeights` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type PriorityWeights = loopStages.PriorityWeights;
/** @deprecated Import `FusionOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type FusionOptions = loopStages.FusionOptions;
/** @deprecated Import `PerceptionStagesOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type PerceptionStagesOptions = loopStages.PerceptionStagesOptions;

/** @deprecated Import `createReflectionMemory` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createReflectionMemory = loopStages.createReflectionMemory;
/** @deprecated Import `createFailureAnalysisReflector` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const createFailureAnalysisReflector = loopStages.createFailureAnalysisReflector;
/** @deprecated Import `defaultFailureCauseRules` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const defaultFailureCauseRules = loopStages.defaultFailureCauseRules;
/** @deprecated Import `diagnoseFailure` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const diagnoseFailure = loopStages.diagnoseFailure;
/** @deprecated Import `taskSimilarity` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const taskSimilarity = loopStages.taskSimilarity;
/** @deprecated Import `taskTerms` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const taskTerms = loopStages.taskTerms;
/** @deprecated Import `termVector` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const termVector = loopStages.termVector;
/** @deprecated Import `ReflectionMemory` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type ReflectionMemory = loopStages.ReflectionMemory;
/** @deprecated Import `ReflectionMemoryOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type ReflectionMemoryOptions = loopStages.ReflectionMemoryOptions;
/** @deprecated Import `FailureAnalysisOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type FailureAnalysisOptions = loopStages.FailureAnalysisOptions;
/** @deprecated Import `FailureCauseRule` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type FailureCauseRule = loopStages.FailureCauseRule;
/** @deprecated Import `FailureDiagnosis` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type FailureDiagnosis = loopStages.FailureDiagnosis;

/** @deprecated Import `loadLoopConfig` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const loadLoopConfig = loopStages.loadLoopConfig;
/** @deprecated Import `loopConfigFileNames` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export const loopConfigFileNames = loopStages.loopConfigFileNames;
/** @deprecated Import `LoadedLoopConfig` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type LoadedLoopConfig = loopStages.LoadedLoopConfig;
/** @deprecated Import `LoadLoopConfigOptions` from `@troupe/loop-stages`; this alias goes in the next minor version. */
export type LoadLoopConfigOptions = loopStages.LoadLoopConfigOptions;
