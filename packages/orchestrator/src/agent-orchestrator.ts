import {
  AbortError,
  assertChatModel,
  EventBus,
  InvalidArgumentError,
  InvalidStateError,
  observeChatModel,
  serializeError,
  withEventScope,
  type ChatMessage,
  type SerializedError,
  type Unsubscribe,
} from '@troupe/core';
import { formatForkResult } from './agent-fork-format';
import { AgentForkRunner } from './agent-fork-runner';
import { TreeBudgets } from './orchestrator-budget';
import { DEFAULT_MAX_CONCURRENCY, type AgentOrchestratorOptions, type ForkContext, type RunAgentOptions } from './agent-orchestrator-options';
import { buildTreeSnapshot, toAgentInfo, type AgentRecord } from './agent-record';
import { AgentRunner } from './agent-runner';
import { orchestratorSinks } from './agent-runner-sinks';
import type { AgentRunnerSinks } from './agent-runner-types';
import { AgentSlots, type ReleaseSlot } from './agent-slots';
import { assertTransition, isTerminalStatus } from './agent-status';
import {
  defineAgentStrategy,
  DEFAULT_SUB_AGENT_STRATEGY,
  renderSystemPrompt,
  type AgentPromptVariables,
  type AgentStrategy,
} from './agent-strategy';
import { AgentFailedError, AgentTerminatedError, AgentTimeoutError, UnknownAgentError } from './orchestrator-errors';
import { registerOrchestratorEvents } from './orchestrator-events';
import type {
  AgentInfo,
  AgentRunResult,
  AgentRuntimeStatus,
  AgentStatusChange,
  AgentTaskContext,
  AgentTreeSnapshot,
  ForkResult,
  SubAgentSpec,
} from './orchestrator-types';
import { ToolManager } from './tool-manager';


/**
 * The agent tree orchestrator (seed 004's `AgentOrchestrator`, host-agnostic):
 * creates agents with ids and parent links, runs them on chat models through
 * {@link AgentRunner}s, forks sub-agents that run in parallel while their
 * parent waits and merges their results back into the parent's context,
 * retries failed sub-agents under their strategy's policy, terminates whole
 * subtrees (model streams, tool processes, timers), keeps at most
 * `maxConcurrency` agents running, and reports every status change as an
 * event.
 *
 * Status machine: `idle` → `running` → `completed` | `error` | `terminated`,
 * with `forking` while an agent waits for its sub-agents (see
 * `AGENT_STATUS_TRANSITIONS`); any other move throws.
 *
 * It is an ordinary instance (one per session); `getDefaultOrchestrator()`
 * offers a shared one for hosts that want a single manager.
 *
 * @example
 * ```ts
 * const orchestrator = new AgentOrchestrator({ model: createAnthropicModel(), workspaceRoot: process.cwd(), maxConcurrency: 4 });
 * orchestrator.onAgentStatusChanged(({ agentId, from, to }) => console.log(`${agentId}: ${from} → ${to}`));
 * const mainId = orchestrator.createAgent(
 *   { task: 'Summarize src/: fork one sub-agent per folder, then merge their notes.' },
 *   { type: 'main', systemPrompt: 'You lead a team. Use fork_agents for independent parts. Tools: {{tools}}' },
 * );
 * const result = await orchestrator.runAgent(mainId, { signal: AbortSignal.timeout(600_000) });
 * console.log(result.text, orchestrator.getAgentTree());
 * ```
 */
export class AgentOrchestrator {
  /** Where the `orchestrator:*` events go. */
  readonly bus: EventBus;
  /** The tools agents get (a thin layer over core's `ToolRegistry`). */
  readonly tools: ToolManager;
  /** Most agents running at once. */
  readonly maxConcurrency: number;
  private readonly options: AgentOrchestratorOptions;
  private readonly slots: AgentSlots;
  private readonly records = new Map<string, AgentRecord>();
  private readonly strategies = new Map<string, AgentStrategy>();
  private readonly subAgentStrategy: AgentStrategy;
  private readonly idPrefix: string;
  private nextAgent = 1;
  private readonly forks: AgentForkRunner;
  private readonly budgets: TreeBudgets | undefined;

  constructor(options: AgentOrchestratorOptions = {}) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected AgentOrchestrator options');
    registerOrchestratorEvents();
    this.options = options;
    this.maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    this.slots = new AgentSlots(this.maxConcurrency);
    this.bus = options.bus ?? new EventBus({ source: 'orchestrator' });
    this.budgets = TreeBudgets.create(options.budget, this.bus, options.ledger, (rootId, reason) => void this.terminateAgent(rootId, reason).catch(() => undefined));
    this.tools = options.tools ?? new ToolManager();
    if (!(this.tools instanceof ToolManager)) throw new InvalidArgumentError('tools', 'expected a ToolManager');
    this.idPrefix = options.idPrefix ?? 'agent';
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(this.idPrefix)) throw new InvalidArgumentError('idPrefix', `expected 1-32 of A-Za-z0-9_.-, got ${JSON.stringify(this.idPrefix)}`);
    if (options.model !== undefined) assertChatModel(options.model, 'options.model');
    this.subAgentStrategy = defineAgentStrategy(options.subAgentStrategy ?? DEFAULT_SUB_AGENT_STRATEGY);
    for (const strategy of options.strategies ?? []) this.registerStrategy(strategy);
    this.forks = new AgentForkRunner({
      bus: this.bus,
      record: (agentId) => this.records.get(agentId),
      resolveStrategy: (strategy) => this.resolveStrategy(strategy, this.subAgentStrategy),
      // Template and whitelist checked before the parent pauses (the real id is not known yet).
      checkAgent: (parent, strategy, context) => void renderSystemPrompt(strategy, this.promptVariables(`${this.idPrefix}-0`, parent.id, strategy, context)),
      createRecord: (context, strategy, attempt, retryOf) => this.createRecord(context, strategy, attempt, retryOf),
      execute: (record) => this.execute(record),
      transition: (record, to) => this.transition(record, to),
      takeSlot: (record, priority, expected) => this.takeSlot(record, priority, expected),
      terminateAgent: (agentId, reason) => this.terminateAgent(agentId, reason),
    });
  }

  /** Makes a strategy available by its `type` (to `createAgent` and forks). Returns a function that removes it. */
  registerStrategy(strategy: AgentStrategy): () => void {
    const checked = defineAgentStrategy(strategy);
    if (this.strategies.has(checked.type)) {
      throw new InvalidArgumentError('strategy.type', `a strategy of type "${checked.type}" is already registered`);
    }
    this.strategies.set(checked.type, checked);
    return () => {
      if (this.strategies.get(checked.type) === checked) this.strategies.delete(checked.type);
    };
  }

  /** The registered strategy of this type, or `undefined`. */
  getStrategy(type: string): AgentStrategy | undefined {
    return this.strategies.get(type);
  }

  /**
   * Creates an agent (status `idle`): assigns its id, links it to
   * `context.parentId` (it is then a sub-agent, with `sub` tools), checks its
   * tool whitelist and renders its system prompt (bad input throws here).
   * Start it with {@link runAgent}.
   */
  createAgent(context: AgentTaskContext, strategy: AgentStrategy | string): string {
    return this.createRecord(context, strategy, 1, undefined).id;
  }

  /**
   * Runs an `idle` agent: waits for a concurrency slot, then runs its loop.
   * Resolves with its result when it completes; rejects with
   * {@link AgentFailedError} (status `error`) or {@link AgentTerminatedError}.
   */
  runAgent(agentId: string, options: RunAgentOptions = {}): Promise<AgentRunResult> {
    const record = this.require(agentId);
    if (record.started || record.status !== 'idle') {
      return Promise.reject(new InvalidStateError(`Agent "${agentId}" cannot run again (status ${record.status}); create a new agent`));
    }
    return this.execute(record, options);
  }

  /**
   * Forks sub-agents of a running agent (seed 004's fork): the parent pauses
   * at its next step boundary and goes to `forking` (giving its slot back),
   * the sub-agents run in parallel within the concurrency limit (failed ones
   * are retried per their strategy's `retry`), then their results — failures
   * included — are merged back into the parent's context as a message, and
   * the parent takes a slot again and goes on.
   *
   * Models fork by themselves with the `fork_agents` tool (main agents).
   * Rejects with {@link AgentTerminatedError} when the parent is terminated meanwhile.
   */
  async requestFork(parentId: string, subAgents: readonly SubAgentSpec[], context: ForkContext = {}): Promise<ForkResult> {
    const parent = this.require(parentId);
    const runner = parent.runner;
    if ((parent.status !== 'running' && parent.status !== 'forking') || !runner) {
      throw new InvalidStateError(`Agent "${parentId}" is ${parent.status}; only a running agent can fork`);
    }
    const entries = this.forks.prepare(parent, subAgents, context);
    const hold = runner.hold();
    try {
      await hold.paused;
      if (runner.state !== 'paused') {
        throw new InvalidStateError(`Agent "${parentId}" ended (${parent.status}) before it could fork`);
      }
      const result = await this.forks.run(parent, entries(), context);
      runner.injectMessages([{ role: 'user', content: formatForkResult(result) }]);
      return result;
    } finally {
      hold.release();
    }
  }

  /**
   * Terminates an agent and every descendant: cancels their model streams
   * and queued slots, aborts their tools (killing their processes), clears
   * their timers, and moves each to `terminated`. Resolves, with the ids
   * terminated, once they have all stopped. Agents already ended are left as
   * they are.
   */
  async terminateAgent(agentId: string, reason = 'terminated by request'): Promise<string[]> {
    const record = this.require(agentId);
    if (typeof reason !== 'string') throw new InvalidArgumentError('reason', 'expected a string');
    const subtree = this.subtree(record);
    const terminated: AgentRecord[] = [];
    // Every status first, then the aborts: an abort's listeners (a fork stopping its members) then find them ended.
    for (const member of subtree) {
      if (isTerminalStatus(member.status)) continue;
      member.terminationReason = member === record ? reason : `ancestor "${record.id}" was terminated: ${reason}`;
      this.clearTimers(member);
      this.transition(member, 'terminated', { reason: member.terminationReason });
      terminated.push(member);
    }
    for (const member of terminated) member.controller.abort(new AgentTerminatedError(member.id, member.terminationReason ?? reason));
    await Promise.all(subtree.map((member) => member.settled));
    return terminated.map((member) => member.id);
  }

  /** Terminates every agent (e.g. when the host shuts down). Resolves once all have stopped. */
  async terminateAll(reason = 'orchestrator shut down'): Promise<string[]> {
    const roots = [...this.records.values()].filter((record) => record.parentId === undefined || !this.records.has(record.parentId));
    const lists = await Promise.all(roots.map((root) => this.terminateAgent(root.id, reason)));
    return lists.flat();
  }

  /** Pauses a running agent at its next step boundary; resolves once paused (or ended). */
  pauseAgent(agentId: string): Promise<void> {
    const record = this.require(agentId);
    if (!record.runner) return Promise.reject(new InvalidStateError(`Agent "${agentId}" is not running (status ${record.status})`));
    return record.runner.pause();
  }

  /** Resumes an agent paused with {@link pauseAgent}. */
  resumeAgent(agentId: string): void {
    this.require(agentId).runner?.resume();
  }

  /** The agent's status. Throws {@link UnknownAgentError} for an unknown id. */
  getAgentStatus(agentId: string): AgentRuntimeStatus {
    return this.require(agentId).status;
  }

  /** The agent as plain data (status, parent, attempt, result…). */
  getAgent(agentId: string): AgentInfo {
    return toAgentInfo(this.require(agentId));
  }

  /** A snapshot of the whole tree: roots with their subtrees, counts per status. */
  getAgentTree(): AgentTreeSnapshot {
    return buildTreeSnapshot(this.records, this.maxConcurrency);
  }

  /**
   * Calls `listener` on every status change (also emitted on the bus as
   * `orchestrator:agent-status-changed`). Returns a function that unsubscribes.
   */
  onAgentStatusChanged(listener: (change: AgentStatusChange) => void): Unsubscribe {
    if (typeof listener !== 'function') throw new InvalidArgumentError('listener', 'expected a function');
    return this.bus.on('orchestrator:agent-status-changed', (event) => listener(event.payload as AgentStatusChange));
  }

  /**
   * Forgets an ended agent and its subtree (all must be ended), to free
   * memory in long sessions. Returns how many agents were removed.
   */
  removeAgent(agentId: string): number {
    const record = this.require(agentId);
    const subtree = this.subtree(record);
    const live = subtree.find((member) => !isTerminalStatus(member.status));
    if (live) throw new InvalidStateError(`Agent "${live.id}" is still ${live.status}; terminate it before removing "${agentId}"`);
    for (const member of subtree) this.records.delete(member.id);
    const parent = record.parentId === undefined ? undefined : this.records.get(record.parentId);
    if (parent) parent.children.splice(parent.children.indexOf(record.id), 1);
    return subtree.length;
  }

  // ---------------------------------------------------------------- creation

  private resolveStrategy(strategy: AgentStrategy | string | undefined, fallback?: AgentStrategy): AgentStrategy {
    if (strategy === undefined && fallback) return fallback;
    if (typeof strategy === 'string') {
      const found = this.strategies.get(strategy);
      if (!found) {
        const known = [...this.strategies.keys()];
        throw new InvalidArgumentError('strategy', `no strategy of type "${strategy}" is registered${known.length > 0 ? `; registered: ${known.join(', ')}` : ''}`);
      }
      return found;
    }
    if (strategy === undefined) throw new InvalidArgumentError('strategy', 'expected an AgentStrategy or the type of a registered one');
    return defineAgentStrategy(strategy);
  }

  private createRecord(context: AgentTaskContext, strategyInput: AgentStrategy | string | undefined, attempt: number, retryOf: string | undefined, fallback?: AgentStrategy): AgentRecord {
    if (context === null || typeof context !== 'object') throw new InvalidArgumentError('context', 'expected an AgentTaskContext object');
    const { task, messages, parentId } = context;
    if (task !== undefined && (typeof task !== 'string' || task.trim() === '')) throw new InvalidArgumentError('context.task', 'expected a non-empty string');
    if (messages !== undefined && !Array.isArray(messages)) throw new InvalidArgumentError('context.messages', 'expected an array of chat messages');
    if (task === undefined && (messages === undefined || messages.length === 0)) {
      throw new InvalidArgumentError('context', 'give the agent a task or at least one message');
    }
    const parent = parentId === undefined ? undefined : this.require(parentId);
    if (parent && isTerminalStatus(parent.status)) {
      throw new InvalidStateError(`Agent "${parent.id}" is ${parent.status}; it cannot get new sub-agents`);
    }
    const strategy = this.resolveStrategy(strategyInput, fallback);
    const model = strategy.model ?? this.options.model;
    if (!model) {
      throw new InvalidArgumentError('strategy.model', `strategy "${strategy.type}" has no model and the orchestrator has no default model (options.model)`);
    }
    const kind = parent ? 'sub' : 'main';
    const id = `${this.idPrefix}-${this.nextAgent++}`;
    const systemPrompt = renderSystemPrompt(strategy, this.promptVariables(id, parent?.id, strategy, context));
    const now = Date.now();
    const initialMessages: ChatMessage[] = [...(messages ?? []), ...(task !== undefined ? [{ role: 'user' as const, content: task }] : [])];
    const record: AgentRecord = {
      id,
      parentId: parent?.id,
      rootId: parent?.rootId ?? id,
      kind,
      strategy,
      // The messages live in `initialMessages` until the run starts, then in the runner.
      context: { ...context, messages: undefined, ...(context.labels ? { labels: [...context.labels] } : {}) },
      systemPrompt,
      createdAt: now,
      attempt,
      retryOf,
      children: [],
      controller: new AbortController(),
      timers: new Set(),
      status: 'idle',
      updatedAt: now,
      started: false,
      queued: false,
      initialMessages,
      runner: undefined,
      releaseSlot: undefined,
      activeForks: 0,
      iterations: 0,
      result: undefined,
      error: undefined,
      terminationReason: undefined,
      timedOut: false,
      settled: Promise.resolve(),
    };
    this.records.set(id, record);
    parent?.children.push(id);
    if (!parent) this.budgets?.start(id);
    this.bus.emit('orchestrator:agent-created', {
      agentId: id,
      parentId: record.parentId,
      rootId: record.rootId,
      kind,
      strategyType: strategy.type,
      attempt,
      retryOf,
      task,
    });
    return record;
  }

  /** The template variables of an agent (also checks its tool whitelist). */
  private promptVariables(agentId: string, parentId: string | undefined, strategy: AgentStrategy, context: AgentTaskContext): AgentPromptVariables {
    const kind = parentId === undefined ? 'main' : 'sub';
    return {
      task: context.task ?? '',
      agentId,
      parentId: parentId ?? '',
      kind,
      strategy: strategy.type,
      tools: this.tools
        .getToolsForAgent(kind, strategy.tools)
        .map((tool) => tool.name)
        .join(', '),
      strategies: [...this.strategies.values()].map((known) => `- ${known.type}${known.description ? `: ${known.description}` : ''}`).join('\n'),
      ...context.variables,
    };
  }

  // --------------------------------------------------------------- running

  private async execute(record: AgentRecord, options: RunAgentOptions = {}): Promise<AgentRunResult> {
    record.started = true;
    let settle: () => void = () => undefined;
    record.settled = new Promise<void>((resolve) => (settle = resolve));
    const { signal } = options;
    const onSignal = () => void this.terminateAgent(record.id, 'the run signal was aborted').catch(() => undefined);
    if (signal?.aborted) onSignal();
    else signal?.addEventListener('abort', onSignal, { once: true });
    try {
      const release = await this.takeSlot(record, 'normal', 'idle');
      record.releaseSlot = release;
      this.transition(record, 'running');
      this.startTimeout(record);
      const runner = new AgentRunner({
        // Its model calls emit `model:*` events (tracing, the usage ledger).
        model: observeChatModel((record.strategy.model ?? this.options.model)!, { eventBus: this.bus }),
        system: record.systemPrompt,
        tools: this.tools.getToolsForAgent(record.kind, record.strategy.tools),
        agentKind: record.kind,
        agentId: record.id,
        maxIterations: record.strategy.maxIterations,
        sinks: orchestratorSinks(
          this.bus,
          record.id,
          [this.options.sinks?.(toAgentInfo(record)), options.sinks].filter((sink): sink is AgentRunnerSinks => sink !== undefined),
          (iteration) => (record.iterations = iteration),
        ),
        fork: (subAgents, forkOptions) => this.forks.run(record, this.forks.prepare(record, subAgents, forkOptions ?? {})(), forkOptions ?? {}),
        ...optional('toolCallFormat', record.strategy.toolCallFormat),
        ...optional('endMarker', record.strategy.endMarker),
        ...optional('workspaceRoot', record.context.workspaceRoot ?? this.options.workspaceRoot),
        ...optional('toolData', record.context.data),
        ...optional('abortGraceMs', this.options.abortGraceMs),
        ...optional('maxOutputTokens', record.strategy.maxOutputTokens),
        ...optional('temperature', record.strategy.temperature),
      });
      record.runner = runner;
      const messages = record.initialMessages ?? [];
      record.initialMessages = undefined;
      // The agent's event scope: its calls are charged to it and to its tree, and traced under its span.
      const scope = { bus: this.bus, agentId: record.id, run: { kind: 'orchestrator', id: record.rootId } };
      const result = await withEventScope(scope, () => runner.run(messages, { signal: record.controller.signal }));
      record.iterations = result.iterations;
      if (result.finish && !result.finish.success) {
        throw new AgentFailedError(record.id, `it reported that it could not do its task: ${result.finish.result}`);
      }
      record.result = result.text;
      this.transition(record, 'completed');
      return {
        agentId: record.id,
        status: 'completed',
        text: result.text,
        stopReason: result.stopReason,
        iterations: result.iterations,
        usage: result.usage,
        messages: result.messages,
      };
    } catch (error) {
      throw this.failure(record, error);
    } finally {
      signal?.removeEventListener('abort', onSignal);
      this.clearTimers(record);
      if (record.runner) record.iterations = record.runner.iterations;
      record.runner = undefined;
      record.releaseSlot?.();
      record.releaseSlot = undefined;
      if (record.status === 'error' || record.status === 'terminated') await this.endDescendants(record);
      settle();
    }
  }

  /** The error a failed run rejects with; moves the agent to `error` unless it was terminated. */
  private failure(record: AgentRecord, error: unknown): AgentFailedError | AgentTerminatedError {
    if (record.status === 'terminated') {
      return AgentTerminatedError.isInstance(error) && error.agentId === record.id
        ? error
        : new AgentTerminatedError(record.id, record.terminationReason ?? 'terminated', { cause: error });
    }
    const cause = record.timedOut ? new AgentTimeoutError(record.id, record.strategy.timeoutMs ?? 0) : error;
    const failure =
      AgentFailedError.isInstance(cause) && cause.agentId === record.id
        ? cause
        : new AgentFailedError(record.id, cause instanceof Error ? cause.message : String(cause), { cause });
    if (!isTerminalStatus(record.status)) this.transition(record, 'error', { error: serializeError(cause) });
    return failure;
  }

  /** A failed or terminated agent leaves no live descendant behind. */
  private async endDescendants(record: AgentRecord): Promise<void> {
    const live = this.subtree(record).filter((member) => member !== record && !isTerminalStatus(member.status));
    const reason = `ancestor "${record.id}" ended in ${record.status}`;
    await Promise.all(live.filter((member) => !isTerminalStatus(member.status)).map((member) => this.terminateAgent(member.id, reason)));
  }

  /** Waits for a slot while in `expected` status; gives it back at once if the agent was terminated meanwhile. */
  private async takeSlot(record: AgentRecord, priority: 'normal' | 'high', expected: AgentRuntimeStatus): Promise<ReleaseSlot> {
    record.queued = true;
    let release: ReleaseSlot;
    try {
      release = await this.slots.acquire(record.controller.signal, priority);
    } catch (error) {
      throw AbortError.isInstance(error) ? new AgentTerminatedError(record.id, record.terminationReason ?? 'terminated', { cause: error }) : error;
    } finally {
      record.queued = false;
    }
    if (record.status !== expected) {
      release();
      throw new AgentTerminatedError(record.id, record.terminationReason ?? `status is ${record.status}`);
    }
    return release;
  }

  private startTimeout(record: AgentRecord): void {
    const { timeoutMs } = record.strategy;
    if (timeoutMs === undefined) return;
    const timer = setTimeout(() => {
      record.timers.delete(timer);
      record.timedOut = true;
      record.controller.abort(new AgentTimeoutError(record.id, timeoutMs));
    }, timeoutMs);
    record.timers.add(timer);
  }

  private clearTimers(record: AgentRecord): void {
    for (const timer of record.timers) clearTimeout(timer);
    record.timers.clear();
  }

  // ---------------------------------------------------------------- helpers

  private transition(record: AgentRecord, to: AgentRuntimeStatus, extra: { reason?: string; error?: SerializedError } = {}): void {
    const from = record.status;
    assertTransition(record.id, from, to);
    record.status = to;
    record.updatedAt = Date.now();
    if (extra.error) record.error = extra.error;
    else if (to === 'terminated' && extra.reason !== undefined) record.error = { name: 'AgentTerminatedError', message: extra.reason, code: 'ABORTED' };
    const change: AgentStatusChange = {
      agentId: record.id,
      parentId: record.parentId,
      rootId: record.rootId,
      kind: record.kind,
      strategyType: record.strategy.type,
      from,
      to,
      ...optional('reason', extra.reason),
      ...optional('error', extra.error),
      timestamp: record.updatedAt,
    };
    this.bus.emit('orchestrator:agent-status-changed', change);
    if (record.id === record.rootId && isTerminalStatus(to)) this.budgets?.end(record.id);
  }

  private subtree(record: AgentRecord): AgentRecord[] {
    const out: AgentRecord[] = [];
    const visit = (member: AgentRecord) => {
      out.push(member);
      for (const childId of member.children) {
        const child = this.records.get(childId);
        if (child) visit(child);
      }
    };
    visit(record);
    return out;
  }

  private require(agentId: string): AgentRecord {
    const record = typeof agentId === 'string' ? this.records.get(agentId) : undefined;
    if (!record) throw new UnknownAgentError(String(agentId));
    return record;
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
