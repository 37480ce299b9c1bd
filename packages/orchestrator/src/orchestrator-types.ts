import type { ChatMessage, ChatUsage, SerializedError, ToolAgentKind } from '@troupe/core';
import type { AgentOutputSchema } from '@troupe/core/cli-turn';
import type { AgentWorkspaceResult } from './agent-isolation';
import type { AgentStrategy } from './agent-strategy';
import type { AgentRunnerStopReason } from './agent-runner-stop-reason';

/**
 * Where an agent is in its life (seed 004's `AgentRuntimeStatus`):
 * `idle` (created, or queued for a slot) → `running` → `completed` | `error` |
 * `terminated`, with `forking` while it waits for its sub-agents, and
 * `waiting` when it answered and waits for the user's next message (agents
 * with `waitForInput`; see `sendMessage`). See
 * {@link AGENT_STATUS_TRANSITIONS} for every allowed move.
 */
export type AgentRuntimeStatus = 'idle' | 'running' | 'forking' | 'waiting' | 'completed' | 'error' | 'terminated';

/** The statuses an agent never leaves. */
export type AgentTerminalStatus = Extract<AgentRuntimeStatus, 'completed' | 'error' | 'terminated'>;

/**
 * What an agent starts from (seed 004's `AgentContext`, given to
 * `createAgent`). At least one of `task` and `messages` is needed.
 */
export interface AgentTaskContext {
  /** The instruction; sent as the last user message and available to the prompt template as `{{task}}`. */
  task?: string;
  /** Conversation to start from (e.g. the history of a previous agent); `task` is appended after it. */
  messages?: readonly ChatMessage[];
  /** Parent agent; the new agent is a sub-agent (`sub` tools) in the parent's subtree. */
  parentId?: string;
  /** Values for the strategy's system prompt template (`{{name}}`). */
  variables?: Readonly<Record<string, string>>;
  /** Free-form tags shown in the tree (seed 004's `AgentMetadata` labels). */
  labels?: readonly string[];
  /** Directory the workspace tools are confined to, for this agent (default: the orchestrator's). */
  workspaceRoot?: string;
  /**
   * Passed to the agent's tools as `context.data` (ids, services). Not
   * stored with the session (it may hold services): a resumed agent's tools
   * get `ResumeOptions.data` instead.
   */
  data?: Readonly<Record<string, unknown>>;
  /**
   * After an answer, wait for the user's next message (`waiting`, see
   * `sendMessage`) instead of completing. Default: the strategy's
   * `waitForInput`. Sub-agents run by a fork always complete.
   */
  waitForInput?: boolean;
}

/** One sub-agent of a fork: its task and, optionally, its strategy. */
export interface SubAgentSpec {
  /** What the sub-agent must do. */
  task: string;
  /** A strategy, or the `type` of one registered with the orchestrator. Default: the orchestrator's sub-agent strategy. */
  strategy?: AgentStrategy | string;
  /** Extra context for this sub-agent (its own variables, labels, data). */
  context?: Omit<AgentTaskContext, 'task' | 'parentId'>;
  /**
   * Ask this sub-agent for a typed result: a zod 4 schema or a JSON Schema
   * object (its strategy's `cli.schema` otherwise). Needs a CLI strategy
   * (`strategy.cli`); its `SubAgentResult.object` is the validated object.
   */
  schema?: AgentOutputSchema;
}

/** How one sub-agent of a fork ended, after its retries. */
export interface SubAgentResult {
  /** The sub-agent's task. */
  task: string;
  /** Type of the strategy it ran with. */
  strategyType: string;
  /** `completed`, or how its last attempt failed. */
  status: AgentTerminalStatus;
  /**
   * Its result text (when completed); when its typed result was invalid
   * (error `StructuredOutputError`), the raw answer it gave (redacted).
   */
  text?: string;
  /** The validated object, when it was asked for a typed result (`schema`) and completed. */
  object?: unknown;
  /** Why its last attempt failed. */
  error?: SerializedError;
  /** Id of its last attempt. */
  agentId: string;
  /** Ids of every attempt, first to last (a retry is a new agent in the tree). */
  agentIds: string[];
  /** Number of attempts made. */
  attempts: number;
  /**
   * What it changed, when it ran in a workspace of its own (`isolation:
   * 'worktree'`) and completed: its branch, commits, diff and diffstat.
   */
  workspace?: AgentWorkspaceResult;
}

/** What a fork returns once every sub-agent ended. */
export interface ForkResult {
  /** Unique per fork (`fork-1`…). */
  forkId: string;
  /** The agent that forked. */
  parentId: string;
  /** One entry per requested sub-agent, in request order. */
  results: SubAgentResult[];
  /** How many sub-agents completed. */
  succeeded: number;
  /** How many ended in `error` or `terminated` after their retries. */
  failed: number;
}

/**
 * What `runAgent` and `sendMessage` resolve with: the agent completed, or
 * (with `waitForInput`) answered and now waits for the next message.
 */
export interface AgentRunResult {
  agentId: string;
  /** `completed`, or `waiting` for an agent that waits for input after its answer. */
  status: 'completed' | 'waiting';
  /** The agent's final text (its `task_finish` result, or its last answer). */
  text: string;
  /** Why the run stopped. */
  stopReason: AgentRunnerStopReason;
  /** Model calls made in this run (this turn, for an agent that waits for input). */
  iterations: number;
  /** Usage summed over this run's model calls. */
  usage: ChatUsage;
  /** The whole conversation (without the system prompt). */
  messages: ChatMessage[];
  /**
   * The validated object of a CLI agent asked for a typed result (its
   * strategy's `cli.schema`, or its fork call's `schema`); absent otherwise.
   */
  object?: unknown;
  /**
   * What this run changed, when the agent ran in a workspace of its own
   * (a root with `isolation` scope `'tree'`, or a forked sub-agent).
   */
  workspace?: AgentWorkspaceResult;
}

/** One agent as the tree shows it (no children; see {@link AgentTreeNode}). */
export interface AgentInfo {
  id: string;
  parentId: string | undefined;
  /** Id of the root of its tree. */
  rootId: string;
  /** `main` for a root agent, `sub` for a sub-agent (decides its tool scope). */
  kind: ToolAgentKind;
  /** Type of its strategy. */
  strategyType: string;
  status: AgentRuntimeStatus;
  /** Its task, when it has one. */
  task: string | undefined;
  labels: readonly string[];
  /** 1 for a first attempt; 2, 3… for retries of a failed sub-agent. */
  attempt: number;
  /** The failed agent this one retries. */
  retryOf: string | undefined;
  /** True while it waits for a concurrency slot. */
  queued: boolean;
  /** True while its runner is paused between steps. */
  paused: boolean;
  /** Model calls made so far (over every turn). */
  iterations: number;
  /** Messages sent to it with `sendMessage` so far. */
  inputs: number;
  createdAt: number;
  updatedAt: number;
  /** Its result text once completed (its last answer while it waits for input). */
  result?: string;
  /** Why it failed or was terminated. */
  error?: SerializedError;
  /** What its last turn changed, when it ran in a workspace of its own (`isolation: 'worktree'`). */
  workspace?: AgentWorkspaceResult;
}

/** An agent and its children, recursively. */
export interface AgentTreeNode extends AgentInfo {
  children: AgentTreeNode[];
}

/** A point-in-time copy of every agent of an orchestrator (plain data, safe to keep or serialize). */
export interface AgentTreeSnapshot {
  /** Root agents (no parent), in creation order, each with its subtree. */
  roots: AgentTreeNode[];
  /** Agents per status. */
  counts: Record<AgentRuntimeStatus, number>;
  /** Agents waiting for a slot. */
  queued: number;
  /** The concurrency limit. */
  maxConcurrency: number;
  /** When the snapshot was taken. */
  timestamp: number;
}

/** Payload of `onAgentStatusChanged` and of the `orchestrator:agent-status-changed` bus event. */
export interface AgentStatusChange {
  agentId: string;
  parentId: string | undefined;
  rootId: string;
  kind: ToolAgentKind;
  strategyType: string;
  from: AgentRuntimeStatus;
  to: AgentRuntimeStatus;
  /** Why, for `terminated` (the reason given to `terminateAgent`). */
  reason?: string;
  /** The error, for `error` (and for `terminated` when a failure caused it). */
  error?: SerializedError;
  timestamp: number;
}

/**
 * What `resume()` found in the store and did with it: ended agents stay as
 * they were, agents that were running (or queued, or forking) restart from
 * their last stored messages, forks in progress go on, and agents waiting
 * for input wait again.
 */
export interface OrchestratorResumeReport {
  sessionId: string;
  /** Agents loaded. */
  agents: number;
  /** Ended agents (`completed`, `error`, `terminated`), left as they were. */
  ended: string[];
  /** Agents waiting for input: send them a message with `sendMessage`. */
  waiting: string[];
  /** Agents created but never run: run them with `runAgent`. */
  idle: string[];
  /** Agents restarted from their last stored messages (fork members included). */
  restarted: string[];
  /** Forks that go on (their parents get the results, as before the crash). */
  forks: string[];
  /**
   * The run of each restarted agent that is not a member of a fork (those
   * report to their parent), keyed by agent id. Rejections are also
   * reported as status changes, so a run nobody awaits is not an unhandled rejection.
   */
  runs: ReadonlyMap<string, Promise<AgentRunResult>>;
}
