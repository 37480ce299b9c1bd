// The `troupe` command line as a library: run it in-process, or reuse its doctor checks.
export { runCli } from './cli-main';
export { type CliIo } from './cli-io';
export { CliError, CliUsageError, EXIT_CODES } from './cli-errors';
export {
  AGENT_CLIS,
  MODEL_PROVIDERS,
  compareVersions,
  detectEnvironment,
  findExecutable,
  formatEnvironmentReport,
  type AgentCliId,
  type AgentCliReport,
  type DemoPlan,
  type DetectEnvironmentOptions,
  type EnvironmentReport,
  type ModelKeyReport,
  type ModelProviderId,
} from './doctor/detect-environment';
export { createTestRunReview, parseTestSummary, reviewFromTestRun, type TestRunCounts, type TestRunReviewOptions } from './looper/test-run-review';
export { VERSION } from './version';
