// The `troupe` command line as a library: run it in-process, or reuse its doctor checks.
export { runCli } from './cli-main';
export { type CliIo } from './cli-io';
export { CliError, CliUsageError, EXIT_CODES, exitCodeOfRun, type RunEnding } from './cli-errors';
export {
  AGENT_CLIS,
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
  type RegistryAgentCli,
} from './doctor/detect-environment';
export { MODEL_PROVIDERS, type ModelProviderId } from './doctor/model-providers';
export { formatRegistryReport, inspectRegistry, registryAgentClis, type RegistryEntryReport, type RegistryReport } from './doctor/registry-report';
export { registryCandidates, type RegistryLookup } from './registry/cli-registry';
export {
  createTestRunReview,
  parseTestSummary,
  reviewFromTestRun,
  type TestRunCounts,
  type TestRunReviewOptions,
  type TestRunReviewTexts,
} from './looper/test-run-review';
export { CLI_CATALOGUES, localeFromEnv, parseLocale, type CliCatalogue, type CliLocale } from './i18n/cli-catalogue';
export { englishCliMessages, type CliMessages } from './i18n/cli-messages';
export { simplifiedChineseCliMessages } from './i18n/cli-messages-zh-cn';
export { VERSION } from './version';
