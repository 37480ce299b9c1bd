/**
 * What a tool call does, the same words for every agent: `read` (files, search), `edit` (write, change, delete
 * files), `execute` (a shell command), `fetch` (the network), `mcp` (a tool of an MCP server), `subagent` (a
 * sub-agent or task), `other`. Adapters map their CLI's tool names onto these, so one rule covers every agent.
 */
export type ToolKind = 'read' | 'edit' | 'execute' | 'fetch' | 'mcp' | 'subagent' | 'other';

/** The tool kinds, in a fixed order (for schemas and tables). */
export const TOOL_KINDS: readonly ToolKind[] = ['read', 'edit', 'execute', 'fetch', 'mcp', 'subagent', 'other'];

/**
 * A tool call an agent is about to make, as `canUseTool`, the rules and the hooks see it: the same shape for Claude
 * Code, Codex, Gemini, ACP agents and API models.
 */
export interface ToolUseRequest {
  /** The call's id (the CLI's tool-use id), unique within the session: decisions and audit records name it. */
  id: string;
  /** The agent asking: its role or member id. */
  agent: string;
  /** The adapter that drives it (`claude`, `codex`, `gemini`, `acp`, `model`…). */
  adapter: string;
  /** The tool's name as the agent calls it (`Write`, `Bash`, `apply_patch`, `write_file`, `mcp__github__create_issue`). */
  tool: string;
  /** The normalised kind of the tool. */
  kind: ToolKind;
  /** The tool's arguments as the agent sent them. */
  input: unknown;
  /**
   * What the call acts on, when the adapter can tell: the file path (read, edit), the command line (execute), the URL
   * (fetch). Rules like `Write(src/**)` or `execute(git *)` match it.
   */
  target?: string;
  /** The agent's working directory (its workspace). */
  workspace?: string;
  /** The CLI session the call belongs to, when known (for approvals that outlive the process). */
  sessionId?: string;
  /** Aborted when the turn ends or the agent is stopped: a callback waiting on a human should give up then. */
  signal: AbortSignal;
}

/**
 * The answer to a tool call: run it (optionally with changed arguments), refuse it (`message` is what the model is
 * told, so it can adapt), or `defer` it (the turn waits for a decision made elsewhere: another process, a human, the
 * dashboard).
 */
export type ToolUseDecision =
  | { behavior: 'allow'; input?: unknown; reason?: string }
  | { behavior: 'deny'; message: string }
  | { behavior: 'defer'; reason?: string };

/**
 * Decides a tool call before it runs. `true`/`false` are short for allow/deny. Throwing, or not answering within the
 * time limit, denies the call (fail closed).
 */
export type CanUseTool = (request: ToolUseRequest) => ToolUseDecision | boolean | PromiseLike<ToolUseDecision | boolean>;

/** What a `postToolUse` hook sees: the call and what it returned. */
export interface ToolUseOutcome {
  request: Omit<ToolUseRequest, 'signal'>;
  /** The tool's output as the agent reported it. */
  output: unknown;
  /** The tool reported a failure. */
  isError: boolean;
}

/**
 * Hooks with the same shape for every agent. `preToolUse` runs after the rules and `canUseTool` allowed a call and
 * may still block it or change its input; the others observe. Adapters call those their CLI reports
 * (`subagentStart`/`subagentStop` only where the CLI says when a sub-agent starts and stops).
 */
export interface ToolHooks {
  /** Before a call runs: return `{ block: reason }` to refuse it, `{ input }` to change it, nothing to let it run. */
  preToolUse?: (request: ToolUseRequest) => void | { block: string } | { input: unknown } | PromiseLike<void | { block: string } | { input: unknown }>;
  /** After a call ran, with its output. */
  postToolUse?: (outcome: ToolUseOutcome) => void | PromiseLike<void>;
  /** The agent's turn ended; `stopReason` is the CLI's own word for why (`end_turn`, `cancelled`…), where it gives one. */
  stop?: (event: { agent: string; adapter: string; sessionId?: string; stopReason?: string }) => void | PromiseLike<void>;
  /** A sub-agent started. */
  subagentStart?: (event: { agent: string; adapter: string; subagent: string; sessionId?: string }) => void | PromiseLike<void>;
  /** A sub-agent stopped. */
  subagentStop?: (event: { agent: string; adapter: string; subagent: string; sessionId?: string }) => void | PromiseLike<void>;
}
