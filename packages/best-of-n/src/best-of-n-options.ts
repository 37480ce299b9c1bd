import { InvalidArgumentError, type EventBus, type MemberAgentConfig } from '@troupe/core';
import { AGENT_ID_PATTERN } from '@troupe/core/agent-runtime';
import type { AdapterRegistry, AgentDefinitionSource } from '@troupe/core/cli-turn';
import { checkUsageBudgetLimits, type UsageBudgetLimits, type UsageLedger } from '@troupe/usage';
import type { WorkspaceSetup } from '@troupe/worktree';
import type { BestOfNAttemptRunner } from './best-of-n-attempt-runner';
import type { BestOfNScorecard } from './best-of-n-event-schemas';

/** Some attempts by one agent. */
export interface BestOfNCandidateSpec {
  /** A registry entry (`definitions`) or an adapter type (`claude`, `codex`, `gemini`, `acp:…`), as `AgentManager` takes it. */
  agent: string;
  /** How many attempts this agent makes. Default 1. */
  n?: number;
  /** The member config of its attempts (system instruction, env, MCP servers…); `workDir` is always its workspace. */
  member?: Omit<MemberAgentConfig, 'workDir'>;
}

/** A finished attempt as a judge or a select function sees it. */
export interface BestOfNCandidate {
  /** The attempt's id (`claude-1`): what a judge names as the winner. */
  id: string;
  agent: string;
  /** Its turn completed and its test command passed (or there was none). */
  passed: boolean;
  /** The test command ran. */
  tested: boolean;
  /** Its unified diff against the base (committed on its branch). */
  diff: string;
  diffstat: BestOfNScorecard['diffstat'];
  /** The agent's answer text. */
  text: string;
  tokens: BestOfNScorecard['tokens'];
  costUsd: number;
  wallTimeMs: number;
}

/** What a judge decides: one winner, and why. */
export interface BestOfNJudgeDecision {
  /** The id of the chosen candidate. */
  winner: string;
  /** Why: one text (said of the winner), or a text per candidate id. */
  reasons: string | Readonly<Record<string, string>>;
}

/** Compares the candidates and names one with reasons: a function, or a model ({@link modelJudge}). */
export type BestOfNJudge = (candidates: readonly BestOfNCandidate[], options: { task: string; signal: AbortSignal }) => Promise<BestOfNJudgeDecision>;

/** Picks the winner's id itself (or `undefined` for none). */
export type BestOfNSelectFunction = (
  candidates: readonly BestOfNCandidate[],
  options: { task: string; signal: AbortSignal },
) => string | undefined | PromiseLike<string | undefined>;

/**
 * How the winner is chosen among the attempts whose turn completed:
 * - `'tests'`: those whose `testCommand` passed; the smallest diff (lines added + removed), then the lowest cost, then
 *   the fewest tokens, then the first attempt, breaks a tie;
 * - `{ judge }`: a judge compares them (all completed ones, each marked `passed` when a test command ran) and names one;
 * - a function: returns the winner's id.
 */
export type BestOfNSelect = 'tests' | { judge: BestOfNJudge } | BestOfNSelectFunction;

/** What {@link bestOfN} keeps of the attempts' workspaces once the winner is known. */
export type BestOfNKeep = 'winner' | 'all' | ((scorecard: BestOfNScorecard) => boolean);

/** Options of {@link bestOfN}. */
export interface BestOfNOptions {
  /** The task every attempt is given (the prompt of its agent's turn). */
  task: string;
  /** A checkout of the repository; each attempt works in its own workspace made from its `HEAD` (or `base`). */
  repo: string;
  /** The agents and how many attempts each makes. */
  candidates: readonly BestOfNCandidateSpec[];
  /** How the winner is chosen. */
  select: BestOfNSelect;
  /**
   * The test command run in each finished attempt's workspace, as argv (no shell: `['sh', '-c', '…']` for one):
   * exit 0 passes. Needed by `select: 'tests'`; with the other selections it fills each candidate's `passed`.
   */
  testCommand?: readonly string[];
  /** Longest test run per attempt, in ms. Default 10 minutes. */
  testTimeoutMs?: number;
  /** Caps on the spending of all attempts together: when reached, no attempt starts and running ones are stopped. */
  budget?: UsageBudgetLimits;
  /** Attempts that run at once. Default 4. */
  concurrency?: number;
  /**
   * `'all'` (default): every attempt runs, then the winner is selected. `'firstPass'`: the first attempt that passes
   * wins at once; the others are stopped (their turns aborted, their process trees killed) and their workspaces removed.
   */
  mode?: 'all' | 'firstPass';
  /** The commit-ish the workspaces start from. Default: `HEAD` of `repo`. */
  base?: string;
  /** Files to copy into each workspace and a command to run there before the agent starts. */
  setup?: WorkspaceSetup;
  /** Which workspaces stay after the run. Default `'winner'`: the others' folders and branches are removed. */
  keep?: BestOfNKeep;
  /** Longest agent turn per attempt, in ms. Default: the manager's (10 minutes). */
  timeoutMs?: number;
  /** Registry entries by name, when `agent` names one. */
  definitions?: AgentDefinitionSource;
  /** Adapter types. Default: the process-wide registry (the adapter packages register into it). */
  adapters?: AdapterRegistry;
  /** Receives the `best-of-n:*`, `workspace:*` and `agent:*` events; the usage ledger listens here. Default: a private bus. */
  bus?: EventBus;
  /** The ledger the attempts are charged to (run kind `best-of-n`). Default: the bus's ledger (one is made if it has none). */
  ledger?: UsageLedger;
  /**
   * Runs the attempts' turns elsewhere: `createQueuedBestOfNRunner` of `@troupe/queue-bullmq` sends each to a queue
   * worker (attempts spread over the workers) and brings its change back into the attempt's workspace here, where
   * it is committed, tested and selected. Its usage is charged here, to the attempt and the run (the budget counts
   * it); a stop (first pass, budget, `signal`) cancels the queued and running jobs. The agents are the workers'
   * (their registries and keys): `member` settings cannot be sent. Default: every turn runs here.
   */
  runner?: BestOfNAttemptRunner;
  /** Stops the whole run: turns aborted, processes killed, workspaces removed; rejects with `AbortError`. */
  signal?: AbortSignal;
}

/** One attempt to make. */
export interface BestOfNAttemptSpec {
  id: string;
  agent: string;
  member: Omit<MemberAgentConfig, 'workDir'>;
}

const KNOWN_KEYS = new Set([
  'task',
  'repo',
  'candidates',
  'select',
  'testCommand',
  'testTimeoutMs',
  'budget',
  'concurrency',
  'mode',
  'base',
  'setup',
  'keep',
  'timeoutMs',
  'definitions',
  'adapters',
  'bus',
  'ledger',
  'runner',
  'signal',
]);

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new InvalidArgumentError(field, `expected an integer >= 1, got ${JSON.stringify(value)}`);
  return value;
}

function positiveNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(field, `expected a number > 0, got ${JSON.stringify(value)}`);
  return value;
}

/** The kind of selection, as events name it. */
export function selectKind(select: BestOfNSelect): 'tests' | 'judge' | 'function' {
  return select === 'tests' ? 'tests' : typeof select === 'function' ? 'function' : 'judge';
}

/**
 * Checks the options and lists the attempts (`claude-1`, `claude-2`, `codex-1`…, numbered per agent in order).
 *
 * @throws InvalidArgumentError naming the bad field.
 */
export function checkBestOfNOptions(options: BestOfNOptions): { attempts: BestOfNAttemptSpec[]; budget: UsageBudgetLimits | undefined } {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { task, repo, candidates, select, … }');
  for (const key of Object.keys(options)) if (!KNOWN_KEYS.has(key)) throw new InvalidArgumentError(key, `is not an option of bestOfN (options: ${[...KNOWN_KEYS].join(', ')})`);
  if (typeof options.task !== 'string' || options.task.trim() === '') throw new InvalidArgumentError('task', 'expected the task as a non-empty string');
  if (typeof options.repo !== 'string' || options.repo === '') throw new InvalidArgumentError('repo', 'expected the path of a checkout');
  if (!Array.isArray(options.candidates) || options.candidates.length === 0) throw new InvalidArgumentError('candidates', 'expected at least one { agent, n }');
  const { select } = options;
  if (select !== 'tests' && typeof select !== 'function' && !(select !== null && typeof select === 'object' && typeof select.judge === 'function')) {
    throw new InvalidArgumentError('select', `expected 'tests', { judge } or a function, got ${JSON.stringify(select)}`);
  }
  const { testCommand } = options;
  if (testCommand !== undefined && (!Array.isArray(testCommand) || testCommand.length === 0 || testCommand.some((part) => typeof part !== 'string' || part === ''))) {
    throw new InvalidArgumentError('testCommand', 'expected a non-empty argv array such as ["npm", "test"] (no shell: ["sh", "-c", "…"] for one)');
  }
  if (select === 'tests' && testCommand === undefined) throw new InvalidArgumentError('testCommand', "select: 'tests' runs a test command in each workspace: give testCommand");
  if (options.mode !== undefined && options.mode !== 'all' && options.mode !== 'firstPass') throw new InvalidArgumentError('mode', `expected 'all' or 'firstPass', got ${JSON.stringify(options.mode)}`);
  if (options.concurrency !== undefined) positiveInteger(options.concurrency, 'concurrency');
  if (options.testTimeoutMs !== undefined) positiveNumber(options.testTimeoutMs, 'testTimeoutMs');
  if (options.timeoutMs !== undefined) positiveNumber(options.timeoutMs, 'timeoutMs');
  const { keep } = options;
  const { runner } = options;
  if (runner !== undefined && (runner === null || typeof runner !== 'object' || typeof runner.runTurn !== 'function')) {
    throw new InvalidArgumentError('runner', 'expected an attempt runner { runTurn(request, { signal }) } (e.g. createQueuedBestOfNRunner of @troupe/queue-bullmq)');
  }
  if (keep !== undefined && keep !== 'winner' && keep !== 'all' && typeof keep !== 'function') throw new InvalidArgumentError('keep', `expected 'winner', 'all' or a function, got ${JSON.stringify(keep)}`);
  const attempts: BestOfNAttemptSpec[] = [];
  const counts = new Map<string, number>();
  options.candidates.forEach((candidate, index) => {
    const field = `candidates[${index}]`;
    if (candidate === null || typeof candidate !== 'object') throw new InvalidArgumentError(field, 'expected { agent, n }');
    if (typeof candidate.agent !== 'string' || !AGENT_ID_PATTERN.test(candidate.agent)) {
      throw new InvalidArgumentError(`${field}.agent`, `expected an agent name (a registry entry or an adapter type such as "claude"), got ${JSON.stringify(candidate.agent)}`);
    }
    if (runner !== undefined && candidate.member !== undefined && Object.keys(candidate.member).length > 0) {
      throw new InvalidArgumentError(`${field}.member`, 'member settings stay here, but a runner runs the turns elsewhere with its own agents: configure them there');
    }
    const n = candidate.n === undefined ? 1 : positiveInteger(candidate.n, `${field}.n`);
    for (let k = 0; k < n; k++) {
      const number = (counts.get(candidate.agent) ?? 0) + 1;
      counts.set(candidate.agent, number);
      attempts.push({ id: `${candidate.agent}-${number}`, agent: candidate.agent, member: { ...(candidate.member ?? {}) } });
    }
  });
  return { attempts, budget: checkUsageBudgetLimits(options.budget) };
}
