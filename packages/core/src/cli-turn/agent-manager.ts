import { assertAgentId } from '../agent-runtime/define-agent';
import { AbortError } from '../errors/abort-error';
import type { AgentError } from '../errors/agent-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { EventBus } from '../events/event-bus';
import { withEventScope } from '../events/event-scope';
import { nextProcessCount } from '../util/process-singleton';
import type { ProcessRun } from './process/agent-process';
import { outputOrThrow, ProcessManager } from './process/process-manager';
import type { ProcessOutcome } from './process/process-outcome';
import type { AgentDefinition } from './registry/registry-schema';
import type { SecretRedactor } from '../util/redact-secrets';
import { serializeError } from '../util/serialize-error';
import { assertKnownOptions, readTimeoutMs } from '../util/timeout-option';
import { defaultAdapterRegistry, type AdapterRegistry } from './adapter-registry';
import type { AgentToolHost } from './agent-tool-host';
import { AgentToolServers } from './agent-tool-servers';
import { agentErrorOfTurn, answerOfTurn, startAdapterTurn, type AdapterTurnParser } from './agent-turn-parts';
import { checkSessionOptions, sameSessionOptions, sessionTurnContext, type AgentSessionOptions } from './agent-session-options';
import type { AgentAdapter } from '../adapter/v1/agent-adapter-v1';
import type { AgentStreamPart, AgentUsage } from '../adapter/v1/agent-stream-part';
import type { AgentTurnContext, MemberAgentConfig } from '../adapter/v1/member-agent-config';
import type { JsonSchema } from '../model/v1/chat-message';
import { emptyAnswerError, resolveOutputSchema, runStructuredTurn, sumAgentUsage, type AgentOutputOf, type AgentOutputSchema, type ResolvedOutputSchema } from './agent-structured-output';

/** Where the manager finds registry entries: a map, or a lookup (the seed's `AgentConfigManager`). */
export type AgentDefinitionSource =
  | Record<string, AgentDefinition>
  | ((configId: string) => AgentDefinition | undefined | PromiseLike<AgentDefinition | undefined>);

/** Options for {@link AgentManager}. */
export interface AgentManagerOptions {
  /** Registry entries by config id. Without one, a config id names an adapter type directly. */
  definitions?: AgentDefinitionSource;
  /** Adapter types. Default: the process-wide registry. */
  adapters?: AdapterRegistry;
  /** Default: a new ProcessManager. */
  processManager?: ProcessManager;
  /** Emits `agent:*` events here. */
  eventBus?: EventBus;
  /** Total timeout per turn when none is given. Default 600 000 ms (10 min). */
  defaultTimeoutMs?: number;
  /**
   * Serves the `tools` of members' configs to their CLIs over MCP, e.g.
   * `createMcpToolHost()` from `@troupe/mcp`. Needed only by members with `tools`.
   */
  toolHost?: AgentToolHost;
  /**
   * More secrets to hide from every line, stream part, result, event and
   * error of every member's process: literal values or patterns. Added to
   * what core always hides — the values of secret-named variables in the
   * host's and the member's environment, the adapter's API key, and
   * well-known key shapes (see `ProcessConfig.secrets`).
   */
  secrets?: readonly (string | RegExp)[];
}

/** A started agent member (seed's `AgentInstance`). */
export interface AgentInstance {
  roleId: string;
  configId: string;
  adapter: AgentAdapter;
  member: MemberAgentConfig;
  /** The process waiting for the next message, if any. */
  processId: string | undefined;
  /**
   * The session the next turn resumes (when the adapter can): the session of
   * the last turn that succeeded, or that resumed an earlier session; before
   * the first turn, the `resume` id given to `ensureAgentStarted`. A
   * session first seen in a turn that failed is not kept (a CLI may never
   * have saved it: Gemini refuses `--resume` of it); the previous one stays.
   */
  sessionId: string | undefined;
  /**
   * The session options the member was started with
   * (`ensureAgentStarted`'s fourth argument); `{}` when none.
   */
  sessionOptions: Readonly<AgentSessionOptions>;
  turns: number;
}

/** Options for one turn. */
export interface AgentSendOptions {
  /** Time limit of the turn in ms. Default: the manager's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** @deprecated Renamed `timeoutMs`; still read, with a warning, until the next minor version. */
  timeout?: number;
  /** Cancels the turn: its whole process group is killed and the turn settles `canceled` (`AbortError`). */
  signal?: AbortSignal;
  /** Member config for `prepareMessage`; default: the one given to `ensureAgentStarted`. */
  member?: MemberAgentConfig;
}

const SEND_OPTION_KEYS: readonly string[] = ['timeoutMs', 'signal', 'member'];
const TYPED_OPTION_KEYS: readonly string[] = [...SEND_OPTION_KEYS, 'schema'];

/** The send options, checked: not an object, or a key that is not a send option, is an error naming the right one. */
function checkSendOptions(value: unknown, keys = SEND_OPTION_KEYS): AgentSendOptions {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    throw new InvalidArgumentError('options', `expected { member?, signal?, timeoutMs? }, got ${value === null ? 'null' : typeof value}`);
  }
  assertKnownOptions(value, keys, 'options', {
    hint: 'the member config goes in options.member',
    deprecated: ['timeout'],
  });
  return value as AgentSendOptions;
}

/** Options of a typed turn: {@link AgentManager.sendAndReceive} or {@link AgentManager.send} with a `schema`. */
export interface AgentReceiveObjectOptions<TSchema extends AgentOutputSchema> extends AgentSendOptions {
  /**
   * What the answer must be: a zod 4 schema (the result's `object` is typed)
   * or a JSON Schema object. Adapters with native support hand it to their
   * CLI (`capabilities.outputSchema`); the others ask for the JSON in the
   * prompt, with one repair turn in the same session.
   */
  schema: TSchema;
}

/** What a typed turn returns: the validated object next to the answer text. */
export interface AgentObjectResult<T> {
  /** The validated object (zod's output type: defaults applied, transforms run). */
  object: T;
  /** The raw answer it was read from (redacted). */
  text: string;
  /** Turns run: 1, or 2 after the repair turn of an adapter without native schema support. */
  attempts: number;
  /** The turn the object came from. */
  result: AgentTurnResult;
}

/** Everything a finished turn produced; `T`: the object type of a typed turn (`send` with a `schema`). */
export interface AgentTurnResult<T = never> {
  /**
   * The validated object of a typed turn; `undefined` only when the turn did
   * not complete (see `outcome.status` and `agentError`). Absent without a schema.
   */
  object?: T;
  /** Turns a typed turn ran: 1, or 2 after the repair turn of an adapter without native schema support. */
  attempts?: number;
  /**
   * The answer text: the text of the turn's `turn-end` part, from the lines
   * as they were parsed once. A turn without one (an adapter whose parser
   * does not end turns, a turn completed by idle time or exit) falls back to
   * `adapter.parseResponse` of the whole output. `''` unless the turn completed.
   */
  text: string;
  parts: AgentStreamPart[];
  usage: AgentUsage | undefined;
  /** The session this turn ran in (the one the CLI reported, else the one it resumed). */
  sessionId: string | undefined;
  /**
   * Tool calls the CLI refused for lack of permission (Claude Code's
   * `permission_denials`, an ACP agent's rejected permission request). The
   * turn may still end `completed` with text claiming the work was done:
   * check this before trusting it. Empty when nothing was refused.
   */
  permissionDenials: AgentPermissionDenial[];
  /** The process outcome (status, exit code, duration, raw output). */
  outcome: ProcessOutcome;
  /** Set when the CLI reported the turn as failed (API error…), though the process completed. */
  agentError: AgentError | undefined;
}

/** One tool call the CLI refused for lack of permission (from a `warning` part with code `permission-denied`). */
export interface AgentPermissionDenial {
  /** The tool, as the CLI names it (`Write`, `write_file`…). */
  toolName: string;
  /** The CLI's id of the refused call, when it gives one. */
  toolCallId: string | undefined;
  /** The call's input, when the CLI reports it. */
  input: unknown;
  /** The CLI's explanation. */
  message: string;
}

/**
 * A turn in flight: stream its parts, await its result. A typed turn
 * (`send` with a `schema`) streams the parts of every turn it runs (its
 * repair turn's too) and settles with the last one's result and its `object`.
 */
export interface AgentTurn<T = never> extends AsyncIterable<AgentStreamPart> {
  /**
   * Settles with the turn result (see `outcome.status` and `agentError`);
   * rejects only when the turn could not start (the adapter's
   * `getProcessConfig` threw) or, for a typed turn, with a
   * `StructuredOutputError` (carrying the raw, redacted answer) when it
   * completed without a valid object: never a silent success.
   */
  readonly result: Promise<AgentTurnResult<T>>;
  /** The process run, once spawned (to cancel it or read raw lines). */
  readonly run: Promise<ProcessRun>;
}

/**
 * Runs agent members through their adapters (seed 001 §6): starts each
 * member's CLI lazily, sends messages, reads normalized stream parts, and
 * resumes the CLI's session on the next turn when the adapter can.
 *
 * @example
 * ```ts
 * const manager = new AgentManager({ eventBus });
 * await manager.ensureAgentStarted('max', 'claude', { systemInstruction: 'You are Max, a tech lead.' });
 * const reply = await manager.sendAndReceive('max', 'Review src/index.ts');
 * await manager.cleanup();
 * ```
 */
export class AgentManager {
  private readonly agents = new Map<string, AgentInstance>();
  /** The MCP servers of members' Troupe `tools`. */
  private readonly toolServers: AgentToolServers;
  /** Turns in flight by role, so stopping a member cancels them. */
  private readonly turnsInFlight = new Map<string, Set<{ controller: AbortController; result: Promise<unknown> }>>();
  /** Per role: why the session of its last turn is not resumed (reported as a `warning` part at the start of its next turn). */
  private readonly unresumedSessions = new Map<string, string>();
  /** Per role: `continue` / `forkSession` still to apply, until a turn succeeds in the session they lead to. */
  private readonly pendingSessionStarts = new Map<string, AgentSessionOptions>();
  private readonly processManager: ProcessManager;
  private readonly adapters: AdapterRegistry;
  private readonly defaultTimeoutMs: number;

  constructor(private readonly options: AgentManagerOptions = {}) {
    this.processManager = options.processManager ?? new ProcessManager({ eventBus: options.eventBus });
    this.adapters = options.adapters ?? defaultAdapterRegistry;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 600_000;
    this.toolServers = new AgentToolServers(options.toolHost);
  }

  /**
   * Makes sure a member has an agent: creates its adapter and spawns its
   * process (warm) unless already started. Returns the process id.
   *
   * `session` picks the session of the first turn: `resume` a session id
   * (from an earlier turn's `result.sessionId`, in this process or another),
   * `continue` the last session of the working folder, and `forkSession` to
   * run in a copy of it. Later turns resume whatever session the previous
   * turn ended in. See {@link AgentSessionOptions}.
   *
   * @throws InvalidArgumentError when `roleId` is not an agent id (`AGENT_ID_PATTERN`: letters, digits, `.`, `_`, `:`, `-`),
   * or a session option is malformed (a session id of the wrong shape for the adapter's CLI, `resume` with `continue`…).
   * @throws CapabilityUnsupportedError when the adapter cannot honour a session option (naming the adapter and the option).
   * @throws InvalidStateError when the role is already started with other session options.
   * @throws AdapterNotFoundError when no adapter matches `configId`.
   * @throws ConfigError / InvalidArgumentError for a bad member config.
   *
   * @example
   * ```ts
   * // Resume, in this process, the session a turn of another process ended in.
   * await manager.ensureAgentStarted('coder', 'claude', { workDir: '/repo' }, { resume: savedSessionId });
   * const result = await manager.send('coder', 'Go on with the plan').result;
   * ```
   */
  async ensureAgentStarted(roleId: string, configId: string, member: MemberAgentConfig = {}, session?: AgentSessionOptions): Promise<string> {
    assertAgentId(roleId, 'roleId');
    const existing = this.agents.get(roleId);
    if (existing) {
      const sessionOptions = checkSessionOptions(session, existing.adapter);
      if (session !== undefined && !sameSessionOptions(sessionOptions, existing.sessionOptions)) {
        throw new InvalidStateError(
          `Role "${roleId}" is already started with other session options; stopAgent("${roleId}") first to start it in another session`,
        );
      }
      if (existing.processId && this.processManager.isReady(existing.processId)) return existing.processId;
      existing.processId = await this.spawn(existing);
      return existing.processId;
    }
    const adapter = await this.createAdapter(configId);
    const sessionOptions = Object.freeze({ ...checkSessionOptions(session, adapter) });
    const instance: AgentInstance = {
      roleId,
      configId,
      adapter,
      member,
      processId: undefined,
      sessionId: sessionOptions.resume,
      sessionOptions,
      turns: 0,
    };
    if (sessionOptions.continue === true || sessionOptions.forkSession === true) this.pendingSessionStarts.set(roleId, sessionOptions);
    try {
      instance.processId = await this.spawn(instance);
    } catch (error) {
      this.pendingSessionStarts.delete(roleId);
      await this.toolServers.close(roleId);
      throw error;
    }
    this.agents.set(roleId, instance);
    this.options.eventBus?.emit('agent:started', { roleId, adapterType: adapter.adapterId, processId: instance.processId });
    return instance.processId;
  }

  /**
   * Sends a message and streams the turn as normalized parts. The process is
   * respawned for each turn (each CLI answers one message per process); the
   * next turn resumes the session when the adapter supports it.
   *
   * Each turn calls the adapter's turn-start hook (`startTurn`) and gives
   * every line to `parseLine` with the turn's context. The turn failed
   * (`result.agentError`) when any of its `turn-end` parts is an error: a
   * later `turn-end` never overrides it, and a second `turn-end` in one turn
   * is reported with a `TroupeWarning` (`TROUPE_TURN_END_REPEATED`).
   *
   * With a `schema`, a typed turn that streams: the parts of its turn (and of
   * the repair turn of an adapter without native schema support) as they
   * come, then the result with the validated `object`, checked as
   * `sendAndReceive({ schema })` checks it; a turn that completed without a
   * valid object rejects `result` with a `StructuredOutputError`.
   *
   * @example
   * ```ts
   * const turn = manager.send('reviewer', 'Review the diff', { schema: Review });
   * for await (const part of turn) if (part.type === 'text-delta') process.stdout.write(part.text);
   * const { object } = await turn.result; // typed; StructuredOutputError when there is none
   * ```
   */
  send<TSchema extends AgentOutputSchema = never>(
    roleId: string,
    message: string,
    options: AgentSendOptions & { schema?: TSchema } = {},
  ): AgentTurn<AgentOutputOf<TSchema>> {
    const checked = checkSendOptions(options, TYPED_OPTION_KEYS) as AgentSendOptions & { schema?: unknown };
    if (!('schema' in checked)) return this.startTurn(roleId, message, checked, undefined);
    const { schema, ...sendOptions } = checked;
    return this.startTypedTurn(roleId, message, sendOptions, resolveOutputSchema(schema)) as AgentTurn<AgentOutputOf<TSchema>>;
  }

  /**
   * A typed turn: runs {@link runStructuredTurn} over turns of
   * {@link startTurn}, relaying every turn's parts to one stream. A turn that
   * does not complete ends it with that turn's result (no repair turn).
   */
  private startTypedTurn(roleId: string, message: string, options: AgentSendOptions, schema: ResolvedOutputSchema): AgentTurn<unknown> {
    const instance = this.agents.get(roleId);
    // What startTurn would throw synchronously (AGENT_NOT_RUNNING, a message that is not a string), thrown here too.
    if (!instance || typeof message !== 'string') return this.startTurn(roleId, message, options, undefined) as never;
    const parts: AgentStreamPart[] = [];
    const listeners = new Set<(part: AgentStreamPart | undefined) => void>();
    const runs: Promise<ProcessRun>[] = [];
    /** Every turn's result: the usage of a turn that did not complete is still spent. */
    const ended: AgentTurnResult[] = [];
    /** The result of a turn that did not complete: it ends the typed turn as it is (no repair turn). */
    let unfinished: AgentTurnResult | undefined;
    const runTurn = async (text: string, outputSchema: JsonSchema | undefined): Promise<AgentTurnResult> => {
      const turn = this.startTurn(roleId, text, options, outputSchema);
      runs.push(turn.run);
      for await (const part of turn) {
        parts.push(part);
        for (const listener of listeners) listener(part);
      }
      const result = await turn.result;
      ended.push(result);
      if (result.outcome.status !== 'completed' || result.agentError) {
        unfinished = result;
        throw new InvalidStateError('the turn did not complete');
      }
      return result;
    };
    // runStructuredTurn calls runTurn synchronously: the first turn has started when it returns.
    const result = runStructuredTurn(instance.adapter, message, schema, runTurn).then(
      ({ object, turn, attempts, usage }): AgentTurnResult<unknown> => ({ ...turn, object, attempts, usage }),
      (error: unknown) => {
        if (unfinished === undefined) throw error;
        const usage = sumAgentUsage(ended.map((turn) => turn.usage));
        // The CLI failed the turn because the answer was empty: no object came back, as for an empty answer it let pass.
        const empty = emptyAnswerError(instance.adapter.adapterId, unfinished, runs.length, usage);
        if (empty) throw empty;
        return { ...unfinished, object: undefined, attempts: runs.length, usage };
      },
    );
    return {
      result,
      run: typedTurnRun(runs, result),
      [Symbol.asyncIterator]: () => partsIterator(parts, listeners, result as Promise<unknown>),
    };
  }

  /** A turn; `outputSchema` only for adapters with native schema support (their process is started with it). */
  private startTurn(roleId: string, message: string, options: AgentSendOptions, outputSchema: JsonSchema | undefined): AgentTurn {
    const instance = this.agents.get(roleId);
    if (!instance) {
      throw new InvalidStateError(`Role "${roleId}" has no running agent; call ensureAgentStarted() first`, {
        code: 'AGENT_NOT_RUNNING',
      });
    }
    if (typeof message !== 'string') throw new InvalidArgumentError('message', `expected a string, got ${typeof message}`);
    checkSendOptions(options);
    const timeoutMs = readTimeoutMs(options, 'AgentManager.send options');
    const { adapter } = instance;
    const bus = this.options.eventBus;
    const parts: AgentStreamPart[] = [];
    const listeners = new Set<(part: AgentStreamPart | undefined) => void>();
    const turnId = `${roleId}#${nextProcessCount('core.agent-turn-id')}`;
    let model: string | undefined;
    // The session this turn resumes, and the one its CLI reports (kept for resuming only if the turn succeeds, see AgentInstance.sessionId).
    const resumedSessionId = adapter.capabilities.resume ? instance.sessionId : undefined;
    let turnSessionId: string | undefined;
    let turn: AdapterTurnParser | undefined;
    /** The process's redactor, for a `parseResponse` answer (it joins and decodes what the lines held in pieces). */
    let redactor: SecretRedactor | undefined;
    const redactAnswer = (text: string): string => (redactor ? redactor.redact(text) : text);
    const deliver = (part: AgentStreamPart): void => {
      parts.push(part);
      if (part.type === 'session') {
        turnSessionId = part.sessionId;
        model = part.model ?? model;
      }
      bus?.emit('agent:part', { roleId, turnId, part });
      for (const listener of listeners) listener(part);
    };
    // stopAgent()/cleanup() abort this controller: the turn ends as `canceled` and its process group is killed.
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    const startRun = async (): Promise<ProcessRun> => {
      // The schema goes on the command line: a warm process started without it is replaced.
      if (outputSchema !== undefined && instance.processId !== undefined) {
        await this.processManager.stopProcess(instance.processId);
        instance.processId = undefined;
      }
      if (!instance.processId || !this.processManager.isReady(instance.processId)) {
        instance.processId = await this.spawn(instance, outputSchema === undefined ? {} : { outputSchema });
      }
      const processId = instance.processId;
      instance.processId = undefined; // one turn per process
      const member = options.member ?? instance.member;
      const prepared = adapter.prepareMessage(message, member);
      redactor = this.processManager.redactorOf(processId);
      const parser = startAdapterTurn(adapter, { roleId, turnNumber: instance.turns + 1, member, message: prepared }, { redactor });
      turn = parser;
      return this.processManager.send(processId, prepared, {
        completionStrategy: adapter.getCompletionStrategy(),
        timeoutMs: timeoutMs ?? this.defaultTimeoutMs,
        signal,
        // The adapter's parser owns the end of the turn (`turn-end` strategy): a line is the last when its parts end the turn.
        onLine: ({ line, json }) => {
          let endsTurn = false;
          for (const part of parser.parse(line, json)) {
            deliver(part);
            if (part.type === 'turn-end') endsTurn = true;
          }
          return endsTurn;
        },
      });
    };
    let resolveRun!: (run: ProcessRun) => void;
    let rejectRun!: (error: unknown) => void;
    const runPromise = new Promise<ProcessRun>((resolve, reject) => {
      resolveRun = resolve;
      rejectRun = reject;
    });
    runPromise.catch(() => {}); // observed through `result`
    const started = bus?.emit('agent:turn-started', {
      roleId,
      turnId,
      adapterType: adapter.adapterId,
      ...(resumedSessionId !== undefined ? { resumeSessionId: resumedSessionId } : {}),
      timestamp: Date.now(),
    });
    // A session the last turn left unresumable: say so at the start of this turn, which does not resume it.
    const unresumed = this.unresumedSessions.get(roleId);
    if (unresumed !== undefined && adapter.capabilities.resume) {
      this.unresumedSessions.delete(roleId);
      const part: AgentStreamPart = {
        type: 'warning',
        code: 'session-not-resumed',
        message:
          `${adapter.adapterId}: not resuming ${unresumed}, so the CLI may not have saved it; ` +
          (resumedSessionId !== undefined
            ? `this turn resumes the previous session ${resumedSessionId}`
            : this.pendingSessionStarts.get(roleId)?.continue === true
              ? 'this turn continues the last session of its folder'
              : 'this turn starts a fresh session'),
      };
      parts.push(part);
      bus?.emit('agent:part', { roleId, turnId, part });
    }
    const sessionOfTurn = () => turnSessionId ?? instance.sessionId;
    const turnFields = () => {
      const sessionId = sessionOfTurn();
      return { turnId, adapterType: adapter.adapterId, ...(model !== undefined ? { model } : {}), ...(sessionId !== undefined ? { sessionId } : {}) };
    };
    // The turn's scope: events of its work (parts, usage) are charged to this role.
    const result = withEventScope({ event: started, bus, agentId: roleId }, async (): Promise<AgentTurnResult> => {
      let run: ProcessRun;
      try {
        run = await startRun();
      } catch (error) {
        rejectRun(error);
        for (const listener of listeners) listener(undefined);
        bus?.emit('agent:turn-completed', { roleId, status: 'failed', durationMs: 0, error: serializeError(error), ...turnFields() });
        throw error;
      }
      resolveRun(run);
      const outcome = await run.outcome;
      // Whatever the outcome, text held back as a possible secret is released (redacted) before the turn ends.
      for (const part of turn?.end() ?? []) deliver(part);
      // The CLI is done with this turn: nothing may still run on its behalf.
      this.toolServers.cancelCalls(roleId, new Error(`the turn of role "${roleId}" ended (${outcome.status})`));
      const agentError: AgentError | undefined = outcome.status === 'completed' ? describeTurnError(adapter, agentErrorOfTurn(adapter.adapterId, parts), outcome) : undefined;
      const failure = outcome.status !== 'completed' ? outcome.status : agentError ? 'failed' : undefined;
      if (turnSessionId !== undefined) {
        if (failure === undefined || turnSessionId === resumedSessionId) {
          instance.sessionId = turnSessionId;
          this.unresumedSessions.delete(roleId);
          // The session asked for at start is reached (continued, forked): later turns resume it like any other.
          if (failure === undefined) this.pendingSessionStarts.delete(roleId);
        } else if (adapter.capabilities.resume) {
          this.unresumedSessions.set(roleId, `session ${turnSessionId}: it began in a turn that ${failure === 'failed' ? 'failed' : `was ${failure}`}`);
        }
      }
      for (const listener of listeners) listener(undefined);
      instance.turns++;
      const usage = [...parts].reverse().find((p) => p.type === 'usage');
      bus?.emit('agent:turn-completed', {
        roleId,
        status: outcome.status,
        durationMs: outcome.durationMs,
        ...(outcome.status !== 'completed' ? { error: serializeError(outcome.error) } : agentError ? { error: serializeError(agentError) } : {}),
        ...turnFields(),
        ...(usage?.type === 'usage' ? { usage: usage.usage } : {}),
      });
      return {
        text: outcome.status === 'completed' ? (answerOfTurn(parts) ?? redactAnswer(adapter.parseResponse(outcome.output))) : '',
        parts,
        usage: usage?.type === 'usage' ? usage.usage : undefined,
        sessionId: sessionOfTurn(),
        permissionDenials: permissionDenialsOf(parts),
        outcome,
        agentError,
      };
    });
    const inFlight = { controller, result };
    let roleTurns = this.turnsInFlight.get(roleId);
    if (!roleTurns) this.turnsInFlight.set(roleId, (roleTurns = new Set()));
    roleTurns.add(inFlight);
    const settled = () => {
      roleTurns.delete(inFlight);
      if (roleTurns.size === 0 && this.turnsInFlight.get(roleId) === roleTurns) this.turnsInFlight.delete(roleId);
    };
    result.then(settled, settled);
    return {
      result,
      run: runPromise,
      [Symbol.asyncIterator]: () => partsIterator(parts, listeners, result),
    };
  }

  /**
   * Sends a message and resolves with the answer text (seed 001 §6).
   *
   * @throws ProcessError, CompletionTimeoutError, AbortError for process outcomes;
   * AgentError when the CLI reports the turn failed.
   *
   * @example
   * ```ts
   * const answer = await manager.sendAndReceive('coder', 'Add a README', { timeoutMs: 300_000, signal });
   * ```
   */
  async sendAndReceive(roleId: string, message: string, options?: AgentSendOptions): Promise<string>;
  /**
   * A typed turn: resolves with the answer's validated `object` next to its
   * text. Never a silent success: an answer that is empty, prose, invalid, or
   * a CLI that ignored the schema, is a `StructuredOutputError` carrying the
   * raw (redacted) text and the issues.
   *
   * @throws StructuredOutputError when no valid object came back; the process
   * and CLI errors of the untyped form.
   *
   * @example
   * ```ts
   * const Review = z.object({ verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()) });
   * const { object } = await manager.sendAndReceive('reviewer', 'Review the diff', { schema: Review });
   * if (object.verdict === 'reject') console.log(object.reasons);
   * ```
   */
  async sendAndReceive<TSchema extends AgentOutputSchema>(
    roleId: string,
    message: string,
    options: AgentReceiveObjectOptions<TSchema>,
  ): Promise<AgentObjectResult<AgentOutputOf<TSchema>>>;
  async sendAndReceive(
    roleId: string,
    message: string,
    options?: AgentSendOptions | AgentReceiveObjectOptions<AgentOutputSchema>,
  ): Promise<string | AgentObjectResult<unknown>> {
    const checked = checkSendOptions(options, TYPED_OPTION_KEYS) as AgentSendOptions & { schema?: unknown };
    if (!('schema' in checked)) {
      const result = await this.startTurn(roleId, message, checked, undefined).result;
      outputOrThrow(result.outcome);
      if (result.agentError) throw result.agentError;
      return result.text;
    }
    const { schema, ...sendOptions } = checked;
    const { object, attempts = 1, ...result } = await this.startTypedTurn(roleId, message, sendOptions, resolveOutputSchema(schema)).result;
    outputOrThrow(result.outcome);
    if (result.agentError) throw result.agentError;
    return { object, text: result.text, attempts, result };
  }

  /**
   * Stops a member and forgets it: a turn in flight is canceled (its result
   * settles with status `canceled`, its process group is killed), its warm
   * process and the server of its Troupe `tools` are stopped. Resolves once
   * they are gone. Unknown roles are ignored.
   */
  async stopAgent(roleId: string): Promise<void> {
    const instance = this.agents.get(roleId);
    const turns = [...(this.turnsInFlight.get(roleId) ?? [])];
    if (!instance && turns.length === 0) return;
    this.agents.delete(roleId);
    this.unresumedSessions.delete(roleId);
    this.pendingSessionStarts.delete(roleId);
    for (const turn of turns) turn.controller.abort(new AbortError(`Agent "${roleId}" was stopped`));
    await Promise.all([
      ...turns.map((turn) => turn.result.catch(() => {})),
      ...(instance?.processId ? [this.processManager.stopProcess(instance.processId)] : []),
    ]);
    await this.toolServers.close(roleId);
    if (instance) this.options.eventBus?.emit('agent:stopped', { roleId });
  }

  /** True while a member is started (between `ensureAgentStarted` and `stopAgent`). */
  isRunning(roleId: string): boolean {
    return this.agents.has(roleId);
  }

  /** Stops every member (turns in flight settle as `canceled`) and kills every process. */
  async cleanup(): Promise<void> {
    const roles = new Set([...this.agents.keys(), ...this.turnsInFlight.keys()]);
    await Promise.all([...roles].map((roleId) => this.stopAgent(roleId)));
    await this.toolServers.closeAll();
    await this.processManager.cleanup();
  }

  /** Role ids with a started agent. */
  getRunningRoles(): string[] {
    return [...this.agents.keys()];
  }

  /** The instance record of a member. */
  getAgentInfo(roleId: string): Readonly<AgentInstance> | undefined {
    return this.agents.get(roleId);
  }

  private async createAdapter(configId: string): Promise<AgentAdapter> {
    const source = this.options.definitions;
    let definition: AgentDefinition | undefined;
    if (typeof source === 'function') definition = await source(configId);
    else if (source) definition = Object.hasOwn(source, configId) ? source[configId] : undefined;
    return definition ? this.adapters.create(definition) : this.adapters.create(configId);
  }

  private async spawn(instance: AgentInstance, turn: Pick<AgentTurnContext, 'outputSchema'> = {}): Promise<string> {
    const { adapter } = instance;
    const member = await this.toolServers.adapterMember(instance.roleId, adapter, instance.member);
    const context = sessionTurnContext(adapter, instance.sessionId, this.pendingSessionStarts.get(instance.roleId));
    const config = await adapter.getProcessConfig(member, member.workDir, { ...context, ...turn, roleId: instance.roleId });
    const secrets = this.options.secrets;
    return this.processManager.startProcess(secrets && secrets.length > 0 ? { ...config, secrets: [...(config.secrets ?? []), ...secrets] } : config);
  }
}

function partsIterator(
  parts: AgentStreamPart[],
  listeners: Set<(part: AgentStreamPart | undefined) => void>,
  result: Promise<unknown>,
): AsyncIterableIterator<AgentStreamPart> {
  // Replays parts seen so far, then follows live ones until the turn ends.
  let index = 0;
  let ended = false;
  let wake: (() => void) | undefined;
  const listener = (part: AgentStreamPart | undefined) => {
    if (part === undefined) ended = true;
    wake?.();
  };
  listeners.add(listener);
  // A turn that could not start rejects `result`; the iterator just ends (the caller reads the error from `result`).
  void result.then(
    () => listener(undefined),
    () => listener(undefined),
  );
  const iterator: AsyncIterableIterator<AgentStreamPart> = {
    async next() {
      for (;;) {
        if (index < parts.length) return { value: parts[index++] as AgentStreamPart, done: false };
        if (ended) {
          listeners.delete(listener);
          return { value: undefined, done: true };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    async return() {
      listeners.delete(listener);
      ended = true;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** The `permission-denied` warnings of a turn's parts, as {@link AgentPermissionDenial}s. */
function permissionDenialsOf(parts: readonly AgentStreamPart[]): AgentPermissionDenial[] {
  const denials: AgentPermissionDenial[] = [];
  for (const part of parts) {
    if (part.type !== 'warning' || part.code !== 'permission-denied') continue;
    denials.push({ toolName: part.toolName ?? 'unknown', toolCallId: part.toolCallId, input: part.input, message: part.message });
  }
  return denials;
}

/**
 * The run of a typed turn: its first process, whose `exited` settles once the process of every turn it ran (the
 * repair turn's too) has exited, so a caller that waits for `exited` leaves no process behind.
 */
function typedTurnRun(runs: readonly Promise<ProcessRun>[], result: Promise<unknown>): Promise<ProcessRun> {
  return (runs[0] as Promise<ProcessRun>).then((first) => {
    const exited = result
      .then(noop, noop)
      .then(() => Promise.allSettled(runs.map((run) => run.then((each) => each.exited))))
      .then((settled) => {
        const exits = settled.flatMap((entry) => (entry.status === 'fulfilled' ? [entry.value] : []));
        return exits.at(-1) ?? first.exited;
      });
    return {
      get processId() {
        return first.processId;
      },
      get pid() {
        return first.pid;
      },
      outcome: first.outcome,
      exited,
      lines: () => first.lines(),
      cancel: (reason?: unknown) => first.cancel(reason),
      [Symbol.asyncIterator]: () => first[Symbol.asyncIterator](),
    };
  });
}

function noop(): void {}

/** The adapter's `describeTurnError` applied to a failed turn's error (kept as is when the hook is absent or throws). */
function describeTurnError(adapter: AgentAdapter, error: AgentError | undefined, outcome: ProcessOutcome): AgentError | undefined {
  if (error === undefined || adapter.describeTurnError === undefined) return error;
  try {
    return adapter.describeTurnError(error, { head: outcome.stderrHead, tail: outcome.stderrTail });
  } catch {
    return error;
  }
}
