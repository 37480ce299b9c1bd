import type { CliOptionHelpKey } from '../i18n/cli-help-texts';
import type { CliOptionSpec } from './parse-cli-args';

/**
 * One option a command accepts, with the key of its description in the help
 * catalogue (`i18n/cli-help-texts*.ts`), so `--help` says it in the user's
 * language. An option without one is accepted but not shown (a compatibility
 * spelling).
 */
export interface CliCommandOption extends CliOptionSpec {
  help?: CliOptionHelpKey;
}

const HELP: CliCommandOption = { name: 'help', short: 'h', type: 'boolean', help: 'help' };
const WORKSPACE: CliCommandOption = { name: 'workspace', short: 'w', type: 'string', value: 'DIR', help: 'workspace' };
const NEW_SESSION: CliCommandOption = { name: 'newsession', type: 'boolean', help: 'newSession' };
const AUTO_ALLOW: CliCommandOption = { name: 'auto-allow', type: 'boolean', help: 'autoAllow' };
const MCP: CliCommandOption = { name: 'mcp', type: 'string', value: 'FILE', help: 'mcp' };
const REGISTRY: CliCommandOption = { name: 'registry', type: 'string', value: 'FILE', help: 'registry' };
const POLICY: CliCommandOption = { name: 'policy', type: 'string', value: 'FILE', help: 'policy' };
const CODER: CliCommandOption = { name: 'coder', type: 'string', value: 'AGENT', help: 'coder' };
const REVIEWER: CliCommandOption = { name: 'reviewer', type: 'string', value: 'AGENT', help: 'reviewer' };
const MODEL: CliCommandOption = { name: 'model', type: 'string', value: 'PROVIDER[:MODEL]', help: 'model' };
const JUDGE: CliCommandOption = { name: 'judge', type: 'string', value: 'rules|model', help: 'judge' };
const MAX_ITERATIONS: CliCommandOption = { name: 'max-iterations', type: 'string', value: 'N', help: 'maxIterations' };
const TEST_COMMAND: CliCommandOption = { name: 'test-command', type: 'string', value: 'COMMAND', help: 'testCommand' };
const GIT: CliCommandOption = { name: 'git', type: 'string', value: 'URL', help: 'git' };

/** Options of the Looper that DevHub starts (`troupe devhub`, and the interactive session). */
const DEVHUB_LOOPER_OPTIONS: readonly CliCommandOption[] = [
  CODER,
  REVIEWER,
  REGISTRY,
  { ...MAX_ITERATIONS, help: 'devhubMaxIterations' },
  JUDGE,
  TEST_COMMAND,
  { name: 'step-timeout', type: 'string', value: 'SECONDS', help: 'devhubStepTimeout' },
  MCP,
];

/** Options of `troupe looper`. */
export const LOOPER_OPTIONS: readonly CliCommandOption[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'COMMAND', help: 'looperPrompt' },
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  CODER,
  { name: 'attempts', type: 'string', value: 'AGENT:N,…', help: 'looperAttempts' },
  REVIEWER,
  REGISTRY,
  POLICY,
  MAX_ITERATIONS,
  JUDGE,
  MODEL,
  { ...TEST_COMMAND, help: 'looperTestCommand' },
  { name: 'step-timeout', type: 'string', value: 'SECONDS', help: 'looperStepTimeout' },
  MCP,
  { name: 'queue', type: 'string', value: 'REDIS_URL', help: 'looperQueue' },
  { name: 'job', type: 'string', value: 'ID', help: 'looperJob' },
  GIT,
  { name: 'isolate', type: 'string', value: 'worktree|none', help: 'looperIsolate' },
  { name: 'merge', type: 'string', value: 'merge|rebase|squash', help: 'looperMerge' },
  // Seed 000 spelling: `troupe --looper -p …` selects this command.
  { name: 'looper', type: 'boolean' },
  HELP,
];

/** Options of `troupe devhub`. */
export const DEVHUB_OPTIONS: readonly CliCommandOption[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'TEXT', help: 'devhubPrompt' },
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  MODEL,
  ...DEVHUB_LOOPER_OPTIONS,
  // Seed 000 spelling: `troupe --devhub -p …` selects this command.
  { name: 'devhub', type: 'boolean' },
  HELP,
];

/** Options of `troupe doctor`. */
export const DOCTOR_OPTIONS: readonly CliCommandOption[] = [{ name: 'json', type: 'boolean', help: 'doctorJson' }, REGISTRY, { ...WORKSPACE, help: 'doctorWorkspace' }, HELP];

/** Options of `troupe migrate-registry`. */
export const MIGRATE_OPTIONS: readonly CliCommandOption[] = [{ name: 'dry-run', type: 'boolean', help: 'dryRun' }, HELP];

/** Options of `troupe team`. */
export const TEAM_OPTIONS: readonly CliCommandOption[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'TEXT', help: 'teamPrompt' },
  WORKSPACE,
  { name: 'config', type: 'string', value: 'FILE', help: 'teamConfig' },
  { name: 'from', type: 'string', value: 'MEMBER', help: 'teamFrom' },
  { name: 'to', type: 'string', value: 'MEMBER', help: 'teamTo' },
  { name: 'isolate', type: 'string', value: 'MODE', help: 'teamIsolate' },
  REGISTRY,
  POLICY,
  AUTO_ALLOW,
  HELP,
];

/** Options of `troupe usage`. */
export const USAGE_OPTIONS: readonly CliCommandOption[] = [{ ...WORKSPACE, help: 'usageWorkspace' }, { name: 'json', type: 'boolean', help: 'usageJson' }, HELP];

/** Where `troupe approvals|approve|deny` read and write: the workspace's store, or a SQLite file. */
const APPROVAL_STORE_OPTIONS: readonly CliCommandOption[] = [
  { ...WORKSPACE, help: 'approvalsWorkspace' },
  { name: 'store', type: 'string', value: 'FILE', help: 'approvalsStore' },
];

/** Options of `troupe eval`. */
export const EVAL_OPTIONS: readonly CliCommandOption[] = [
  { name: 'suite', type: 'string', value: 'DIR', help: 'evalSuite' },
  { name: 'agents', type: 'string', value: 'A,B', help: 'evalAgents' },
  { name: 'modes', type: 'string', value: 'A,B', help: 'evalModes' },
  { name: 'trials', type: 'string', value: 'N', help: 'evalTrials' },
  { name: 'attempts', type: 'string', value: 'N', help: 'evalAttempts' },
  { name: 'rounds', type: 'string', value: 'N', help: 'evalRounds' },
  { name: 'concurrency', type: 'string', value: 'N', help: 'evalConcurrency' },
  { name: 'out', type: 'string', value: 'DIR', help: 'evalOut' },
  { name: 'queue', type: 'string', value: 'URL', help: 'evalQueue' },
  HELP,
];

/** Options of `troupe approvals`. */
export const APPROVALS_OPTIONS: readonly CliCommandOption[] = [...APPROVAL_STORE_OPTIONS, { name: 'json', type: 'boolean', help: 'approvalsJson' }, HELP];

/** Options of `troupe approve ID`. */
export const APPROVE_OPTIONS: readonly CliCommandOption[] = [
  ...APPROVAL_STORE_OPTIONS,
  { name: 'reason', type: 'string', value: 'TEXT', help: 'approveReason' },
  { name: 'by', type: 'string', value: 'NAME', help: 'approvalBy' },
  HELP,
];

/** Options of `troupe deny ID`. */
export const DENY_OPTIONS: readonly CliCommandOption[] = [
  ...APPROVAL_STORE_OPTIONS,
  { name: 'reason', type: 'string', value: 'TEXT', help: 'denyReason' },
  { name: 'by', type: 'string', value: 'NAME', help: 'approvalBy' },
  HELP,
];

/** Options of `troupe workspaces list|gc`. */
export const WORKSPACES_OPTIONS: readonly CliCommandOption[] = [{ name: 'repo', type: 'string', value: 'DIR', help: 'workspacesRepo' }, { name: 'spares', type: 'boolean', help: 'workspacesSpares' }, HELP];

/** Options of `troupe worker`. */
export const WORKER_OPTIONS: readonly CliCommandOption[] = [
  { name: 'redis', type: 'string', value: 'URL', help: 'workerRedis' },
  { name: 'concurrency', type: 'string', value: 'N', help: 'workerConcurrency' },
  { name: 'queues', type: 'string', value: 'A,B', help: 'workerQueues' },
  { ...CODER, help: 'workerCoder' },
  { ...WORKSPACE, help: 'workerWorkspace' },
  MODEL,
  REGISTRY,
  AUTO_ALLOW,
  TEST_COMMAND,
  { name: 'work-dir', type: 'string', value: 'DIR', help: 'workerWorkDir' },
  { name: 'allow-root', type: 'string', value: 'DIR', repeatable: true, help: 'workerAllowRoot' },
  { name: 'allow-local-git', type: 'boolean', help: 'workerAllowLocalGit' },
  { name: 'clone-timeout', type: 'string', value: 'SECONDS', help: 'workerCloneTimeout' },
  HELP,
];

/** Options of `troupe submit`. */
export const SUBMIT_OPTIONS: readonly CliCommandOption[] = [
  { name: 'redis', type: 'string', value: 'URL', help: 'submitRedis' },
  { name: 'prompt', short: 'p', type: 'string', value: 'TASK', help: 'submitPrompt' },
  { ...WORKSPACE, help: 'submitWorkspace' },
  GIT,
  { name: 'ref', type: 'string', value: 'REF', help: 'submitRef' },
  { ...CODER, help: 'submitCoder' },
  { ...REVIEWER, help: 'submitReviewer' },
  { ...JUDGE, value: 'rules|PROVIDER[:MODEL]', help: 'submitJudge' },
  MAX_ITERATIONS,
  { name: 'step-timeout', type: 'string', value: 'SECONDS', help: 'submitStepTimeout' },
  { name: 'attempts', type: 'string', value: 'N', help: 'submitAttempts' },
  { name: 'wait', type: 'boolean', help: 'submitWait' },
  { name: 'isolate', type: 'string', value: 'worktree', help: 'submitIsolate' },
  { name: 'no-apply', type: 'boolean', help: 'submitNoApply' },
  HELP,
];

/** Options of `troupe best-of-n`. */
export const BEST_OF_N_OPTIONS: readonly CliCommandOption[] = [
  { name: 'task', short: 'p', type: 'string', value: 'TEXT', help: 'bestOfNTask' },
  { name: 'attempts', type: 'string', value: 'AGENT:N,…', help: 'bestOfNAttempts' },
  { name: 'select', type: 'string', value: 'tests|judge', help: 'bestOfNSelect' },
  { name: 'test-cmd', type: 'string', value: 'COMMAND', help: 'bestOfNTestCmd' },
  { name: 'first-pass', type: 'boolean', help: 'bestOfNFirstPass' },
  { name: 'concurrency', type: 'string', value: 'N', help: 'bestOfNConcurrency' },
  { name: 'max-cost', type: 'string', value: 'USD', help: 'bestOfNMaxCost' },
  { name: 'judge-agent', type: 'string', value: 'AGENT', help: 'bestOfNJudgeAgent' },
  { ...MODEL, help: 'bestOfNModel' },
  { ...WORKSPACE, help: 'bestOfNWorkspace' },
  { name: 'queue', type: 'string', value: 'REDIS_URL', help: 'bestOfNQueue' },
  { ...GIT, help: 'bestOfNGit' },
  REGISTRY,
  AUTO_ALLOW,
  HELP,
];

/** Options of `troupe dashboard`. */
export const DASHBOARD_OPTIONS: readonly CliCommandOption[] = [
  { ...WORKSPACE, help: 'dashboardWorkspace' },
  { name: 'port', type: 'string', value: 'N', help: 'dashboardPort' },
  { name: 'allowed-host', type: 'string', value: 'A,B', help: 'dashboardAllowedHost' },
  { name: 'queue', type: 'string', value: 'REDIS_URL', help: 'dashboardQueue' },
  { name: 'queues', type: 'string', value: 'A,B', help: 'dashboardQueues' },
  HELP,
];

/** Options of `troupe` with no command (the interactive session) and global flags. */
export const ROOT_OPTIONS: readonly CliCommandOption[] = [
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  MODEL,
  ...DEVHUB_LOOPER_OPTIONS,
  { name: 'version', short: 'v', type: 'boolean', help: 'version' },
  HELP,
];

/** Options of `troupe help`. */
export const HELP_OPTIONS: readonly CliCommandOption[] = [HELP];

/** The commands, in the order `troupe --help` lists them; also the names "did you mean" picks from. */
export const COMMAND_NAMES = ['looper', 'devhub', 'team', 'best-of-n', 'dashboard', 'doctor', 'worker', 'submit', 'migrate-registry', 'usage', 'workspaces', 'eval', 'approvals', 'approve', 'deny', 'help'] as const;

/** A `troupe` command. */
export type CliCommandName = (typeof COMMAND_NAMES)[number];

/** Whether `name` is one of the {@link COMMAND_NAMES}. */
export function isCommandName(name: string): name is CliCommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
