// `@troupe/eval`: measure what agents achieve. Task suites with hidden tests, trials in isolated workspaces,
// pass rates with confidence intervals, paired comparisons, and reports.
export { evalTaskFileSchema, type EvalSuite, type EvalTask, type EvalTaskError, type EvalTaskFile } from './eval-task';
export { loadEvalSuite, loadEvalTask, type LoadEvalSuiteOptions } from './eval-task-loader';
export { exactMcNemar, passAtK, perSolved, signTestPValue, wilsonInterval, Z_95, type PairedComparison, type ProportionInterval } from './eval-statistics';
export { builtInEvalModes, runEval, type EvalRun, type RunEvalOptions } from './eval-run';
export type { EvalAgent, EvalMode, EvalModeContext, EvalModeOutcome, EvalModeRun } from './eval-mode';
export { singleMode } from './eval-mode-single';
export { createLooperEvalMode, looperMode, type LooperEvalModeOptions } from './eval-mode-looper';
export { bestOfNMode, createBestOfNEvalMode, type BestOfNEvalModeOptions } from './eval-mode-best-of-n';
export { evalSelectionSchema, evalTrialRecordSchema, type EvalSelection, type EvalTrialKey, type EvalTrialRecord } from './eval-trial-record';
export { runEvalTrial, type EvalTrialInput, type EvalTrialRunner } from './eval-trial';
export type { EvalHiddenTestsCopier } from './eval-grade';
export type { EvalTaskRepo } from './eval-task-repo';
export {
  buildEvalReport,
  EVAL_REPORT_SCHEMA,
  evalComparisonSchema,
  evalConfigurationSummarySchema,
  evalReportSchema,
  type BuildEvalReportOptions,
  type EvalComparison,
  type EvalConfigurationSummary,
  type EvalReport,
} from './eval-report';
export { evalReportMarkdown } from './eval-report-markdown';
export { evalReportHtml } from './eval-report-html';
export { importSweBench, SWE_BENCH_TEST_PATCH, sweBenchInstanceSchema, type ImportSweBenchOptions, type ImportSweBenchResult, type SweBenchInstance } from './eval-swe-bench';
