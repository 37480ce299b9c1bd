// Perception processors (seed 002: dedupe, classify, intent, priority, fusion); re-exported from the package root.
export { createDedupeProcessor, type DedupeOptions, type DedupeProcessor } from './perception-dedupe';
export { createClassifyProcessor, defaultClassifyRules, sourceMatches, type ClassifyOptions, type ClassifyRule } from './perception-classify';
export { createIntentProcessor, defaultIntents, type IntentDefinition, type IntentOptions, type IntentPattern } from './perception-intent';
export {
  createPriorityProcessor,
  defaultCategoryScores,
  defaultIntentScores,
  defaultKeywordBoosts,
  type PriorityOptions,
  type PriorityWeights,
} from './perception-priority';
export { createFusionProcessor, type FusionOptions } from './perception-fusion';
export { createPerceptionStages, type PerceptionStagesOptions } from './perception-stages';
