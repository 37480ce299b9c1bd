import {
  AbortError,
  CapabilityUnsupportedError,
  InvalidArgumentError,
  type AgentAdapter,
  type AgentStreamPart,
  type AgentUsage,
  type AnyTool,
  type McpServers,
  type MemberAgentConfig,
  type TroupeError,
} from '@troupe/core';
import {
  AdapterRegistry,
  AgentManager,
  type AgentPermissionDenial,
  type AgentSessionOptions,
  type AgentTurn,
  type AgentTurnResult,
  type ProcessOutcome,
} from '@troupe/core/cli-turn';
import { resolveQueryAgent, type QueryAgent } from './query-agents';
import { loadQueryToolHost } from './query-tool-host';

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

/** What a finished turn produced. */
export interface QueryResult {
  /** The agent, by the name it was asked for (a built-in name, `acp:…`, a registry entry's name, an adapter's id). */
  agent: string;
  /**
   * How the turn ended: `completed`, `failed` (the process failed, or the CLI reported an error such as an API
   * error), `canceled` (`signal`, or the iteration stopped early) or `timed-out`.
   */
  status: 'completed' | 'failed' | 'canceled' | 'timed-out';
  /** The answer text; `''` unless the turn completed. */
  text: string;
  /** Why the turn did not complete: an `AgentError`, `ProcessError`, `AbortError` or `CompletionTimeoutError`. */
  error: TroupeError | undefined;
  /** The session the turn ran in: give it as `resume` to a later `query()` to go on with it. */
  sessionId: string | undefined;
  /** Tokens the CLI reported, and its cost (`usage.costUsd`) when it reports one. */
  usage: AgentUsage | undefined;
  /** The turn's cost in US dollars as the CLI reported it (Claude Code does); `undefined` otherwise. */
  costUsd: number | undefined;
  /** Every stream part of the turn, in order. */
  parts: AgentStreamPart[];
  /** Tool calls the CLI refused for lack of permission; a completed turn may claim work that these show was not done. */
  permissionDenials: AgentPermissionDenial[];
  /** The process's outcome (exit code, signal, duration, redacted stderr). */
  outcome: ProcessOutcome;
}

/**
 * One agent turn in flight: iterate it for its stream parts as they come, or just `await run.result`. The CLI's
 * processes are stopped when the iteration ends, breaks or throws, when `result` settles, and when `signal` aborts.
 */
export interface QueryRun extends AsyncIterable<AgentStreamPart> {
  /**
   * Settles once the turn is over and its processes are gone. Resolves for every turn that ran, whatever its
   * `status`; rejects when the turn could not start: a bad option, an agent that is not installed (its package
   * or its CLI, e.g. `ProcessError` code `COMMAND_NOT_FOUND` naming the install command), an option the agent
   * cannot honour (`CapabilityUnsupportedError`), or `signal` aborted before the CLI ran (`AbortError`).
   */
  readonly result: Promise<QueryResult>;
}

const QUERY_OPTION_KEYS: readonly string[] = [
  'agent',
  'prompt',
  'cwd',
  'model',
  'systemPrompt',
  'mcpServers',
  'tools',
  'env',
  'signal',
  'timeoutMs',
  'resume',
  'continue',
  'forkSession',
];

/** The role of the one member a query runs, in its private `AgentManager`. */
const QUERY_ROLE = 'query';
/** The type the query's adapter is registered under, in its private `AdapterRegistry`. */
const QUERY_ADAPTER_TYPE = 'query-agent';

/**
 * Runs one turn of a coding agent — Claude Code, Codex CLI, Gemini CLI, an ACP agent, a registry entry or your
 * own adapter — the same way for each. The agent's adapter package is imported when it is asked for (install
 * `@troupe/adapter-claude` to run `'claude'`; nothing to register). The returned run streams the turn's typed
 * parts (`text-delta`, `tool-call`, `tool-result`, `usage`, `session`, `warning`, `error`, `turn-end`) and
 * resolves `result` with the text, usage and cost, session id and status.
 *
 * When the turn cannot start (a bad option, an agent or CLI that is not installed, an option the agent cannot
 * honour), the iteration throws and `result` rejects; a turn that ran and failed resolves `result` with its
 * `status` and `error` (its parts end with an `error` or a failed `turn-end`).
 *
 * @example
 * ```ts
 * import { query } from '@troupe/agents';
 *
 * const run = query({ agent: 'claude', prompt: 'Summarize src/index.ts', cwd: process.cwd() });
 * for await (const part of run) if (part.type === 'text-delta') process.stdout.write(part.text);
 * const { text, sessionId, costUsd } = await run.result;
 * ```
 */
export function query(options: QueryOptions): QueryRun {
  let manager: AgentManager | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  let label = 'agent';
  // Stops everything the query started; every way out of it comes here, once.
  const close = (): Promise<void> => {
    closed = true;
    return (closing ??= manager ? manager.cleanup() : Promise.resolve());
  };
  const signal = options?.signal;
  const onAbort = () => void close();

  const turnPromise = (async (): Promise<AgentTurn> => {
    const checked = checkQueryOptions(options);
    AbortError.throwIfAborted(signal, 'The query');
    signal?.addEventListener('abort', onAbort, { once: true });
    const agent = await resolveQueryAgent(checked.agent, checked.model);
    label = agent.label;
    refuseUnsupportedOptions(agent.adapter, label, checked);
    const toolHost = checked.tools !== undefined && checked.tools.length > 0 ? await loadQueryToolHost(label) : undefined;
    const adapters = new AdapterRegistry();
    adapters.register({ type: QUERY_ADAPTER_TYPE, create: () => agent.adapter });
    const started = new AgentManager({ adapters, ...(toolHost !== undefined ? { toolHost } : {}) });
    manager = started;
    const stopIfClosed = async () => {
      if (!closed) return;
      await started.cleanup();
      throw new AbortError('The query was stopped before its turn started', { cause: signal?.reason });
    };
    await stopIfClosed();
    await started.ensureAgentStarted(QUERY_ROLE, QUERY_ADAPTER_TYPE, memberOf(checked), sessionOptionsOf(checked));
    await stopIfClosed();
    return started.send(QUERY_ROLE, checked.prompt, {
      ...(checked.timeoutMs !== undefined ? { timeoutMs: checked.timeoutMs } : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
  })();
  turnPromise.catch(() => {}); // observed through `result` and the iteration

  const result = (async (): Promise<QueryResult> => {
    try {
      const turn = await (await turnPromise).result;
      // A CLI that is not installed never ran: that is a turn that could not start.
      if (turn.outcome.status === 'failed' && turn.outcome.error.code === 'COMMAND_NOT_FOUND') throw turn.outcome.error;
      return queryResultOf(label, turn);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await close();
    }
  })();
  result.catch(() => {}); // a caller that only iterates gets the error there

  return {
    result,
    [Symbol.asyncIterator]: (): AsyncIterator<AgentStreamPart> => {
      let parts: AsyncIterator<AgentStreamPart> | undefined;
      return {
        async next() {
          try {
            parts ??= (await turnPromise)[Symbol.asyncIterator]();
            const step = await parts.next();
            // The turn is over: wait for its processes to be gone, and throw if it could not start.
            if (step.done) await result;
            return step;
          } catch (error) {
            await close();
            throw error;
          }
        },
        // `break`, `return` or a throw in the loop body: the turn is stopped.
        async return() {
          await parts?.return?.();
          await close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/** The session to start from (`resume`, `continue`, `forkSession`), as `AgentManager.ensureAgentStarted` takes it: it checks them against the adapter. */
function sessionOptionsOf(options: QueryOptions): AgentSessionOptions {
  return {
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    ...(options.continue !== undefined ? { continue: options.continue } : {}),
    ...(options.forkSession !== undefined ? { forkSession: options.forkSession } : {}),
  };
}

/** The options, checked: a missing or mistyped field, or a key that is no option, is an error naming it. */
function checkQueryOptions(options: QueryOptions): QueryOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('options', `expected { agent, prompt, cwd?, … }, got ${options === null ? 'null' : typeof options}`);
  }
  for (const key of Object.keys(options)) {
    if (!QUERY_OPTION_KEYS.includes(key)) throw new InvalidArgumentError(`options.${key}`, `not an option of query() (options: ${QUERY_OPTION_KEYS.join(', ')})`);
  }
  if (options.agent === undefined) throw new InvalidArgumentError('options.agent', "required: 'claude', 'codex', 'gemini', 'acp:…', a registry entry or an adapter");
  if (typeof options.prompt !== 'string') throw new InvalidArgumentError('options.prompt', `expected a string, got ${typeof options.prompt}`);
  for (const key of ['cwd', 'model', 'systemPrompt', 'resume'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') throw new InvalidArgumentError(`options.${key}`, `expected a string, got ${typeof options[key]}`);
  }
  if (options.tools !== undefined && !Array.isArray(options.tools)) throw new InvalidArgumentError('options.tools', 'expected an array of tools made by defineTool()');
  return options;
}

/**
 * Refuses an option the agent's adapter cannot pass on to its CLI, before anything starts: never silently
 * dropped.
 */
function refuseUnsupportedOptions(adapter: AgentAdapter, label: string, options: QueryOptions): void {
  const { capabilities } = adapter;
  if (options.systemPrompt !== undefined && capabilities.systemPrompt === 'none') {
    throw new CapabilityUnsupportedError(label, 'systemPrompt', `The agent "${label}" takes no system prompt (its adapter's capabilities.systemPrompt is 'none'), so query() cannot honour systemPrompt; put the instructions in the prompt`);
  }
  const unsupportedMcp = capabilities.mcpServers !== true;
  if (unsupportedMcp && options.mcpServers !== undefined && Object.keys(options.mcpServers).length > 0) {
    throw new CapabilityUnsupportedError(label, 'mcpServers', `The agent "${label}" cannot be given MCP servers (its adapter has no capabilities.mcpServers), so query() cannot honour mcpServers`);
  }
  if (unsupportedMcp && options.tools !== undefined && options.tools.length > 0) {
    throw new CapabilityUnsupportedError(label, 'tools', `The agent "${label}" cannot be given MCP servers (its adapter has no capabilities.mcpServers), which carry Troupe tools to a CLI, so query() cannot honour tools`);
  }
  // The session options (`resume`, `continue`, `forkSession`) are checked against the adapter by their owner,
  // `AgentManager.ensureAgentStarted`, before anything is spawned.
}

function memberOf(options: QueryOptions): MemberAgentConfig {
  return {
    ...(options.cwd !== undefined ? { workDir: options.cwd } : {}),
    ...(options.systemPrompt !== undefined ? { systemInstruction: options.systemPrompt } : {}),
    ...(options.env !== undefined ? { env: { ...options.env } } : {}),
    ...(options.mcpServers !== undefined ? { mcpServers: options.mcpServers } : {}),
    ...(options.tools !== undefined ? { tools: [...options.tools] } : {}),
  };
}

function queryResultOf(agent: string, turn: AgentTurnResult): QueryResult {
  const { outcome, agentError } = turn;
  const status = outcome.status === 'completed' ? (agentError ? 'failed' : 'completed') : outcome.status;
  return {
    agent,
    status,
    text: turn.text,
    error: outcome.status === 'completed' ? agentError : outcome.error,
    sessionId: turn.sessionId,
    usage: turn.usage,
    costUsd: turn.usage?.costUsd,
    parts: turn.parts,
    permissionDenials: turn.permissionDenials,
    outcome,
  };
}
