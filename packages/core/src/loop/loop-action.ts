import type { SerializedError } from '../events/event-map';

/** One tool the planner chose, with the parameters it generated. */
export interface ToolCall {
  /** Call id; the loop assigns `<iterationId>:c<n>` when missing. */
  id?: string;
  /** Name of a tool stage registered on the loop. */
  tool: string;
  /** Parameters; validated against the tool's `parameters` schema when it has one. */
  input?: unknown;
}

/** How the Act phase runs an action's tool calls. */
export interface ActionExecutionPlan {
  /**
   * `parallel` (default) runs the calls concurrently; `sequential` runs them
   * in order, each seeing the previous ones finish.
   */
  mode?: 'parallel' | 'sequential';
  /** At most this many calls at once in `parallel` mode. Default: all of them. */
  maxConcurrency?: number;
  /** In `sequential` mode, skip the remaining calls after a failure. Default true. */
  stopOnError?: boolean;
}

/**
 * What the Plan phase decides: the task it identified, the tools it chose with
 * their parameters, and how to run them.
 */
export interface Action {
  /** The task identified from the perceptions, e.g. `triage error in app.log`. */
  task: string;
  /** Tool calls to make (tool choice + parameters). Empty: nothing to execute. */
  toolCalls?: ToolCall[];
  /** Execution plan for the tool calls. */
  execution?: ActionExecutionPlan;
  /** Why the planner chose this (kept in events and experiences). */
  reason?: string;
  /** Ids of the perceptions this action answers. */
  perceptionIds?: string[];
  /** Planner-specific data, passed through (keep it JSON-serializable). */
  data?: unknown;
}

/** How one tool call ended. */
export type ToolCallStatus = 'succeeded' | 'failed' | 'skipped';

/** Result of one tool call. */
export interface ToolCallResult {
  /** The call's id (from the action, or assigned by the loop). */
  callId: string;
  /** The tool that was called. */
  tool: string;
  status: ToolCallStatus;
  /** What the tool returned (`succeeded` only). */
  output?: unknown;
  /** Why it failed (`failed`) or was skipped (`skipped`). */
  error?: SerializedError;
  /** How long the call took, in ms. */
  durationMs: number;
}

/** What the Act phase returns and the Reflect phase analyses. */
export interface ActResult {
  /** The action that was executed (tool calls with their assigned ids). */
  action: Action;
  /** True when every tool call succeeded and nothing else failed. */
  ok: boolean;
  /** One entry per tool call, in the action's order. */
  results: ToolCallResult[];
  /** The failure of the phase itself (invalid action, abort), or the first failed call's error. */
  error?: SerializedError;
  /** How long the whole action took, in ms. */
  durationMs: number;
}
