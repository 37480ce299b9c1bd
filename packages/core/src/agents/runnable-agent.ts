import type { MessageInput } from '../messages/message-schema';

/**
 * What a finished agent run produced. `text` is what an {@link Executor}
 * appends to the channel; `data` carries anything structured (a review
 * report, usage, a session id) for programmatic callers.
 */
export interface AgentOutput {
  /** The agent's final text (may be empty when it only streamed or only wrote messages). */
  text: string;
  /** Optional JSON-serializable extra result. */
  data?: unknown;
}

/**
 * Where and for whom an agent runs (the seed's `context`: `{ sourceTabId,
 * workspacePath }`). Everything is optional: an agent must cope without it.
 */
export interface AgentContext {
  /** Channel the run belongs to; the {@link Executor} sets it to the channel it executes on. */
  channelId?: string;
  /** Channel of the requester when another agent sent the input (the seed's `sourceTabId`). */
  sourceChannelId?: string;
  /** Directory the agent works in (coding agents run their CLI there). */
  workspacePath?: string;
  /** Cancels the run, like `ExecutionHandle.cancel()`. */
  signal?: AbortSignal;
  /**
   * The time limit the caller set for this run, in ms. The caller that sets
   * a limit owns it: it enforces it itself (`TaskManager` fails the task and
   * cancels the run when it passes) and hands it down here so that nothing
   * below cuts it short. An agent passes it on as the limit of the work it
   * runs for this run (an adapter agent: its CLI turn's `timeoutMs`) in place
   * of any default of its own. Absent: the caller set none, and the layers'
   * defaults apply.
   */
  timeoutMs?: number;
  /** Anything the application passes through (ids, services). */
  data?: Readonly<Record<string, unknown>>;
}

/**
 * Outputs of a run besides its completion (the seed's `sinks`). Every sink is
 * optional; an agent calls the ones it has (`sinks.text?.(delta)`).
 */
export interface AgentSinks {
  /** Streams the answer as it is produced, one piece at a time. */
  text?(delta: string): void;
  /** Short progress notes for a UI (`thinking`, `running tool write_file`). */
  status?(status: string): void;
  /**
   * The agent produced output that is neither text nor a status note (a
   * tool result, usage, any CLI stream part): a timeout can then tell a busy
   * agent from one whose model API never answered.
   */
  activity?(): void;
  /** Appends a complete message to the run's channel right away (e.g. an `[AUTO]` note). */
  message?(message: MessageInput): void;
}

/** A started run: await its result, or cancel it. */
export interface ExecutionHandle {
  /**
   * Resolves with the output; rejects with the agent's error, or with an
   * `AbortError` after `cancel()` (or the context's signal). The handle
   * marks the promise as handled, so an unobserved rejection does not crash
   * the process: observe it.
   */
  readonly completion: Promise<AgentOutput>;
  /** Cancels the run; `completion` rejects with an `AbortError`. Harmless once settled. */
  cancel(reason?: unknown): void;
}

/**
 * An agent the SDK can run: a prompt agent, a graph like the Looper, a CLI
 * through its adapter. `start` must return at once; the work happens behind
 * `completion` (seed 000 §2).
 *
 * @example
 * ```ts
 * const echo: RunnableAgent = defineAgent({
 *   id: 'echo',
 *   description: 'Repeats its input',
 *   run: (input) => input,
 * });
 * const { completion } = echo.start('hi', {}, {});
 * console.log((await completion).text); // "hi"
 * ```
 */
export interface RunnableAgent {
  /** Unique id in an {@link AgentRegistry} (`looper`, `devhub`, `coder`). */
  readonly id: string;
  /** What the agent does, for people and for routing models. */
  readonly description: string;
  /** The agent CLI it drives, named for people (`Claude Code`), for messages such as a timeout's. */
  readonly cli?: string;
  /** Starts a run. Must not block: long work belongs behind `completion`. */
  start(input: string, context: AgentContext, sinks: AgentSinks): ExecutionHandle;
}
