// Reflection for the AgentLoop (seed 002: experiences, failure analysis, memory); re-exported from the package root.
export { createReflectionMemory, type ReflectionMemory, type ReflectionMemoryOptions } from './reflection-memory';
export {
  createFailureAnalysisReflector,
  defaultFailureCauseRules,
  diagnoseFailure,
  type FailureAnalysisOptions,
  type FailureCauseRule,
  type FailureDiagnosis,
} from './reflection-failure-analysis';
export { taskSimilarity, taskTerms, termVector } from './reflection-similarity';
