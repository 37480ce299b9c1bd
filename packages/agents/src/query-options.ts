import type { AnyTool, McpServers } from '@troupe/core';
import type { QueryAgent } from './query-agents';

/** Everything one `query()` call takes: the agent, the prompt, and how to run it. */
export interface QueryOptions {
  /** Which agent runs the turn: `'claude'`, `'codex'`, `'gemini'`, `'acp:…'`, a registry entry or an adapter (see {@link QueryAgent}). */
  agent: QueryAgent;
  /** The message of the turn. */
  prompt: string;
  /** Working directory of the CLI. Default: this process's. */
  cwd?: string;
  /** Model the CLI runs (its `--model` / `-m`). Refused (`CapabilityUnsupportedError`) by an agent that cannot take one. */
  model?: string;
  /** The agent's instructions, through the adapter's own channel (a flag, a file, or the message). Refused by an agent that takes none. */
  systemPrompt?: string;
  /** MCP servers the CLI connects to, by name (the `mcpServers` of a `.mcp.json` file). */
  mcpServers?: McpServers;
  /** Troupe tools (`defineTool`) the CLI may call, served to it over MCP by `@troupe/mcp` (install it to use this). */
  tools?: readonly AnyTool[];
  /**
   * Variables for the CLI's process, over this process's environment (an API key, a base URL). Values of
   * secret-named variables (`*_KEY`, `*_TOKEN`…) never appear in parts, results, events or errors.
   */
  env?: Readonly<Record<string, string>>;
  /** Cancels the turn: the CLI's whole process group is killed, and the result settles `canceled`. */
  signal?: AbortSignal;
  /** Time limit of the turn in ms (default 10 minutes); past it the CLI is killed and the result settles `timed-out`. */
  timeoutMs?: number;
  /** Session id of an earlier turn to resume (the `sessionId` of its result). */
  resume?: string;
  /** Continue the most recent session in `cwd`. */
  continue?: boolean;
  /** With `resume` or `continue`: start a new session from that one's history instead of adding to it. */
  forkSession?: boolean;
}

/** The options that say which agent runs and how: what `query()` and `defineCliAgent()` both take. */
export type QueryAgentSpec = Pick<QueryOptions, 'agent' | 'cwd' | 'model' | 'systemPrompt' | 'mcpServers' | 'tools' | 'env' | 'timeoutMs'>;
