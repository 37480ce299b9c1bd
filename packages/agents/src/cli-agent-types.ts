import type { MemberAgentConfig, Tool } from '@troupe/core';
import type { AdapterRegistry } from '@troupe/core/cli-turn';
import type { QueryResult, QueryRun } from './query';
import type { QueryOptions } from './query-options';

/**
 * A reusable agent: the agent spec `query()` takes, minus the prompt, under a name. `defineCliAgent()` checks it
 * once; each run, tool call or member turn then only brings its prompt.
 */
export interface CliAgentOptions extends Omit<QueryOptions, 'prompt' | 'signal' | 'resume' | 'continue' | 'forkSession'> {
  /**
   * The agent's name: letters, digits, `_` and `-`, starting with a letter or digit (at most 64). It is the name
   * of its tool (`asTool()`), and of its member and adapter where it joins a team, a tree or the Looper.
   */
  name: string;
  /** What the agent does, for the models and people that pick it (its tool's description). Default: from its name and agent. */
  description?: string;
}

/** What one run of a defined agent takes besides its prompt. */
export interface CliAgentRunOptions {
  /** Cancels the turn: the CLI's whole process group is killed, and the result settles `canceled`. */
  signal?: AbortSignal;
  /** This turn's time limit in ms, over the definition's `timeoutMs`. */
  timeoutMs?: number;
  /** Session id of an earlier turn to go on with (the `sessionId` of its result). */
  resume?: string;
  /** Go on with the most recent session in the agent's `cwd`. */
  continue?: boolean;
  /** With `resume` or `continue`: go on in a copy of that session. */
  forkSession?: boolean;
}

/** The input of a defined agent's tool: the message its turn runs. */
export interface CliAgentToolInput {
  /** The message the agent's turn runs. */
  prompt: string;
}

/** A defined agent ({@link defineCliAgent}): run it, stream it, or hand it to another agent as a tool. */
export interface CliAgent {
  /** The agent's name (its tool's name, its member's and adapter's where it joins a team, tree or Looper). */
  readonly name: string;
  /** What the agent does. */
  readonly description: string;
  /**
   * Resolves once the agent's adapter package is loaded and every option is checked against what the agent can
   * honour; rejects with the error every run would (`AgentNotInstalledError`, `CapabilityUnsupportedError`). The
   * check starts when the agent is defined: await this to fail at start-up rather than at the first turn.
   */
  check(): Promise<void>;
  /** Runs one turn: resolves with its result (whatever its `status`), like `query(…).result`. */
  run(prompt: string, options?: CliAgentRunOptions): Promise<QueryResult>;
  /** Runs one turn and streams it: the {@link QueryRun} of `query()`. */
  stream(prompt: string, options?: CliAgentRunOptions): QueryRun;
  /**
   * The agent as a Troupe tool (input `{ prompt }`) for another agent: a model in `runToolLoop`, an orchestrator
   * agent, a CLI agent through its `tools`. The tool's result is the agent's answer text; the call's abort signal
   * cancels the turn; a turn that does not complete is a tool error the caller reads, not a crash.
   */
  asTool(options?: CliAgentToolOptions): Tool<CliAgentToolInput>;
  /**
   * Registers the agent's adapter — its CLI with its model — as the adapter type of its name in `adapters`
   * (default: the process-wide registry, where `registerClaudeCodeAdapter()` puts Claude Code's). An
   * `AgentManager` on that registry then runs the member {@link toMember} gives: a Looper Coder or Review, a
   * node of the orchestrator (`runCliAgent`), a team member. Resolves once the adapter is loaded and checked
   * (it rejects as {@link check} does) with the function that unregisters it.
   *
   * @throws InvalidStateError (code `ADAPTER_ALREADY_REGISTERED`) when the registry has an adapter of that name.
   */
  register(adapters?: AdapterRegistry): Promise<() => void>;
  /**
   * The agent as a member of an `AgentManager` on a registry it was {@link register}ed in: its name as `configId`,
   * and its `cwd`, `systemPrompt`, `env`, `mcpServers` and `tools` as the member's `workDir`, `systemInstruction`,
   * `env`, `mcpServers` and `tools`. Its `timeoutMs` is not part of it: the Looper's `stepTimeoutMs`, a team's
   * `turnTimeoutMs`, a strategy's `timeoutMs` set the limit there.
   */
  toMember(): CliAgentMember;
}

/** A defined agent as `AgentManager` runs it: what the Looper, the orchestrator and a team take for a CLI member. */
export interface CliAgentMember {
  /** The adapter type {@link CliAgent.register} registered: the agent's name. */
  configId: string;
  /** The member's settings: its folder, instructions, environment, MCP servers and tools. */
  member: MemberAgentConfig;
}

/** How a defined agent is offered as a tool. */
export interface CliAgentToolOptions {
  /** The tool's name (`^[a-zA-Z0-9_-]{1,64}$`). Default: the agent's name. */
  name?: string;
  /** What the calling model reads to decide when to call it. Default: the agent's description. */
  description?: string;
}
