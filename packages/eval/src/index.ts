// `@troupe/eval`: measure what agents achieve. Task suites with hidden tests, trials in isolated workspaces,
// pass rates with confidence intervals, paired comparisons, and reports.
export { evalTaskFileSchema, type EvalSuite, type EvalTask, type EvalTaskError, type EvalTaskFile } from './eval-task';
export { loadEvalSuite, loadEvalTask, type LoadEvalSuiteOptions } from './eval-task-loader';
export { exactMcNemar, passAtK, perSolved, signTestPValue, wilsonInterval, Z_95, type PairedComparison, type ProportionInterval } from './eval-statistics';
