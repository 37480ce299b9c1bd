import type { ChatModel, EventBus, Store } from '@troupe/core';
import type { UsageBudgetLimits, UsageLedger } from '@troupe/usage';
import type { AgentIsolation } from './agent-isolation';
import type { AgentRunnerSinks } from './agent-runner-types';
import type { AgentRetryPolicy, AgentStrategy } from './agent-strategy';
import type { AgentInfo, AgentTaskContext } from './orchestrator-types';
import type { ToolManager } from './tool-manager';

/** Default of {@link AgentOrchestratorOptions.maxConcurrency}. */
export const DEFAULT_MAX_CONCURRENCY = 4;

/** Settings of an {@link AgentOrchestrator} (one orchestrator = one session). */
export interface AgentOrchestratorOptions {
  /** The model agents use unless their strategy names one. */
  model?: ChatModel;
  /** Most agents in `running` at once; others wait (`idle`, queued). Forking agents do not count. Default 4. */
  maxConcurrency?: number;
  /** The tools (core `ToolRegistry` underneath). Default: a `ToolManager` with the workspace tools, `task_finish` and `fork_agents`. */
  tools?: ToolManager;
  /** Where `orchestrator:*` events go. Default: a new bus (see `orchestrator.bus`). */
  bus?: EventBus;
  /** Directory the workspace tools are confined to (an agent's context may override it). */
  workspaceRoot?: string;
  /** Strategies sub-agents can be forked with by `type` (the `fork_agents` tool's `strategy`). */
  strategies?: readonly AgentStrategy[];
  /** The strategy of sub-agents whose fork names none. Default {@link DEFAULT_SUB_AGENT_STRATEGY}. */
  subAgentStrategy?: AgentStrategy;
  /** Sinks for every agent's runner (seed 004's `renderToUI`), built per agent. */
  sinks?: (agent: AgentInfo) => AgentRunnerSinks | undefined;
  /** Agent ids are `<idPrefix>-<n>`. Default `agent`. */
  idPrefix?: string;
  /** How long a terminated agent's tools get to stop before the runner gives up on them. Default 5 000 ms. */
  abortGraceMs?: number;
  /**
   * Where to keep the agent tree as it changes (seed 004's optional session
   * persistence): agents, statuses, conversations, open tool calls and
   * forks, under `['orchestrator', sessionId]`. With a durable store
   * (`@troupe/store-sqlite`), a new process calls `resume()` to go on after
   * a crash. Default: none (the tree lives in memory only).
   */
  store?: Store;
  /** Names the session in the store (one store can hold many). Default `default`. 1-64 of `A-Za-z0-9_.:-`. */
  sessionId?: string;
  /**
   * Caps each agent tree's cost (US dollars) and/or tokens — a root agent
   * and every agent it forks, counted from their model calls (see
   * `UsageLedger`): `usage:budget-warning` at 80%, then the root is
   * terminated with the reason (which ends its whole tree).
   */
  budget?: UsageBudgetLimits;
  /** The ledger the budget counts from. Default: the bus's (`UsageLedger.forBus`). */
  ledger?: UsageLedger;
  /**
   * Where agents change files (see {@link AgentIsolation}): `'worktree'` runs
   * each forked sub-agent in a git workspace of its own, made from the
   * `HEAD` of the checkout its parent works in (`workspaceRoot`, a CLI
   * agent's `member.workDir`, else the process's cwd), and hands its branch
   * and diff to the parent in the fork result; `{ mode: 'worktree', scope:
   * 'tree' }` runs each agent tree in one workspace. A sub-agent that writes
   * into the parent checkout fails with `WorkspaceEscapeError`. A fork's own
   * `isolation` wins. Default `'none'`.
   */
  isolation?: AgentIsolation;
}

/** Options of {@link AgentOrchestrator.resume}. */
export interface ResumeOptions {
  /** Aborts loading (nothing is changed then). */
  signal?: AbortSignal;
  /**
   * Tool data (`ToolContext.data`) of resumed agents: an agent's `context.data`
   * is not stored (it may hold services), so give it again here.
   */
  data?: (agent: AgentInfo) => Readonly<Record<string, unknown>> | undefined;
}


/** Options of {@link AgentOrchestrator.runAgent}. */
export interface RunAgentOptions {
  /** Terminates the agent (and its subtree) when aborted. */
  signal?: AbortSignal;
  /** Sinks for this agent (called after the orchestrator's `sinks`). */
  sinks?: AgentRunnerSinks;
}

/**
 * The context a fork shares with its sub-agents (the third argument of
 * `requestFork`), plus the fork's own settings.
 */
export interface ForkContext extends Omit<AgentTaskContext, 'task' | 'parentId' | 'messages'> {
  /**
   * Workspaces for this fork's sub-agents (wins over the orchestrator's
   * `isolation`): `'worktree'` gives each its own, `'none'` runs them where
   * their parent works. Scope `'tree'` is the orchestrator's only.
   */
  isolation?: AgentIsolation;
  /** Retry policy for every sub-agent of this fork (default: each sub-agent strategy's `retry`). */
  retry?: AgentRetryPolicy;
  /** Terminates the fork's sub-agents when aborted (the parent goes on with their results). */
  signal?: AbortSignal;
}
