import { AgentError } from '../errors/agent-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { EventBus } from '../events/event-bus';
import { withEventScope } from '../events/event-scope';
import type { ProcessRun } from '../process/agent-process';
import { outputOrThrow, ProcessManager } from '../process/process-manager';
import type { ProcessOutcome } from '../process/process-outcome';
import type { AgentDefinition } from '../registry/registry-schema';
import { serializeError } from '../util/serialize-error';
import { defaultAdapterRegistry, type AdapterRegistry } from './adapter-registry';
import type { AgentAdapter } from './v1/agent-adapter-v1';
import type { AgentStreamPart, AgentUsage } from './v1/agent-stream-part';
import type { MemberAgentConfig } from './v1/member-agent-config';

let turnCounter = 0;

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
}

/** A started agent member (seed's `AgentInstance`). */
export interface AgentInstance {
  roleId: string;
  configId: string;
  adapter: AgentAdapter;
  member: MemberAgentConfig;
  /** The process waiting for the next message, if any. */
  processId: string | undefined;
  /** Session id from the last turn, used to resume when the adapter can. */
  sessionId: string | undefined;
  turns: number;
}

/** Options for one turn. */
export interface AgentSendOptions {
  /** Total timeout in ms. Default: the manager's `defaultTimeoutMs`. */
  timeout?: number;
  signal?: AbortSignal;
  /** Member config for `prepareMessage`; default: the one given to `ensureAgentStarted`. */
  member?: MemberAgentConfig;
}

/** Everything a finished turn produced. */
export interface AgentTurnResult {
  /** The answer text (`adapter.parseResponse`). */
  text: string;
  parts: AgentStreamPart[];
  usage: AgentUsage | undefined;
  sessionId: string | undefined;
  /** The process outcome (status, exit code, duration, raw output). */
  outcome: ProcessOutcome;
  /** Set when the CLI reported the turn as failed (API error…), though the process completed. */
  agentError: AgentError | undefined;
}

/** A turn in flight: stream its parts, await its result. */
export interface AgentTurn extends AsyncIterable<AgentStreamPart> {
  /**
   * Settles with the turn result (see `outcome.status` and `agentError`);
   * rejects only when the turn could not start (the adapter's
   * `getProcessConfig` threw).
   */
  readonly result: Promise<AgentTurnResult>;
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
  private readonly processManager: ProcessManager;
  private readonly adapters: AdapterRegistry;
  private readonly defaultTimeoutMs: number;

  constructor(private readonly options: AgentManagerOptions = {}) {
    this.processManager = options.processManager ?? new ProcessManager({ eventBus: options.eventBus });
    this.adapters = options.adapters ?? defaultAdapterRegistry;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 600_000;
  }

  /**
   * Makes sure a member has an agent: creates its adapter and spawns its
   * process (warm) unless already started. Returns the process id.
   *
   * @throws AdapterNotFoundError when no adapter matches `configId`.
   * @throws ConfigError / InvalidArgumentError for a bad member config.
   */
  async ensureAgentStarted(roleId: string, configId: string, member: MemberAgentConfig = {}): Promise<string> {
    if (typeof roleId !== 'string' || roleId === '') throw new InvalidArgumentError('roleId', 'expected a non-empty string');
    const existing = this.agents.get(roleId);
    if (existing) {
      if (existing.processId && this.processManager.isReady(existing.processId)) return existing.processId;
      existing.processId = await this.spawn(existing);
      return existing.processId;
    }
    const adapter = await this.createAdapter(configId);
    const instance: AgentInstance = { roleId, configId, adapter, member, processId: undefined, sessionId: undefined, turns: 0 };
    instance.processId = await this.spawn(instance);
    this.agents.set(roleId, instance);
    this.options.eventBus?.emit('agent:started', { roleId, adapterType: adapter.adapterId, processId: instance.processId });
    return instance.processId;
  }

  /**
   * Sends a message and streams the turn as normalized parts. The process is
   * respawned for each turn (each CLI answers one message per process); the
   * next turn resumes the session when the adapter supports it.
   */
  send(roleId: string, message: string, options: AgentSendOptions = {}): AgentTurn {
    const instance = this.agents.get(roleId);
    if (!instance) {
      throw new InvalidStateError(`Role "${roleId}" has no running agent; call ensureAgentStarted() first`, {
        code: 'AGENT_NOT_RUNNING',
      });
    }
    if (typeof message !== 'string') throw new InvalidArgumentError('message', `expected a string, got ${typeof message}`);
    const { adapter } = instance;
    const bus = this.options.eventBus;
    const parts: AgentStreamPart[] = [];
    const listeners = new Set<(part: AgentStreamPart | undefined) => void>();
    const turnId = `${roleId}#${++turnCounter}`;
    let model: string | undefined;
    const startRun = async (): Promise<ProcessRun> => {
      if (!instance.processId || !this.processManager.isReady(instance.processId)) {
        instance.processId = await this.spawn(instance);
      }
      const processId = instance.processId;
      instance.processId = undefined; // one turn per process
      return this.processManager.send(processId, adapter.prepareMessage(message, options.member ?? instance.member), {
        completionStrategy: adapter.getCompletionStrategy(),
        timeout: options.timeout ?? this.defaultTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        onLine: ({ line, json }) => {
          let produced: AgentStreamPart[];
          try {
            produced = adapter.parseLine(line, json);
          } catch (error) {
            produced = [{ type: 'error', message: `adapter ${adapter.adapterId} could not parse a line: ${serializeError(error).message}` }];
          }
          for (const part of produced) {
            parts.push(part);
            if (part.type === 'session') {
              instance.sessionId = part.sessionId;
              model = part.model ?? model;
            }
            bus?.emit('agent:part', { roleId, turnId, part });
            for (const listener of listeners) listener(part);
          }
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
      ...(adapter.capabilities.resume && instance.sessionId !== undefined ? { resumeSessionId: instance.sessionId } : {}),
      timestamp: Date.now(),
    });
    const turnFields = () => ({ turnId, adapterType: adapter.adapterId, ...(model !== undefined ? { model } : {}), ...(instance.sessionId !== undefined ? { sessionId: instance.sessionId } : {}) });
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
      for (const listener of listeners) listener(undefined);
      instance.turns++;
      const usage = [...parts].reverse().find((p) => p.type === 'usage');
      const end = [...parts].reverse().find((p) => p.type === 'turn-end');
      let agentError: AgentError | undefined;
      if (outcome.status === 'completed' && end?.type === 'turn-end' && end.isError) {
        // The turn's own error status: skip retry notices (e.g. a 404 WebSocket fallback before a 500).
        const status = [...parts].reverse().find((p) => p.type === 'error' && p.status !== undefined && !p.retrying);
        agentError = new AgentError(`${adapter.adapterId} reported an error: ${end.text || 'turn failed'}`, {
          adapterId: adapter.adapterId,
          ...(status?.type === 'error' && status.status !== undefined ? { status: status.status } : {}),
        });
      }
      bus?.emit('agent:turn-completed', {
        roleId,
        status: outcome.status,
        durationMs: outcome.durationMs,
        ...(outcome.status !== 'completed' ? { error: serializeError(outcome.error) } : agentError ? { error: serializeError(agentError) } : {}),
        ...turnFields(),
        ...(usage?.type === 'usage' ? { usage: usage.usage } : {}),
      });
      return {
        text: outcome.status === 'completed' ? adapter.parseResponse(outcome.output) : '',
        parts,
        usage: usage?.type === 'usage' ? usage.usage : undefined,
        sessionId: instance.sessionId,
        outcome,
        agentError,
      };
    });
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
   */
  async sendAndReceive(roleId: string, message: string, member?: MemberAgentConfig, options: AgentSendOptions = {}): Promise<string> {
    const result = await this.send(roleId, message, { ...options, ...(member ? { member } : {}) }).result;
    outputOrThrow(result.outcome);
    if (result.agentError) throw result.agentError;
    return result.text;
  }

  /** Stops a member's process and forgets the member. Unknown roles are ignored. */
  async stopAgent(roleId: string): Promise<void> {
    const instance = this.agents.get(roleId);
    if (!instance) return;
    this.agents.delete(roleId);
    if (instance.processId) await this.processManager.stopProcess(instance.processId);
    this.options.eventBus?.emit('agent:stopped', { roleId });
  }

  /** True while a member is started (between `ensureAgentStarted` and `stopAgent`). */
  isRunning(roleId: string): boolean {
    return this.agents.has(roleId);
  }

  /** Stops every member and kills every process. */
  async cleanup(): Promise<void> {
    await Promise.all([...this.agents.keys()].map((roleId) => this.stopAgent(roleId)));
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
    else if (source) definition = source[configId];
    return definition ? this.adapters.create(definition) : this.adapters.create(configId);
  }

  private async spawn(instance: AgentInstance): Promise<string> {
    const { adapter, member } = instance;
    const context = adapter.capabilities.resume && instance.sessionId ? { resumeSessionId: instance.sessionId } : {};
    const config = await adapter.getProcessConfig(member, member.workDir, context);
    return this.processManager.startProcess(config);
  }
}

function partsIterator(
  parts: AgentStreamPart[],
  listeners: Set<(part: AgentStreamPart | undefined) => void>,
  result: Promise<AgentTurnResult>,
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
  void result.then(() => listener(undefined));
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
