import {
  AbortError,
  type AgentStreamPart,
  type AgentUsage,
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
import type { QueryAgentSpec, QueryOptions } from './query-options';
import { AGENT_SPEC_KEYS, checkAgentOptions, prepareQueryAgent, TURN_KEYS, type PreparedQueryAgent } from './query-checks';

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
  return runQuery(options, 'query()', (checked) => prepareQueryAgent(checked));
}

/** The option keys of `query()`. */
const QUERY_KEYS: readonly string[] = [...AGENT_SPEC_KEYS, ...TURN_KEYS];

/**
 * @internal `query()`'s turn, for the agent `prepare` loads and checks (`defineCliAgent()` gives the one it prepared
 * once, with a fresh adapter per turn). `what` names the caller in errors about the options.
 */
export function runQuery(options: QueryOptions, what: string, prepare: (options: QueryOptions) => Promise<PreparedQueryAgent>): QueryRun {
  let manager: AgentManager | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  let label = 'agent';
  // Stops everything the query started; every way out of it comes here, once.
  const close = (): Promise<void> => {
    closed = true;
    return (closing ??= manager ? manager.cleanup() : Promise.resolve());
  };
  // Read once the options are checked: until then it may be anything.
  let signal: AbortSignal | undefined;
  const onAbort = () => void close();

  const turnPromise = (async (): Promise<AgentTurn> => {
    checkAgentOptions(options, what, QUERY_KEYS, ['agent', 'prompt']);
    const checked = options;
    signal = checked.signal;
    AbortError.throwIfAborted(signal, 'The query');
    signal?.addEventListener('abort', onAbort, { once: true });
    const agent = await prepare(checked);
    label = agent.label;
    const { toolHost } = agent;
    const { adapter } = agent;
    const adapters = new AdapterRegistry();
    adapters.register({ type: QUERY_ADAPTER_TYPE, create: () => adapter });
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

/** @internal The member config of an agent spec: how `AgentManager` takes its folder, instructions, environment, MCP servers and tools. */
export function memberOf(options: QueryAgentSpec): MemberAgentConfig {
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
