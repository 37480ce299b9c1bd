import type { Workspace } from '@troupe/worktree';

/** One attempt's turn, as {@link BestOfNAttemptRunner.runTurn} is asked to run it. */
export interface BestOfNAttemptTurnRequest {
  /** The best-of-N run (`bon-…`). */
  runId: string;
  /** The attempt (`claude-1`): the agent's role id wherever it runs, the id the scorecards and the ledger use. */
  attemptId: string;
  /** The agent to run, as the runner's side names it (`claude`, `codex`, a registry entry…). */
  agent: string;
  /** The prompt of the turn. */
  task: string;
  /**
   * The attempt's workspace at the origin (made from `workspace.baseCommit`): the runner leaves the agent's work in
   * its folder (committed on its branch or not); the run then commits what is left, tests and selects there.
   */
  workspace: Workspace;
  /** Longest agent turn, in ms, when the run sets one. */
  timeoutMs: number | undefined;
}

/** How an attempt's turn ended, as a runner reports it. */
export interface BestOfNAttemptTurnResult {
  /** `completed`: the turn ended well; `error`: it failed (what it wrote is still tested for the diff, not selected). */
  status: 'completed' | 'error';
  /** The agent's answer text. */
  text: string;
  /** Why the turn failed. */
  error?: unknown;
}

/**
 * Runs attempts' turns somewhere other than this process: `bestOfN({ runner })` hands each attempt's turn to it
 * instead of running the agent locally. `@troupe/queue-bullmq`'s `createQueuedBestOfNRunner` sends each turn to a
 * queue worker and brings the change back into the workspace. The run keeps the rest at the origin: the workspaces,
 * the commit of each attempt's work, the tests, the selection and the winner's branch.
 *
 * Its turns' usage must reach the run's bus as `agent:turn-completed` events with the attempt's id as `roleId`,
 * emitted inside the event scope `runTurn` was called in (the queue client does this), so the ledger charges them
 * to the attempt and the run, and the budget counts them.
 */
export interface BestOfNAttemptRunner {
  /**
   * Runs one attempt's turn and leaves its work in `request.workspace.path`. Rejects with `AbortError` once
   * `signal` aborts (the caller, the budget, a first pass): a remote turn is canceled there too, its processes stopped.
   */
  runTurn(request: BestOfNAttemptTurnRequest, options: { signal: AbortSignal }): Promise<BestOfNAttemptTurnResult>;
}
