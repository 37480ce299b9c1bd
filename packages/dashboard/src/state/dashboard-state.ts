// The dashboard's view model: plain JSON, built by folding bus events (see dashboard-reducer.ts). The same code
// runs in the server (which sends a snapshot to each page) and in the page (which applies the events after it).
// Nothing here imports Node or Troupe at runtime: it is bundled into the browser page.

/**
 * One thing the dashboard folds into its state: a Troupe event envelope
 * (`looper:iteration-started`, `orchestrator:agent-status-changed`…), or one
 * of the dashboard's own inputs (`dashboard:looper-status`,
 * `dashboard:looper-history`, `dashboard:messages`, `dashboard:source`,
 * `dashboard:usage-records`).
 */
export interface DashboardInput {
  type: string;
  /** Milliseconds since the epoch; every time shown is derived from these, never from the reader's clock. */
  timestamp: number;
  source?: string;
  payload: unknown;
}

/** How much of each list the dashboard keeps (oldest dropped first). */
export interface DashboardLimits {
  /** Messages of the Looper's `[AUTO]` stream. Default 300. */
  autoMessages: number;
  /** Looper iterations on the timeline. Default 200. */
  iterations: number;
  /** Looper runs. Default 50. */
  runs: number;
  /** Orchestrator agents. Default 500. */
  agents: number;
  /** Team conversations. Default 20. */
  conversations: number;
  /** Messages per team conversation. Default 300. */
  teamMessages: number;
  /** Pipeline threads. Default 20. */
  pipelines: number;
  /** Batches per pipeline thread. Default 500. */
  batches: number;
  /**
   * Rows of the usage table (agents), and agents with a turn in progress.
   * The oldest rows beyond it are folded into `usage.others`, so
   * `usage.total` still counts every agent. Default 500.
   */
  usageAgents: number;
  /** Characters of a message or task kept for display. Default 4000. */
  textChars: number;
  /** Workspaces (`workspace:*` events), oldest dropped first. Default 100. */
  workspaces: number;
  /** Files listed in one workspace's diffstat (the totals count every file). Default 200. */
  workspaceFiles: number;
  /** Characters of one workspace's diff the server keeps for the page (`GET /api/workspaces/diff`). Default 100 000. */
  workspaceDiffChars: number;
  /** Best-of-N runs (`best-of-n:*` events), oldest dropped first. Default 20. */
  bestOfNRuns: number;
}

/** The default {@link DashboardLimits}. */
export const DEFAULT_DASHBOARD_LIMITS: Readonly<DashboardLimits> = Object.freeze({
  autoMessages: 300,
  iterations: 200,
  runs: 50,
  agents: 500,
  conversations: 20,
  teamMessages: 300,
  pipelines: 20,
  batches: 500,
  usageAgents: 500,
  textChars: 4000,
  workspaces: 100,
  workspaceFiles: 200,
  workspaceDiffChars: 100_000,
  bestOfNRuns: 20,
});

/** Where the dashboard gets its data from, as the header shows it. */
export interface DashboardSourceView {
  /** e.g. `workspace /repo` or `in process`. */
  label: string;
  /** True while live events arrive (in process: always; a workspace: while its runner answers). */
  attached: boolean;
  /** Whether the page may send `add_pending` and `stop`. */
  controls: boolean;
  /** One line about the connection (`runner pid 4242`, `no troupe process runs this workspace`). */
  detail?: string;
}

/** A step of a Looper iteration on the timeline. */
export interface StepView {
  status: 'running' | 'success' | 'failed' | 'timed-out' | 'canceled';
  /** When it began, if known. */
  startedAt?: number;
  /** When it ended. */
  endedAt?: number;
  durationMs?: number;
  /** One line: the review's health, JUDGE's decision, an error. */
  detail?: string;
}

/** One Looper iteration: Coder → Review → JUDGE. */
export interface IterationView {
  /** `<runId>#<iteration>`. */
  key: string;
  runId: string;
  iteration: number;
  task: string;
  startedAt: number;
  endedAt?: number;
  steps: { coder?: StepView; review?: StepView; judge?: StepView };
  /** JUDGE's decision, once made. */
  decision?: { type: 'continue' | 'terminate'; reason: string; source?: string; nextTask?: string };
}

/** One Looper run. */
export interface RunView {
  runId: string;
  task: string;
  startedAt: number;
  endedAt?: number;
  outcome?: string;
  reason?: string;
  iterations?: number;
}

/** A task queued with `add_pending`. */
export interface PendingView {
  id?: string;
  task: string;
  addedAt: number;
}

/** A message of the Looper's channel (the `[AUTO]` progress stream, commands and replies). */
export interface ChannelMessageView {
  id: string;
  role: string;
  speaker?: string;
  content: string;
  timestamp: number;
  /** True for the Looper's `[AUTO]` messages. */
  auto: boolean;
  /** The `[AUTO]` message's kind (`iteration-started`, `coder`, `decision`…). */
  kind?: string;
}

/** The Looper as the dashboard shows it. */
export interface LooperView {
  /** Set by the first Looper event (or status) seen. */
  looperId: string | null;
  channelId: string;
  state: 'IDLE' | 'RUNNING' | 'UNKNOWN';
  runId: string | null;
  /** The task the run started with. */
  task: string | null;
  /** The task of the iteration in progress. */
  currentTask: string | null;
  iteration: number;
  maxIterations: number | null;
  step: 'coder' | 'review' | 'judge' | null;
  stopRequested: boolean;
  pending: PendingView[];
  runs: RunView[];
  iterations: IterationView[];
  messages: ChannelMessageView[];
  lastRun: { runId: string; outcome: string; reason: string; iterations: number; endedAt: number } | null;
  /** The Looper's answer to the last command. */
  lastReply: { command: string; accepted: boolean; text: string; at: number } | null;
  /** Checkpoint write failures (the loop goes on in memory). */
  warnings: string[];
}

/** An orchestrator agent in the tree. */
export interface AgentView {
  agentId: string;
  parentId?: string;
  rootId: string;
  kind: string;
  strategyType: string;
  status: string;
  task?: string;
  attempt: number;
  reason?: string;
  error?: string;
  createdAt: number;
  updatedAt: number;
  /** Tool calls it ran. */
  tools: number;
  /** Forks it started. */
  forks: number;
}

/** A message of a team conversation. */
export interface TeamMessageView {
  id: string;
  turn: number;
  kind: string;
  speakerName: string;
  speakerType?: string;
  content: string;
  isDone: boolean;
  next: string[];
  timestamp: number;
}

/** A team conversation. */
export interface ConversationView {
  conversationId: string;
  teamName: string;
  channelId: string;
  startedAt: number;
  messages: TeamMessageView[];
  /** The member whose turn it is (until the conversation completes). */
  turn: { turn: number; memberName: string; memberType: string; cause: string } | null;
  failures: number;
  completed: { reason: string; detail: string; turns: number; usage?: { inputTokens: number; outputTokens: number; totalTokens: number; costUsd: number } } | null;
}

/** A batch of a pipeline thread: its planning and its execution, for the Gantt chart. */
export interface BatchView {
  batchIndex: number;
  status: string;
  taskCount?: number;
  executedTasks?: number;
  failedTasks?: number;
  planningStartedAt?: number;
  plannedAt?: number;
  executionStartedAt?: number;
  executedAt?: number;
  skipped?: boolean;
}

/** A pipeline thread (its runs and batches). */
export interface PipelineView {
  channelId: string;
  threadId: string;
  mode?: string;
  startedAt: number;
  runs: { runId: string; role: string; mode?: string; startedAt: number; finishedAt?: number; status?: string }[];
  batches: BatchView[];
  totalBatches: number | null;
  planningCompleted: boolean;
  executionCompleted: boolean;
}

/** One file's line counts in a workspace's diffstat (`-1` for a binary file). */
export interface WorkspaceFileStatView {
  file: string;
  insertions: number;
  deletions: number;
}

/**
 * An isolated workspace (a git worktree an agent works in, `@troupe/worktree`): its branch, commits, state and
 * diffstat. The diff itself is not part of the state (it can be large); the page asks the server for it.
 */
export interface WorkspaceView {
  /** The workspace's name, unique in its repository. */
  name: string;
  /** Who works in it: an agent id, a team member, a job. */
  owner: string;
  branch: string;
  /** The checkout it was made from. */
  repo?: string;
  baseCommit: string;
  /** The branch head when it finished. */
  headCommit?: string;
  /**
   * `running` until its run ends; `finished` with its result; `escaped` when its agent wrote into the parent
   * checkout (also once finished); `removed` when it finished without changes and its folder was removed.
   */
  status: 'running' | 'finished' | 'escaped' | 'removed';
  /** The agent made commits on the branch. */
  committed?: boolean;
  /** Changes remain outside commits. */
  uncommitted?: boolean;
  /** Files changed (at most `limits.workspaceFiles`; `filesOmitted` counts the rest) and line totals over all. */
  diffstat?: { files: WorkspaceFileStatView[]; insertions: number; deletions: number; filesOmitted: number };
  /** The diff was cut (by the event, or by the server's `limits.workspaceDiffChars`). */
  diffTruncated: boolean;
  /** What changed in the parent checkout, when the agent escaped. */
  escape?: { changed: string[]; message: string };
  createdAt: number;
  updatedAt: number;
}

/**
 * One attempt of a best-of-N run, from its `best-of-n:*` events: how it ended and its scorecard's figures. `running`
 * between its start and its end; the other states are the scorecard's.
 */
export interface BestOfNAttemptView {
  /** The attempt (`claude-1`): its agent and its number among that agent's attempts. */
  id: string;
  /** The agent it ran (`claude`, `codex`, `acp:gemini`, a registry entry). */
  agent: string;
  status: 'pending' | 'running' | 'passed' | 'failed' | 'error' | 'canceled' | 'not-started';
  /** Its turn completed and its test command passed (or there was none). */
  passed: boolean;
  /** The test command ran in its workspace. */
  tested: boolean;
  tokens: { input: number; output: number; total: number };
  costUsd: number;
  /** From the start of its workspace to the end of its test run, once it finished. */
  wallTimeMs?: number;
  /** Files, lines added and removed against the base, once it finished. */
  diffstat?: { files: number; insertions: number; deletions: number };
  /** Its workspace's name (the key of its diff on the server, `GET /api/workspaces/diff?name=`). */
  workspace?: string;
  branch?: string;
  /** Its workspace is kept after the run (the winner's, or the caller's `keep`). */
  kept: boolean;
  /** It was chosen. */
  winner: boolean;
  /** What the judge said of it. */
  reasons?: string;
  /** The test command's exit code and the tail of its output. */
  test?: { exitCode: number | null; durationMs: number; outputTail: string };
  /** Why it did not complete. */
  error?: string;
}

/** A best-of-N run (`@troupe/best-of-n`): its attempts, how it selects, the winner and the judge's reasons. */
export interface BestOfNRunView {
  runId: string;
  repo: string;
  select: string;
  mode: string;
  concurrency: number;
  status: 'running' | 'finished';
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  /** The chosen attempt's id, `null` when none was chosen (or not yet). */
  winner: string | null;
  /** What the judge said of the winner. */
  reasons?: string;
  /** `firstPass`, `budget` or `canceled` when the run stopped early. */
  stoppedBy?: string;
  /** Its attempts, in the run's order. */
  attempts: BestOfNAttemptView[];
}

/** Tokens and cost summed over calls. */
export interface UsageFiguresView {
  /** Turns or model calls counted. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  /** Calls whose cost is unknown (no reported cost, no price for the model). */
  unpriced: number;
}

/** Tokens and cost charged to one agent. */
export interface AgentUsageView extends UsageFiguresView {
  agentId: string;
  models: string[];
}

/** Tokens and cost per agent. */
export interface UsageView {
  /**
   * Where the figures come from: `ledger` (`usage:recorded` events and the
   * stored usage ledger), `turns` (usage parts of agent CLI turns, while no
   * ledger reports), or `none` yet.
   */
  source: 'none' | 'turns' | 'ledger';
  /** One row per agent, oldest first; at most `limits.usageAgents`. */
  agents: AgentUsageView[];
  /** Every call counted, in the rows and out of them. */
  total: UsageFiguresView;
  /** The rows dropped past `limits.usageAgents` (oldest first), summed; `agents` counts the rows. */
  others: UsageFiguresView & { agents: number };
  /** Usage of each agent's turn in progress (the last usage part; counted when the turn completes). */
  openTurns: Record<string, { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; costUsd?: number }>;
  /** Ids of ledger records counted (so a record read from the store and seen live counts once). */
  recordIds: string[];
}

/** Everything the dashboard shows. Plain JSON. */
export interface DashboardState {
  version: 1;
  /** Timestamp of the last input applied. */
  updatedAt: number;
  /** Inputs applied so far. */
  seq: number;
  source: DashboardSourceView;
  looper: LooperView;
  /** Orchestrator agents, in creation order. */
  agents: AgentView[];
  conversations: ConversationView[];
  pipelines: PipelineView[];
  usage: UsageView;
  /** BullMQ queues (`troupe dashboard --queue URL`): job counts by state, per queue. */
  queues: Record<string, QueueView>;
  /** Isolated workspaces, oldest first. */
  workspaces: WorkspaceView[];
  /** Best-of-N runs, oldest first. */
  bestOfN: BestOfNRunView[];
  limits: DashboardLimits;
}

/** One queue's jobs by state (a `dashboard:queue-counts` input). */
export interface QueueView {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  /** When the counts were read. */
  updatedAt: number;
}

/** A dashboard state with nothing in it yet. */
export function createDashboardState(options: { limits?: Partial<DashboardLimits>; source?: DashboardSourceView; looperChannelId?: string } = {}): DashboardState {
  return {
    version: 1,
    updatedAt: 0,
    seq: 0,
    source: options.source ?? { label: 'in process', attached: true, controls: false },
    looper: {
      looperId: null,
      channelId: options.looperChannelId ?? 'looper',
      state: 'UNKNOWN',
      runId: null,
      task: null,
      currentTask: null,
      iteration: 0,
      maxIterations: null,
      step: null,
      stopRequested: false,
      pending: [],
      runs: [],
      iterations: [],
      messages: [],
      lastRun: null,
      lastReply: null,
      warnings: [],
    },
    agents: [],
    conversations: [],
    pipelines: [],
    usage: { source: 'none', agents: [], total: emptyUsageFigures(), others: { agents: 0, ...emptyUsageFigures() }, openTurns: {}, recordIds: [] },
    queues: {},
    workspaces: [],
    bestOfN: [],
    limits: { ...DEFAULT_DASHBOARD_LIMITS, ...options.limits },
  };
}

/** Zero calls, zero tokens, no cost. */
export function emptyUsageFigures(): UsageFiguresView {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, unpriced: 0 };
}
