import { AbortError, emptyChatUsage, withEventScope, type ChatMessage, type ToolResult } from '@troupe/core';
import { observeChatModel } from '@troupe/core/model-runtime';
import { serializeError } from '@troupe/core/util';
import { runInWorkspace } from '@troupe/worktree';
import { callsInAnswer, turnEndedBeforeRestart } from './agent-answer-text';
import { runCliTurn } from './agent-cli-turn';
import { formatForkResult } from './agent-fork-format';
import { assertIsolationRepo, pathInWorkspace, resolveIsolation, type ResolvedIsolation } from './agent-isolation';
import type { AgentForkRunner, ForkOrigin } from './agent-fork-runner';
import type { AgentOrchestratorOptions, RunAgentOptions } from './agent-orchestrator-options';
import { storedToolCall, toAgentInfo, type AgentRecord, type StoredToolCall } from './agent-record';
import { AgentRunner } from './agent-runner';
import { orchestratorSinks } from './agent-runner-sinks';
import { formatTagToolResults } from './agent-runner-tags';
import type { AgentRunnerResult, AgentRunnerSinks } from './agent-runner-types';
import type { StoredFork } from './agent-session-store';
import type { AgentSlots, ReleaseSlot } from './agent-slots';
import type { AgentToolControls } from './agent-tool-context';
import { isTerminalStatus } from './agent-status';
import type { AgentTree } from './agent-tree';
import { AgentFailedError, AgentTerminatedError, AgentTimeoutError } from './orchestrator-errors';
import type { AgentRunResult, AgentRuntimeStatus, ForkResult } from './orchestrator-types';
import type { ToolManager } from './tool-manager';

/** @internal What a restarted agent (a resumed session) brings from the store. */
export interface AgentRestart {
  /** Forks it was waiting on when the process stopped (it is `forking`): they go on first. */
  forks: StoredFork[];
  /** Its forks that had ended, whose results it may not have received. */
  endedForks: StoredFork[];
  /** Results of its open tool calls that had finished. */
  toolResults: Map<string, ToolResult>;
}

/** What one turn ended with: the runner's result, or the answer found in the store. */
type TurnOutcome = Pick<AgentRunnerResult, 'text' | 'stopReason' | 'iterations' | 'usage' | 'messages' | 'finish'> & { object?: unknown };

/**
 * @internal Runs agents: takes a concurrency slot, moves the agent to
 * `running`, runs its turn on an {@link AgentRunner} (storing every message
 * and tool call as it happens), and ends it in `completed`, `waiting` (an
 * agent that waits for input), `error` or `terminated`. A restarted agent
 * first goes on with its forks, answers the tool calls its last answer left
 * open, and skips the model call when its turn had already ended.
 */
export class AgentExecutor {
  /** Agents restarted by a resumed session, until they run. */
  readonly restarts = new Map<string, AgentRestart>();
  /** The orchestrator's `isolation`, checked. */
  readonly isolation: ResolvedIsolation | undefined;
  /** Checkouts found fit for workspaces (each is checked until it passes once). */
  private readonly checkedRepos = new Set<string>();

  constructor(
    private readonly tree: AgentTree,
    private readonly slots: AgentSlots,
    private readonly tools: ToolManager,
    private readonly options: AgentOrchestratorOptions,
    private readonly forks: AgentForkRunner,
    /** Tool data of a resumed agent (its context's `data` is not stored). */
    private readonly resumedData: (record: AgentRecord) => Readonly<Record<string, unknown>> | undefined,
  ) {
    this.isolation = resolveIsolation(options.isolation, 'isolation') ?? undefined;
  }

  /**
   * Throws an `InvalidArgumentError` unless the checkout the agent works in
   * (or would make its workspace from) is a git checkout: called before an
   * agent or a fork starts under `isolation: 'worktree'`.
   */
  async checkRepo(record: AgentRecord, signal?: AbortSignal): Promise<void> {
    const own = this.ownDir(record);
    const dir = this.dirOf(record, own.path) ?? process.cwd();
    if (this.checkedRepos.has(dir)) return;
    await assertIsolationRepo(dir, own.name, signal);
    this.checkedRepos.add(dir);
  }

  /** The folder an agent is configured to work in (a CLI's `member.workDir`, else its workspace root), and the option that says so. */
  private ownDir(record: AgentRecord): { path: string | undefined; name: string } {
    const workDir = record.strategy.cli?.member?.workDir;
    if (workDir !== undefined) return { path: workDir, name: `strategy "${record.strategy.type}" cli.member.workDir` };
    if (record.context.workspaceRoot !== undefined) return { path: record.context.workspaceRoot, name: 'context.workspaceRoot' };
    if (this.options.workspaceRoot !== undefined) return { path: this.options.workspaceRoot, name: 'workspaceRoot' };
    return { path: undefined, name: 'the working directory (no workspaceRoot given)' };
  }

  /**
   * Where `path` is for this agent: inside the workspace of the nearest
   * agent of its line (itself, else an ancestor) that runs in one, else
   * `path` itself. Nested workspaces map in turn, from the root down.
   */
  private dirOf(record: AgentRecord, path: string | undefined): string | undefined {
    const line: AgentRecord[] = [];
    for (let at: AgentRecord | undefined = record; at; at = at.parentId === undefined ? undefined : this.tree.records.get(at.parentId)) line.unshift(at);
    let dir = path;
    for (const member of line) if (member.workspace) dir = pathInWorkspace(member.workspace, dir ?? process.cwd());
    return dir;
  }

  /** The isolation this agent's own turn runs under: its fork's, or the tree's for a root. */
  private ownIsolation(record: AgentRecord): ResolvedIsolation | undefined {
    if (record.isolation) return record.isolation;
    return record.parentId === undefined && this.isolation?.scope === 'tree' ? this.isolation : undefined;
  }

  /**
   * Runs a turn of an `idle` agent (its first), a `waiting` one (after
   * `sendMessage`) or a restarted one. `member`: run by a fork (it completes
   * even with `waitForInput`).
   */
  async execute(record: AgentRecord, options: RunAgentOptions = {}, member = false): Promise<AgentRunResult> {
    record.started = true;
    record.timedOut = false;
    let settle: () => void = () => undefined;
    record.settled = new Promise<void>((resolve) => (settle = resolve));
    const { signal } = options;
    const onSignal = () => void this.terminate(record.id, 'the run signal was aborted').catch(() => undefined);
    if (signal?.aborted) onSignal();
    else signal?.addEventListener('abort', onSignal, { once: true });
    try {
      const restart = this.restarts.get(record.id);
      this.restarts.delete(record.id);
      let messages: ChatMessage[];
      if (restart && record.status === 'forking') {
        // Stopped in the middle of forks: they go on; the last one to end takes a slot and moves the agent to running.
        const results = await Promise.all(restart.forks.map((fork) => this.forks.resume(record, fork)));
        messages = this.answerPending(record, restart, results);
      } else {
        record.releaseSlot = await this.takeSlot(record, 'normal', record.status);
        this.tree.transition(record, 'running');
        messages = restart ? this.answerPending(record, restart, []) : (record.conversation ?? []);
      }
      record.conversation = undefined;
      this.startTimeout(record);
      const ended = restart ? turnEndedBeforeRestart(messages, record.strategy.endMarker) : undefined;
      const outcome: TurnOutcome = ended ? { ...ended, iterations: 0, usage: emptyChatUsage(), messages } : await this.runTurn(record, messages, options);
      return this.endTurn(record, outcome, member);
    } catch (error) {
      throw this.failure(record, error);
    } finally {
      signal?.removeEventListener('abort', onSignal);
      this.clearTimers(record);
      if (record.runner) record.iterations += record.runner.iterations;
      record.runner = undefined;
      record.inputPending = false;
      record.releaseSlot?.();
      record.releaseSlot = undefined;
      if (record.status === 'error' || record.status === 'terminated') await this.endDescendants(record);
      settle();
    }
  }

  /**
   * Terminates an agent and every live descendant: moves each to
   * `terminated` first, then aborts them (streams, tools, slots, timers), and
   * resolves with their ids once they have all stopped.
   */
  async terminate(agentId: string, reason: string): Promise<string[]> {
    const record = this.tree.require(agentId);
    const subtree = this.tree.subtree(record);
    const terminated: AgentRecord[] = [];
    // Every status first, then the aborts: an abort's listeners (a fork stopping its members) then find them ended.
    for (const member of subtree) {
      if (isTerminalStatus(member.status)) continue;
      member.terminationReason = member === record ? reason : `ancestor "${record.id}" was terminated: ${reason}`;
      this.clearTimers(member);
      this.tree.transition(member, 'terminated', { reason: member.terminationReason });
      member.conversation = undefined;
      terminated.push(member);
    }
    for (const member of terminated) member.controller.abort(new AgentTerminatedError(member.id, member.terminationReason ?? reason));
    await Promise.all(subtree.map((member) => member.settled));
    return terminated.map((member) => member.id);
  }

  /** Waits for a slot while in `expected` status; gives it back at once if the agent was terminated meanwhile. */
  async takeSlot(record: AgentRecord, priority: 'normal' | 'high', expected: AgentRuntimeStatus): Promise<ReleaseSlot> {
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

  /** Runs a turn, in a workspace of the agent's own when it is isolated (the workspace's result is kept on the record). */
  private async runTurn(record: AgentRecord, messages: ChatMessage[], options: RunAgentOptions): Promise<TurnOutcome> {
    record.workspaceResult = undefined;
    record.workspace = undefined;
    const isolation = this.ownIsolation(record);
    if (!isolation) return this.runTurnHere(record, messages, options);
    const { signal } = record.controller;
    await this.checkRepo(record, signal);
    const run = await runInWorkspace(
      {
        repo: this.dirOf(record, this.ownDir(record).path) ?? process.cwd(),
        commit: isolation.commit,
        keep: isolation.keep,
        ...optional('setup', isolation.setup),
        bus: this.tree.bus,
        owner: record.id,
        signal,
      },
      (workspace) => {
        record.workspace = workspace;
        return this.runTurnHere(record, messages, options);
      },
    );
    const { name, path, repo } = run.workspace;
    record.workspaceResult = { ...run.result, name, path, repo, removed: run.removed };
    return run.value;
  }

  private async runTurnHere(record: AgentRecord, messages: ChatMessage[], options: RunAgentOptions): Promise<TurnOutcome> {
    const { strategy } = record;
    const session = this.tree.session;
    const sinks = orchestratorSinks(
      this.tree.bus,
      record.id,
      [this.options.sinks?.(toAgentInfo(record)), options.sinks].filter((sink): sink is AgentRunnerSinks => sink !== undefined),
      session ? this.storingHooks(record) : {},
    );
    const fork: NonNullable<AgentToolControls['fork']> = (subAgents, forkOptions = {}) => {
      const origin: ForkOrigin = forkOptions.toolCallId !== undefined ? { kind: 'tool', toolCallId: forkOptions.toolCallId } : { kind: 'request' };
      const entries = this.forks.prepare(record, subAgents, forkOptions);
      return entries().then((created) => this.forks.run(record, created, forkOptions, origin));
    };
    const workspaceRoot = this.dirOf(record, record.context.workspaceRoot ?? this.options.workspaceRoot);
    if (strategy.cli) return runCliTurn({ tools: this.tools, sinks, fork, workDir: this.dirOf(record, this.ownDir(record).path) }, record, messages);
    const data = record.context.data ?? this.resumedData(record);
    const runner = new AgentRunner({
      // Its model calls emit `model:*` events (tracing, the usage ledger).
      model: observeChatModel((strategy.model ?? this.options.model)!, { eventBus: this.tree.bus }),
      system: record.systemPrompt,
      tools: this.tools.getToolsForAgent(record.kind, strategy.tools),
      agentKind: record.kind,
      agentId: record.id,
      maxIterations: strategy.maxIterations,
      sinks,
      fork,
      ...optional('toolCallFormat', strategy.toolCallFormat),
      ...optional('endMarker', strategy.endMarker),
      ...optional('workspaceRoot', workspaceRoot),
      ...optional('toolData', data),
      ...optional('abortGraceMs', this.options.abortGraceMs),
      ...optional('maxOutputTokens', strategy.maxOutputTokens),
      ...optional('temperature', strategy.temperature),
    });
    record.runner = runner;
    // The agent's event scope: its calls are charged to it and to its tree, and traced under its span.
    const scope = { bus: this.tree.bus, agentId: record.id, run: { kind: 'orchestrator', id: record.rootId } };
    return withEventScope(scope, () => runner.run(messages, { signal: record.controller.signal }));
  }

  /** The runner hooks that store the agent's conversation and open tool calls as they happen. */
  private storingHooks(record: AgentRecord): Pick<AgentRunnerSinks, 'message' | 'toolCall' | 'toolResult' | 'step'> {
    const session = this.tree.session!;
    return {
      toolCall: (call) => void record.stepCalls.push(storedToolCall(call)),
      toolResult: (info) => session.saveToolResult(record.id, info.toolCallId, info.result),
      message: (message) => {
        session.appendMessages(record, [message]);
        if (message.role === 'assistant' && record.stepCalls.length > 0) {
          record.pendingCalls = { afterMessage: record.storedMessages - 1, calls: record.stepCalls };
          this.tree.save(record);
        }
      },
      step: () => {
        const ids = record.stepCalls.map((call) => call.toolCallId);
        record.stepCalls = [];
        record.pendingCalls = undefined;
        this.tree.save(record);
        session.dropToolResults(record.id, ids);
      },
    };
  }

  /** Ends a turn: `completed`, or `waiting` for an agent that waits for input (not run by a fork, not ended by `task_finish`). */
  private endTurn(record: AgentRecord, outcome: TurnOutcome, member: boolean): AgentRunResult {
    if (outcome.finish && !outcome.finish.success) {
      throw new AgentFailedError(record.id, `it reported that it could not do its task: ${outcome.finish.result}`);
    }
    record.result = outcome.text;
    record.object = 'object' in outcome ? { value: outcome.object } : undefined;
    const waits = record.waitForInput && !member && outcome.stopReason !== 'task-finish';
    if (waits) record.conversation = outcome.messages;
    this.tree.transition(record, waits ? 'waiting' : 'completed');
    if (waits) {
      this.tree.bus.emit('orchestrator:agent-waiting', {
        agentId: record.id,
        parentId: record.parentId,
        rootId: record.rootId,
        text: outcome.text,
        stopReason: outcome.stopReason,
        messages: outcome.messages.length,
      });
    }
    return {
      agentId: record.id,
      status: waits ? 'waiting' : 'completed',
      text: outcome.text,
      stopReason: outcome.stopReason,
      iterations: outcome.iterations,
      usage: outcome.usage,
      messages: outcome.messages,
      ...('object' in outcome ? { object: outcome.object } : {}),
      ...(record.workspaceResult ? { workspace: record.workspaceResult } : {}),
    };
  }

  /**
   * The conversation a restarted agent goes on from: its stored messages,
   * plus answers to the tool calls its last answer left open (a result kept
   * in the store, its fork's results, or an error saying the call was
   * interrupted) and the results of forks requested from outside.
   */
  private answerPending(record: AgentRecord, restart: AgentRestart, forkResults: readonly ForkResult[]): ChatMessage[] {
    const conversation = record.conversation ?? [];
    const added: ChatMessage[] = [];
    const forks = [
      ...restart.forks.map((fork, index) => ({ fork, result: forkResults[index] })),
      ...restart.endedForks.map((fork) => ({ fork, result: fork.result })),
    ];
    const last = conversation.length - 1;
    // The open calls as recorded, or (the process stopped between storing the answer and its calls) as read from the answer.
    const calls = record.pendingCalls?.afterMessage === last ? record.pendingCalls.calls : callsInAnswer(conversation[last], record.strategy.endMarker);
    if (calls.length > 0) {
      const answer = (call: StoredToolCall): ToolResult => {
        const kept = restart.toolResults.get(call.toolCallId);
        if (kept) return kept;
        const forked = forks.find(({ fork }) => fork.origin === 'tool' && fork.toolCallId === call.toolCallId)?.result;
        if (forked) return { success: true, content: formatForkResult(forked) };
        const error = `The call to "${call.toolName}" was interrupted: the process running it stopped before it finished (it may have partly run). Check its effects before calling it again.`;
        return { success: false, content: error, error };
      };
      const answered = calls.map((call) => ({ ...call, result: answer(call) }));
      const native = answered.filter((call) => call.source === 'native');
      if (native.length > 0) {
        added.push({ role: 'tool', results: native.map(({ toolCallId, toolName, result }) => ({ toolCallId, toolName, content: result.content, isError: !result.success })) });
      }
      const tags = answered.filter((call) => call.source === 'tag');
      if (tags.length > 0) added.push({ role: 'user', content: formatTagToolResults(tags.map((call) => ({ ...call, durationMs: 0 }))) });
    }
    for (const { fork, result } of forks) {
      if (fork.origin !== 'request' || !result) continue;
      const content = formatForkResult(result);
      if (!conversation.some((message) => message.role === 'user' && message.content === content)) added.push({ role: 'user', content });
    }
    this.tree.session?.appendMessages(record, added);
    this.tree.session?.dropToolResults(record.id, [...restart.toolResults.keys()]);
    record.pendingCalls = undefined;
    this.tree.save(record);
    return [...conversation, ...added];
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
    if (!isTerminalStatus(record.status)) this.tree.transition(record, 'error', { error: serializeError(cause) });
    record.conversation = undefined;
    return failure;
  }

  /** A failed or terminated agent leaves no live descendant behind. */
  private async endDescendants(record: AgentRecord): Promise<void> {
    const live = this.tree.subtree(record).filter((member) => member !== record && !isTerminalStatus(member.status));
    const reason = `ancestor "${record.id}" ended in ${record.status}`;
    await Promise.all(live.filter((member) => !isTerminalStatus(member.status)).map((member) => this.terminate(member.id, reason)));
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

  clearTimers(record: AgentRecord): void {
    for (const timer of record.timers) clearTimeout(timer);
    record.timers.clear();
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
