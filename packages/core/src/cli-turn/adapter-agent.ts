import type { AgentManager } from './agent-manager';
import type { AgentUsage } from '../adapter/v1/agent-stream-part';
import type { MemberAgentConfig } from '../adapter/v1/member-agent-config';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { outputOrThrow } from './process/process-manager';
import { assertAgentId, startExecution } from '../agent-runtime/define-agent';
import type { AgentContext, AgentOutput, AgentSinks, ExecutionHandle, RunnableAgent } from '../agents/runnable-agent';

/** Options for {@link createAdapterAgent}. */
export interface AdapterAgentOptions {
  /** Runs the member's CLI. */
  manager: AgentManager;
  /** The member's role id in the manager (one CLI session per role). */
  roleId: string;
  /** Adapter type or registry entry id (`claude`, `codex`, `gemini`…). */
  configId: string;
  /**
   * The member's settings (system prompt, extra args, env, work directory).
   * When `workDir` is unset, the first run's `context.workspacePath` is used.
   */
  member?: MemberAgentConfig;
  /** Agent id; default `roleId`. */
  id?: string;
  /** Default: `<configId> CLI agent (role <roleId>)`. */
  description?: string;
  /**
   * Time limit of a turn in ms when the run's caller gives none: the run's
   * `context.timeoutMs` (a Looper step's, through its `TaskManager`) always
   * wins over it, so a step allowed 15 minutes gets a 15-minute turn.
   * Default: the manager's `defaultTimeoutMs`.
   */
  timeoutMs?: number;
}

/** The `data` of an adapter agent's {@link AgentOutput}. */
export interface AdapterAgentData {
  roleId: string;
  sessionId: string | undefined;
  usage: AgentUsage | undefined;
  durationMs: number;
}

/**
 * Makes any registered CLI adapter (Claude Code, Codex, Gemini…) a
 * {@link RunnableAgent}: each run is one turn through `AgentManager` (the
 * CLI resumes its session on the next run when the adapter can). Text deltas
 * go to `sinks.text`, tool calls to `sinks.status`. The run fails with the
 * process error (`ProcessError`, `CompletionTimeoutError`, `AbortError`) or
 * the CLI's `AgentError`. One run at a time per agent: a second concurrent
 * run fails with `InvalidStateError`. The turn's time limit is the run's
 * `context.timeoutMs` (the caller's), else `options.timeoutMs`, else the
 * manager's `defaultTimeoutMs`: a default never cuts a caller's limit short.
 *
 * @example
 * ```ts
 * registerClaudeCodeAdapter();
 * const manager = new AgentManager({ eventBus });
 * const coder = createAdapterAgent({ manager, roleId: 'coder', configId: 'claude', member: { workDir: '/repo' } });
 * const { completion } = coder.start('Add a README', {}, { text: (t) => process.stdout.write(t) });
 * console.log((await completion).text);
 * ```
 */
export function createAdapterAgent(options: AdapterAgentOptions): RunnableAgent {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { manager, roleId, configId }');
  const { manager, roleId, configId } = options;
  if (!manager || typeof manager.send !== 'function') throw new InvalidArgumentError('manager', 'expected an AgentManager');
  if (typeof roleId !== 'string' || roleId === '') throw new InvalidArgumentError('roleId', 'expected a non-empty string');
  if (typeof configId !== 'string' || configId === '') throw new InvalidArgumentError('configId', 'expected a non-empty string');
  const id = options.id ?? roleId;
  assertAgentId(id);
  let busy = false;

  async function run(input: string, context: AgentContext, sinks: AgentSinks, signal: AbortSignal): Promise<AgentOutput> {
    if (context.timeoutMs !== undefined && !(typeof context.timeoutMs === 'number' && context.timeoutMs > 0)) {
      throw new InvalidArgumentError('context.timeoutMs', `expected a positive number of milliseconds, got ${String(context.timeoutMs)}`);
    }
    if (busy) throw new InvalidStateError(`Agent "${id}" (role ${roleId}) is already running a turn; one turn at a time`);
    busy = true;
    try {
      const member = options.member ?? {};
      const workDir = member.workDir ?? context.workspacePath;
      await manager.ensureAgentStarted(roleId, configId, workDir !== undefined ? { ...member, workDir } : member);
      sinks.status?.(`running ${configId}`);
      // The caller's limit is the turn's limit; this agent's and the manager's are defaults only.
      const timeoutMs = context.timeoutMs ?? options.timeoutMs;
      const turn = manager.send(roleId, input, { signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
      for await (const part of turn) {
        if (part.type !== 'text-delta') sinks.activity?.();
        if (part.type === 'text-delta') sinks.text?.(part.text);
        else if (part.type === 'tool-call') sinks.status?.(`tool ${part.toolName}`);
        else if (part.type === 'error' && part.retrying) sinks.status?.(`retrying: ${part.message}`);
      }
      const result = await turn.result;
      outputOrThrow(result.outcome);
      if (result.agentError) throw result.agentError;
      const data: AdapterAgentData = { roleId, sessionId: result.sessionId, usage: result.usage, durationMs: result.outcome.durationMs };
      return { text: result.text, data };
    } finally {
      busy = false;
    }
  }

  return Object.freeze({
    id,
    description: options.description ?? `${configId} CLI agent (role ${roleId})`,
    get cli() {
      return agentCliName(manager.getAgentInfo(roleId)?.adapter.adapterId ?? configId);
    },
    start(input: string, context: AgentContext = {}, sinks: AgentSinks = {}): ExecutionHandle {
      return startExecution(context, (signal) => run(input, context, sinks, signal), `Agent "${id}"`);
    },
  });
}

/** People's names of the agent CLIs of Troupe's adapters, by adapter id. */
const CLI_NAMES: Readonly<Record<string, string>> = Object.freeze({
  claude: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  'gemini-acp': 'Gemini CLI (ACP)',
  acp: 'ACP agent',
});

/** The CLI an adapter drives, for messages: `Claude Code` for `claude`, else the adapter id. */
function agentCliName(adapterId: string): string {
  return Object.hasOwn(CLI_NAMES, adapterId) ? (CLI_NAMES[adapterId] as string) : adapterId;
}
