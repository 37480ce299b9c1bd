import type { QueryAgent, QueryOptions } from '@troupe/agents';
import type { EventBus } from '@troupe/core';
import type { UsageLedger } from '@troupe/usage';
import type { Workspace } from '@troupe/worktree';
import type { EvalTask } from './eval-task';
import type { EvalSelection, EvalTrialKey } from './eval-trial-record';

/** One agent under evaluation: a name for the reports and what `query()` runs. */
export interface EvalAgent {
  /** Its name in the ledger and the reports (`claude`, `codex-o4`), unique in an eval. */
  id: string;
  /**
   * What runs the turns: `'claude'`, `'codex'`, `'gemini'`, `'acp:…'`, a registry entry or an adapter (see
   * `query()` of `@troupe/agents`). A function is called once per trial, for a fresh adapter each time.
   */
  agent: QueryAgent | ((trial: EvalTrialKey) => QueryAgent);
  /** More `query()` options for every turn: model, system prompt, environment, MCP servers. */
  options?: Omit<QueryOptions, 'agent' | 'prompt' | 'cwd' | 'signal' | 'timeoutMs' | 'resume' | 'continue' | 'forkSession'>;
}

/** What a mode gets besides the task, the workspace, the agent and the signal. */
export interface EvalModeContext {
  /** Which trial this is. */
  trial: EvalTrialKey;
  /** The trial's own usage ledger: record each turn's tokens and cost here (`ledger.record`). */
  ledger: UsageLedger;
  /**
   * The trial's own bus, which `ledger` listens on: a runner given it (a Looper, `bestOfN`) has every turn and model
   * call it makes charged to the trial without recording them by hand.
   */
  eventBus: EventBus;
}

/** How a mode's run ended. Grading decides pass or fail; this says what the agent did. */
export interface EvalModeOutcome {
  /** Agent turns run. */
  turns: number;
  /** How the last turn ended. */
  agentStatus?: 'completed' | 'failed' | 'canceled' | 'timed-out';
  /** Why the agent did not complete, when it did not. */
  message?: string;
  /** Rounds (Coder → Review → JUDGE iterations) a `looper` trial ran. */
  rounds?: number;
  /** How a `best-of-n` trial chose the attempt that was graded. */
  selection?: EvalSelection;
}

/**
 * How an agent attempts a task in its workspace: one turn (`single`), a Looper run, best-of-N… A mode is one
 * function, so a new way of running agents is one more entry in `runEval({ modes })`. It must stop when
 * `signal` aborts and must not touch anything outside `workspace.path`. It throws only when the agent could not
 * be run at all (the trial is then an `error`); an agent that ran and did badly returns normally and is graded.
 */
export type EvalModeRun = (task: EvalTask, workspace: Workspace, agent: EvalAgent, signal: AbortSignal, context: EvalModeContext) => Promise<EvalModeOutcome>;

/** A named mode. */
export interface EvalMode {
  /** Its name in the ledger and the reports. */
  name: string;
  run: EvalModeRun;
}
