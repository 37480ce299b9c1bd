import type { AgentManager } from '@troupe/core/cli-turn';
import type { ChatModel, EventBus, MemberAgentConfig, MessageStore, RunnableAgent, Store } from '@troupe/core';
import type { UsageBudgetLimits, UsageLedger } from '@troupe/usage';
import type { Judge } from '../judge/judge';
import type { RuleJudgeOptions } from '../judge/rule-judge';
import type { TaskManager } from '../tasks/task-manager';
import type { LooperCommand } from './parse-looper-command';
import type { buildReviewPrompt, ReviewPromptInput } from './looper-review-report';
import type { LooperState } from './looper-state';
import type { LooperStateStore } from './looper-state-store';
import type { englishLooperTexts, LooperTexts } from './looper-texts';

/** A Coder or Review member given as a registered CLI adapter (run through `AgentManager`). */
export interface LooperAdapterMember {
  /** Adapter type or registry entry id: `claude`, `codex`, `gemini`… */
  configId: string;
  /** Role id in the agent manager. Default `<looperId>-coder` / `<looperId>-review`. */
  roleId?: string;
  /** System prompt, extra args, env, work directory. */
  member?: MemberAgentConfig;
}

/** A Coder or Review member: any runnable agent, or a CLI adapter by name. */
export type LooperMember = RunnableAgent | LooperAdapterMember;

/**
 * Per-step timeouts in ms. A step's timeout is the one time limit of its
 * work: it reaches a CLI member's turn as the turn's `timeoutMs`, so the
 * agent manager's `defaultTimeoutMs` (10 minutes) never cuts a longer step
 * short.
 */
export interface LooperStepTimeouts {
  /** Default 15 minutes. */
  coder?: number;
  /** Default 10 minutes. */
  review?: number;
  /** Default 2 minutes. */
  judge?: number;
}

/** How a run's workspace is prepared (`@troupe/worktree`'s `WorkspaceSetup`). */
export interface LooperWorkspaceSetup {
  /** Untracked files of the parent checkout to copy in (relative paths, e.g. `.env`); kept out of the diff and commits. */
  copy?: string[];
  /** A command run in the workspace before the Coder starts, as argv (no shell). Its failure fails the run. */
  command?: string[];
}

/** What a run's workspace holds at its end (`@troupe/worktree`'s `WorkspaceResult`). */
export interface LooperWorkspaceResult {
  /** The workspace branch, `troupe/<looperId>-<runId>`. */
  branch: string;
  /** The commit the run started from. */
  baseCommit: string;
  /** The branch's head, the Coder's leftovers committed. */
  headCommit: string;
  /** Unified diff from the base, untracked files included. */
  diff: string;
  /** Per-file line counts of `diff` (`-1` for a binary file), and their totals. */
  diffstat: { files: { file: string; insertions: number; deletions: number }[]; insertions: number; deletions: number };
  /** The branch holds commits. */
  committed: boolean;
  /** Changes remain outside any commit. */
  uncommitted: boolean;
}

/** What the Coder prompt is built from. */
export interface CoderPromptInput {
  task: string;
  iteration: number;
  maxIterations: number;
}

/** Options for {@link Looper}. */
export interface LooperOptions {
  /** Agent id (and state key). Default `looper`. */
  id?: string;
  /** The member that does the work each iteration. */
  coder: LooperMember;
  /** The member that reviews it and reports health (see {@link buildReviewPrompt} for the report format). */
  review: LooperMember;
  /** JUDGE. Default: a model judge when `model` is given, else the rule policy. */
  judge?: Judge;
  /** Shortcut for `judge: createModelJudge({ model })`. */
  model?: ChatModel;
  /** Options of the rule policy (used without a model, and as the fallback when the model judge fails). */
  rules?: RuleJudgeOptions;
  /** Channel of the `[AUTO]` progress messages. Default `looper`. */
  channelId?: string;
  /** Where `[AUTO]` messages go. Default: a new `MessageStore` on `eventBus`. */
  messages?: MessageStore;
  /** Emits `looper:*` events (and, through the default message store, `message:added`). */
  eventBus?: EventBus;
  /** Runs adapter members. Default: one the Looper creates (and cleans up in `dispose`). */
  agentManager?: AgentManager;
  /** Runs the steps. Default: a new `TaskManager` on `eventBus`. */
  taskManager?: TaskManager;
  /** Iterations per run. Default 5. */
  maxIterations?: number;
  /** One timeout for every step, or one per step (see {@link LooperStepTimeouts}: it is the step's CLI turn's limit too). */
  stepTimeoutMs?: number | LooperStepTimeouts;
  /** Where state and checkpoints go. Default: `createLooperStateStore(store)`. */
  stateStore?: LooperStateStore;
  /** Shortcut for `stateStore: createLooperStateStore(store)`. Default: a `MemoryStore`. */
  store?: Store;
  /** Work directory given to the members (`context.workspacePath`) when the command's context has none. */
  workspacePath?: string;
  /**
   * `'worktree'`: each run works in its own git workspace (`@troupe/worktree`, an optional peer to install) on a
   * branch `troupe/<looperId>-<runId>` made from the caller's `HEAD`; the Coder and the Review work there (it is their
   * `context.workspacePath`), the parent checkout is never written. At the end of the run the leftovers are committed
   * on that branch and the result (branch, diffstat, diff) is reported (`workspace:finished` on the bus, `status`,
   * {@link Looper.workspaceResult}); nothing is merged until a `merge` command. Default `'none'`: the members work in
   * `workspacePath` itself.
   */
  isolation?: 'none' | 'worktree';
  /** With `isolation: 'worktree'`: the checkout the workspaces are made from. Default: the run's `workspacePath`, else the process's cwd. */
  repo?: string;
  /** With `isolation: 'worktree'`: what each run's workspace is prepared with (untracked files to copy in such as `.env`, a command such as `['npm', 'ci']`). */
  setup?: LooperWorkspaceSetup;
  /** The Coder's input each iteration. Default: the task. */
  coderPrompt?: (input: CoderPromptInput) => string;
  /** The Review's input each iteration. Default: {@link buildReviewPrompt}. */
  reviewPrompt?: (input: ReviewPromptInput) => string;
  /** Longest step output kept in prompts and JUDGE input. Default 4000 characters. */
  maxOutputChars?: number;
  /**
   * The language of everything it posts and answers (`[AUTO]` progress,
   * replies, `status`, end reasons, the rule policy's decisions). Default
   * {@link englishLooperTexts}; `simplifiedChineseLooperTexts` is built in.
   */
  texts?: LooperTexts;
  /**
   * Caps each run's cost (US dollars) and/or tokens, counted over its Coder
   * and Review turns and JUDGE's model calls (see `UsageLedger`). `looper:*`
   * events: `usage:budget-warning` at 80%; once a cap is reached the run ends
   * after the current step with outcome `budget-exceeded` and a reason saying
   * which cap. Needs `eventBus`.
   */
  budget?: UsageBudgetLimits;
  /** The ledger the budget counts from. Default: the event bus's (`UsageLedger.forBus`). */
  ledger?: UsageLedger;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** The Looper's answer to a command; `text` is what it says in the channel. */
export interface LooperReply {
  /** False when the command was refused or invalid (the state did not change). */
  ok: boolean;
  command: LooperCommand['type'] | 'invalid';
  text: string;
  /** The state after the command. */
  state: LooperState;
}
