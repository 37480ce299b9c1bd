import { assertChatModel } from '@troupe/core/model-runtime';
import { EventBus, InvalidArgumentError, InvalidStateError, type ChatMessage, type Unsubscribe } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { cliAgentParts, type CliAgentOptions, type RunCliAgentOptions } from './agent-cli-options';
import { AgentExecutor } from './orchestrator-agent-executor';
import { AgentFactory } from './agent-factory';
import { formatForkResult } from './agent-fork-format';
import { AgentForkRunner } from './agent-fork-runner';
import { resolveIsolation } from './agent-isolation';
import {
  DEFAULT_MAX_CONCURRENCY,
  type AgentOrchestratorOptions,
  type ForkContext,
  type ResumeOptions,
  type RunAgentOptions,
} from './agent-orchestrator-options';
import { buildTreeSnapshot, toAgentInfo } from './agent-record';
import { resumeSession } from './agent-session-resume';
import { AgentSessionStore } from './agent-session-store';
import { AgentSlots } from './agent-slots';
import { isTerminalStatus } from './agent-status';
import { defineAgentStrategy, DEFAULT_SUB_AGENT_STRATEGY, type AgentStrategy } from './agent-strategy';
import { AgentTree } from './agent-tree';
import { TreeBudgets } from './orchestrator-budget';
import { registerOrchestratorEvents } from './orchestrator-events';
import type {
  AgentInfo,
  AgentRunResult,
  AgentRuntimeStatus,
  AgentStatusChange,
  AgentTaskContext,
  AgentTreeSnapshot,
  ForkResult,
  OrchestratorResumeReport,
  SubAgentSpec,
} from './orchestrator-types';
import { ToolManager } from './tool-manager';

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * The agent tree orchestrator (seed 004's `AgentOrchestrator`, host-agnostic):
 * creates agents with ids and parent links, runs them on chat models through
 * {@link AgentRunner}s, forks sub-agents that run in parallel while their
 * parent waits and merges their results back into the parent's context,
 * retries failed sub-agents under their strategy's policy, terminates whole
 * subtrees (model streams, tool processes, timers), keeps at most
 * `maxConcurrency` agents running, and reports every status change as an
 * event. With `waitForInput`, an agent that answered waits for the user's
 * next message (`sendMessage`) with its conversation. With a `store`, the
 * whole tree is stored as it changes and `resume()` goes on with it in a
 * new process after a crash.
 *
 * Status machine: `idle` → `running` → `completed` | `error` | `terminated`,
 * with `forking` while an agent waits for its sub-agents and `waiting` while
 * it waits for input (see `AGENT_STATUS_TRANSITIONS`); any other move throws.
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
  /** Names the session in the store (`options.sessionId`, default `default`). */
  readonly sessionId: string;
  private readonly options: AgentOrchestratorOptions;
  private readonly tree: AgentTree;
  private readonly factory: AgentFactory;
  private readonly forks: AgentForkRunner;
  private readonly executor: AgentExecutor;
  private readonly session: AgentSessionStore | undefined;
  private resumeData: ResumeOptions['data'];

  constructor(options: AgentOrchestratorOptions = {}) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected AgentOrchestrator options');
    registerOrchestratorEvents();
    this.options = options;
    this.maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    const slots = new AgentSlots(this.maxConcurrency);
    this.bus = options.bus ?? new EventBus({ source: 'orchestrator' });
    this.tools = options.tools ?? new ToolManager();
    if (!(this.tools instanceof ToolManager)) throw new InvalidArgumentError('tools', 'expected a ToolManager');
    const idPrefix = options.idPrefix ?? 'agent';
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(idPrefix)) throw new InvalidArgumentError('idPrefix', `expected 1-32 of A-Za-z0-9_.-, got ${JSON.stringify(idPrefix)}`);
    if (options.model !== undefined) assertChatModel(options.model, 'options.model');
    const isolation = resolveIsolation(options.isolation, 'isolation') ?? undefined;
    this.sessionId = options.sessionId ?? 'default';
    if (typeof this.sessionId !== 'string' || !SESSION_ID.test(this.sessionId)) {
      throw new InvalidArgumentError('sessionId', `expected 1-64 of A-Za-z0-9_.:-, got ${JSON.stringify(options.sessionId)}`);
    }
    const { store } = options;
    if (store !== undefined && (store === null || typeof store !== 'object' || typeof store.put !== 'function' || typeof store.list !== 'function')) {
      throw new InvalidArgumentError('store', 'expected a Store (MemoryStore, SqliteStore…)');
    }
    this.session =
      store === undefined
        ? undefined
        : new AgentSessionStore(store, this.sessionId, (error) =>
            this.bus.emit('orchestrator:session-write-failed', {
              sessionId: this.sessionId,
              operation: error.operation,
              ...(error.agentId !== undefined ? { agentId: error.agentId } : {}),
              error: serializeError(error),
            }),
          );
    this.tree = new AgentTree(this.bus, this.session);
    this.tree.budgets = TreeBudgets.create(options.budget, this.bus, options.ledger, (rootId, reason) => void this.terminateAgent(rootId, reason).catch(() => undefined));
    this.factory = new AgentFactory(this.tree, this.tools, options, idPrefix, defineAgentStrategy(options.subAgentStrategy ?? DEFAULT_SUB_AGENT_STRATEGY));
    for (const strategy of options.strategies ?? []) this.factory.registerStrategy(strategy);
    this.forks = new AgentForkRunner({
      bus: this.bus,
      record: (agentId) => this.tree.records.get(agentId),
      resolveStrategy: (strategy) => this.factory.resolveStrategy(strategy, this.factory.subAgentStrategy),
      // Template and whitelist checked before the parent pauses (the real id is not known yet).
      checkAgent: (parent, strategy, context) => this.factory.checkAgent(parent.id, strategy, context),
      createRecord: (context, strategy, attempt, retryOf) => this.factory.createRecord(context, strategy, attempt, retryOf),
      execute: (record) => this.executor.execute(record, {}, true),
      transition: (record, to) => this.tree.transition(record, to),
      takeSlot: (record, priority, expected) => this.executor.takeSlot(record, priority, expected),
      terminateAgent: (agentId, reason) => this.terminateAgent(agentId, reason),
      saveFork: (fork) => this.session?.saveFork(fork),
      isolation,
      checkRepo: (record, signal) => this.executor.checkRepo(record, signal),
    });
    this.executor = new AgentExecutor(this.tree, slots, this.tools, options, this.forks, (record) => this.resumeData?.(toAgentInfo(record)));
  }

  /** Makes a strategy available by its `type` (to `createAgent`, forks and `resume`). Returns a function that removes it. */
  registerStrategy(strategy: AgentStrategy): () => void {
    return this.factory.registerStrategy(strategy);
  }

  /** The registered strategy of this type, or `undefined`. */
  getStrategy(type: string): AgentStrategy | undefined {
    return this.factory.strategies.get(type);
  }

  /**
   * Creates an agent (status `idle`): assigns its id, links it to
   * `context.parentId` (it is then a sub-agent, with `sub` tools), checks its
   * tool whitelist and renders its system prompt (bad input throws here).
   * Start it with {@link runAgent}.
   */
  createAgent(context: AgentTaskContext, strategy: AgentStrategy | string): string {
    return this.factory.createRecord(context, strategy, 1, undefined).id;
  }

  /**
   * Runs an `idle` agent: waits for a concurrency slot, then runs its loop.
   * Resolves with its result when it completes — or, for an agent with
   * `waitForInput`, when it answered and waits for the next message (status
   * `waiting`); rejects with {@link AgentFailedError} (status `error`) or
   * {@link AgentTerminatedError}.
   */
  runAgent(agentId: string, options: RunAgentOptions = {}): Promise<AgentRunResult> {
    const record = this.tree.require(agentId);
    if (record.started || record.status !== 'idle') {
      const hint = record.status === 'waiting' ? '; it waits for input: use sendMessage()' : '; create a new agent';
      return Promise.reject(new InvalidStateError(`Agent "${agentId}" cannot run again (status ${record.status})${hint}`));
    }
    if (!this.executor.isolation) return this.executor.execute(record, options);
    // Under isolation the checkout must be a git one: a clear error before the agent starts (it stays idle).
    record.started = true;
    return this.executor.checkRepo(record, options.signal).then(
      () => this.executor.execute(record, options),
      (error: unknown) => {
        record.started = false;
        throw error;
      },
    );
  }

  /**
   * Creates a CLI agent (status `idle`): a node of the tree run by an agent
   * CLI — a member of `options.manager` driven through an adapter with the
   * `mcpServers` capability (Claude Code, Codex, Gemini, an ACP agent) —
   * instead of a chat model. Its CLI gets the orchestrator's `fork_agents`
   * (a main agent) and `task_finish` over MCP (the manager needs a tool host,
   * e.g. `createMcpToolHost()` from `@troupe/mcp`): its forks become its
   * children, run under the concurrency limit and tool scopes;
   * `task_finish` ends it with its result (else its answer is its result);
   * terminating it or an ancestor cancels the CLI's turn. Run it with
   * {@link runAgent}, or create and run at once with {@link runCliAgent}.
   */
  createCliAgent(options: CliAgentOptions): string {
    const { context, strategy } = cliAgentParts(options, (type) => this.factory.resolveStrategy(type));
    return this.factory.createRecord(context, strategy, 1, undefined).id;
  }

  /**
   * Creates a CLI agent ({@link createCliAgent}) and runs it: resolves with
   * its result once its CLI turn ended (`completed`), rejects with
   * {@link AgentFailedError} (`error`: the CLI failed, or `task_finish` with
   * `success: false`) or {@link AgentTerminatedError}.
   *
   * @example
   * ```ts
   * const manager = new AgentManager({ toolHost: createMcpToolHost() });
   * const orchestrator = new AgentOrchestrator({ model, strategies: [tester] });
   * const result = await orchestrator.runCliAgent({
   *   manager, configId: 'claude', member: { workDir: process.cwd() },
   *   task: 'Check the project: fork one tester per package with fork_agents, then task_finish with a summary.',
   *   signal: AbortSignal.timeout(600_000),
   * });
   * console.log(result.text, formatAgentTree(orchestrator.getAgentTree()));
   * ```
   */
  runCliAgent(options: RunCliAgentOptions): Promise<AgentRunResult> {
    let agentId: string;
    try {
      agentId = this.createCliAgent(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.runAgent(agentId, { ...(options.signal ? { signal: options.signal } : {}), ...(options.sinks ? { sinks: options.sinks } : {}) });
  }

  /**
   * Sends the next message to an agent that waits for input (status
   * `waiting`, seed 004's "wait for user input") and runs its next turn with
   * the whole conversation so far: it takes a concurrency slot, goes back to
   * `running`, and resolves like {@link runAgent} (`waiting` again after its
   * answer, or `completed` when a tool ended its task). Publishes
   * `orchestrator:agent-input`.
   *
   * @example
   * ```ts
   * const id = orchestrator.createAgent({ task: 'Plan the release', waitForInput: true }, 'assistant');
   * const first = await orchestrator.runAgent(id);        // status 'waiting', first.text is its answer
   * const next = await orchestrator.sendMessage(id, 'Move the beta to Friday.');
   * await orchestrator.completeAgent(id);                  // done talking: status 'completed'
   * ```
   */
  sendMessage(agentId: string, message: string | ChatMessage | readonly ChatMessage[], options: RunAgentOptions = {}): Promise<AgentRunResult> {
    const record = this.tree.require(agentId);
    if (record.status !== 'waiting') {
      return Promise.reject(new InvalidStateError(`Agent "${agentId}" is ${record.status}; only an agent waiting for input (status waiting) takes a message`));
    }
    if (record.inputPending) return Promise.reject(new InvalidStateError(`Agent "${agentId}" already has a message waiting to run; await its sendMessage() first`));
    let messages: ChatMessage[];
    try {
      messages = toMessages(message);
    } catch (error) {
      return Promise.reject(error);
    }
    record.inputPending = true;
    record.inputs++;
    record.conversation = [...(record.conversation ?? []), ...messages];
    this.session?.appendMessages(record, messages);
    this.tree.save(record);
    const text = messages.map((item) => (item.role === 'tool' ? item.results.map((result) => result.content).join('\n') : item.content)).join('\n');
    this.bus.emit('orchestrator:agent-input', { agentId, text, inputs: record.inputs });
    return this.executor.execute(record, options);
  }

  /** Ends an agent that waits for input: `completed`, with its last answer (or `result`) as its result. */
  completeAgent(agentId: string, result?: string): AgentInfo {
    const record = this.tree.require(agentId);
    if (record.status !== 'waiting' || record.inputPending) {
      throw new InvalidStateError(`Agent "${agentId}" is ${record.status}${record.inputPending ? ' with a message to answer' : ''}; only an agent waiting for input can be completed`);
    }
    if (result !== undefined && typeof result !== 'string') throw new InvalidArgumentError('result', 'expected a string');
    if (result !== undefined) record.result = result;
    record.conversation = undefined;
    this.tree.transition(record, 'completed');
    return toAgentInfo(record);
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
    const parent = this.tree.require(parentId);
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
      const result = await this.forks.run(parent, await entries(), context, { kind: 'request' });
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
    this.tree.require(agentId);
    if (typeof reason !== 'string') throw new InvalidArgumentError('reason', 'expected a string');
    return this.executor.terminate(agentId, reason);
  }

  /** Terminates every agent (e.g. when the host shuts down). Resolves once all have stopped. */
  async terminateAll(reason = 'orchestrator shut down'): Promise<string[]> {
    const records = this.tree.records;
    const roots = [...records.values()].filter((record) => record.parentId === undefined || !records.has(record.parentId));
    const lists = await Promise.all(roots.map((root) => this.terminateAgent(root.id, reason)));
    return lists.flat();
  }

  /** Pauses a running agent at its next step boundary; resolves once paused (or ended). */
  pauseAgent(agentId: string): Promise<void> {
    const record = this.tree.require(agentId);
    if (!record.runner) return Promise.reject(new InvalidStateError(`Agent "${agentId}" is not running (status ${record.status})`));
    return record.runner.pause();
  }

  /** Resumes an agent paused with {@link pauseAgent}. */
  resumeAgent(agentId: string): void {
    this.tree.require(agentId).runner?.resume();
  }

  /** The agent's status. Throws {@link UnknownAgentError} for an unknown id. */
  getAgentStatus(agentId: string): AgentRuntimeStatus {
    return this.tree.require(agentId).status;
  }

  /** The agent as plain data (status, parent, attempt, result…). */
  getAgent(agentId: string): AgentInfo {
    return toAgentInfo(this.tree.require(agentId));
  }

  /**
   * The agent's conversation so far (a copy; without the system prompt):
   * before its run, during it, and while it waits for input. An ended agent
   * holds none in memory (its run's result has it; with a store, so does the session).
   */
  getMessages(agentId: string): ChatMessage[] {
    const record = this.tree.require(agentId);
    return record.runner ? record.runner.messages : [...(record.conversation ?? [])];
  }

  /** A snapshot of the whole tree: roots with their subtrees, counts per status. */
  getAgentTree(): AgentTreeSnapshot {
    return buildTreeSnapshot(this.tree.records, this.maxConcurrency);
  }

  /**
   * Resolves with the agent once it has ended (`completed`, `error`,
   * `terminated`) or waits for input — at once if it already has. Handy after
   * {@link resume}, for agents whose runs another process started.
   */
  waitForAgent(agentId: string, options: { signal?: AbortSignal } = {}): Promise<AgentInfo> {
    const record = this.tree.require(agentId);
    const settled = (status: AgentRuntimeStatus) => isTerminalStatus(status) || (status === 'waiting' && !record.inputPending);
    if (settled(record.status)) return Promise.resolve(toAgentInfo(record));
    return this.bus
      .waitFor('orchestrator:agent-status-changed', { filter: (event) => event.payload.agentId === agentId && settled(event.payload.to), ...(options.signal ? { signal: options.signal } : {}) })
      .then(() => toAgentInfo(record));
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
   * memory in long sessions (and their stored records). Returns how many agents were removed.
   */
  removeAgent(agentId: string): number {
    const record = this.tree.require(agentId);
    const subtree = this.tree.subtree(record);
    const live = subtree.find((member) => !isTerminalStatus(member.status));
    if (live) throw new InvalidStateError(`Agent "${live.id}" is still ${live.status}; terminate it before removing "${agentId}"`);
    for (const member of [...subtree].reverse()) this.tree.remove(member);
    this.session?.removeAgents(subtree.map((member) => member.id));
    return subtree.length;
  }

  /**
   * Goes on with the session stored under `options.store`/`sessionId` (after
   * a crash, or in a later process): ended agents stay ended, agents that
   * were running (or queued, or forking) restart from their last stored
   * messages — forks in progress go on, tool calls their last answer left
   * open get the results kept in the store (or an error saying they were
   * interrupted) — agents waiting for input wait again, and agents never run
   * stay idle. Register (in `options.strategies` or with
   * {@link registerStrategy}) every strategy type of the agents that go on,
   * before calling it. Call it on a fresh orchestrator, once.
   *
   * @throws InvalidStateError without a store, or when agents exist already.
   * @throws InvalidArgumentError naming strategy types that are not registered (nothing changes then).
   * @throws OrchestratorSessionError when the store fails or holds records this version cannot read.
   *
   * @example
   * ```ts
   * const store = openSqliteStore('.troupe/session.db');
   * const orchestrator = new AgentOrchestrator({ model, store, sessionId: 'review-42', strategies: [lead] });
   * const report = await orchestrator.resume();
   * for (const [agentId, run] of report.runs) console.log(agentId, (await run).text);
   * ```
   */
  async resume(options: ResumeOptions = {}): Promise<OrchestratorResumeReport> {
    const session = this.session;
    if (!session) throw new InvalidStateError('resume() needs a store: create the orchestrator with options.store (and sessionId)');
    this.resumeData = options.data;
    return resumeSession({ tree: this.tree, factory: this.factory, executor: this.executor, forks: this.forks, session, options: this.options }, options);
  }

  /**
   * Resolves once every change so far is in the store (no-op without one);
   * rejects with the first write that failed since the last call
   * ({@link OrchestratorSessionError}; `orchestrator:session-write-failed`
   * reported it as it happened).
   */
  flush(): Promise<void> {
    return this.session ? this.session.flush() : Promise.resolve();
  }
}

/** A message argument as a list of chat messages (a string is a user message). */
function toMessages(message: string | ChatMessage | readonly ChatMessage[]): ChatMessage[] {
  if (typeof message === 'string') {
    if (message.trim() === '') throw new InvalidArgumentError('message', 'expected a non-empty string or chat message(s)');
    return [{ role: 'user', content: message }];
  }
  const list = Array.isArray(message) ? [...(message as readonly ChatMessage[])] : [message as ChatMessage];
  if (list.length === 0) throw new InvalidArgumentError('message', 'expected at least one chat message');
  list.forEach((item, index) => {
    if (item === null || typeof item !== 'object' || (item.role !== 'user' && item.role !== 'assistant' && item.role !== 'tool')) {
      throw new InvalidArgumentError(`message[${index}]`, 'expected a chat message ({ role: "user", content })');
    }
  });
  return list;
}
