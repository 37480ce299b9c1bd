import { InvalidArgumentError, InvalidStateError, StructuredOutputError, type EventBus, type SerializedError } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { resolveIsolation, type ResolvedIsolation } from './agent-isolation';
import type { ForkContext } from './agent-orchestrator-options';
import type { AgentRecord } from './agent-record';
import type { StoredFork } from './agent-session-store';
import { storedContext } from './agent-session-store';
import type { ReleaseSlot } from './agent-slots';
import { isTerminalStatus } from './agent-status';
import { assertRetryPolicy, type AgentRetryPolicy, type AgentStrategy } from './agent-strategy';
import { AgentTerminatedError } from './orchestrator-errors';
import type { AgentRunResult, AgentRuntimeStatus, AgentTaskContext, ForkResult, SubAgentResult, SubAgentSpec } from './orchestrator-types';

/** @internal One sub-agent of a fork: its task, strategy, context and every attempt so far (the last is current). */
export interface ForkEntry {
  readonly task: string;
  readonly strategy: AgentStrategy;
  readonly context: AgentTaskContext;
  readonly agentIds: string[];
  /** Each attempt runs in a workspace of its own, with these settings. */
  readonly isolation: ResolvedIsolation | undefined;
}

/** @internal Who receives a fork's results: the parent's `fork_agents` call, or `requestFork` (a message). */
export type ForkOrigin = { kind: 'tool'; toolCallId: string } | { kind: 'request' };

/** @internal What the fork logic needs from its orchestrator (bound closures, so nothing private leaks). */
export interface ForkHost {
  readonly bus: EventBus;
  record(agentId: string): AgentRecord | undefined;
  /** Resolves a sub-agent's strategy (default: the orchestrator's sub-agent strategy). */
  resolveStrategy(strategy: AgentStrategy | string | undefined): AgentStrategy;
  /** Throws if the strategy's template or whitelist does not fit this sub-agent. */
  checkAgent(parent: AgentRecord, strategy: AgentStrategy, context: AgentTaskContext): void;
  createRecord(context: AgentTaskContext, strategy: AgentStrategy, attempt: number, retryOf: string | undefined): AgentRecord;
  execute(record: AgentRecord): Promise<AgentRunResult>;
  transition(record: AgentRecord, to: AgentRuntimeStatus): void;
  takeSlot(record: AgentRecord, priority: 'normal' | 'high', expected: AgentRuntimeStatus): Promise<ReleaseSlot>;
  terminateAgent(agentId: string, reason: string): Promise<string[]>;
  /** Stores the fork's state (no-op without a session store). */
  saveFork(fork: StoredFork): void;
  /** The orchestrator's `isolation`, checked. */
  readonly isolation: ResolvedIsolation | undefined;
  /** Throws an `InvalidArgumentError` unless the agent works in a git checkout (workspaces are made from it). */
  checkRepo(record: AgentRecord, signal?: AbortSignal): Promise<void>;
}

/**
 * @internal Seed 004's fork: the parent goes to `forking` and gives its slot
 * back, the sub-agents run in parallel (each retried under its policy), and
 * the parent takes a slot again before it goes on. Every step is stored
 * (with a session store) so a fork in progress goes on in a new process.
 */
export class AgentForkRunner {
  /** Number of the next fork (`fork-<n>`); moved past stored forks on resume. */
  nextFork = 1;

  constructor(private readonly host: ForkHost) {}

  /**
   * Validates a fork request up front (before the parent pauses); the
   * returned function checks the parent's checkout when the sub-agents get
   * workspaces, then creates the first attempts.
   */
  prepare(parent: AgentRecord, subAgents: readonly SubAgentSpec[], context: ForkContext): () => Promise<ForkEntry[]> {
    if (!Array.isArray(subAgents) || subAgents.length === 0) throw new InvalidArgumentError('subAgents', 'expected at least one sub-agent');
    if (context === null || typeof context !== 'object') throw new InvalidArgumentError('context', 'expected a ForkContext object');
    if (context.retry !== undefined) assertRetryPolicy(context.retry, 'fork context retry');
    const isolation = this.isolationOf(context);
    const plans = subAgents.map((spec, index) => {
      if (spec === null || typeof spec !== 'object' || typeof spec.task !== 'string' || spec.task.trim() === '') {
        throw new InvalidArgumentError(`subAgents[${index}].task`, 'expected a non-empty string');
      }
      const strategy = withSchema(this.host.resolveStrategy(spec.strategy), spec.schema, index);
      const own = spec.context ?? {};
      const subContext: AgentTaskContext = {
        task: spec.task,
        parentId: parent.id,
        variables: { ...context.variables, ...own.variables },
        data: { ...parent.context.data, ...context.data, ...own.data },
      };
      if (own.messages !== undefined) subContext.messages = own.messages;
      const labels = own.labels ?? context.labels;
      if (labels !== undefined) subContext.labels = labels;
      const workspaceRoot = own.workspaceRoot ?? context.workspaceRoot ?? parent.context.workspaceRoot;
      if (workspaceRoot !== undefined) subContext.workspaceRoot = workspaceRoot;
      this.host.checkAgent(parent, strategy, subContext);
      return { task: spec.task, strategy, context: subContext };
    });
    return async () => {
      if (isolation) await this.host.checkRepo(parent, context.signal);
      return plans.map((plan) => ({ ...plan, isolation, agentIds: [this.create(plan.context, plan.strategy, 1, undefined, isolation).id] }));
    };
  }

  /** The workspaces a fork's sub-agents get: the fork's own setting, else the orchestrator's scope `'fork'`. */
  private isolationOf(context: ForkContext): ResolvedIsolation | undefined {
    const own = resolveIsolation(context.isolation, 'context.isolation');
    if (own?.scope === 'tree') {
      throw new InvalidArgumentError('context.isolation.scope', "'tree' (one workspace per agent tree) is the orchestrator's option; a fork's isolation gives each of its sub-agents a workspace: use scope 'fork'");
    }
    if (own === null) return undefined;
    return own ?? (this.host.isolation?.scope === 'fork' ? this.host.isolation : undefined);
  }

  /** Creates an attempt's record, isolated as its fork says. */
  private create(context: AgentTaskContext, strategy: AgentStrategy, attempt: number, retryOf: string | undefined, isolation: ResolvedIsolation | undefined): AgentRecord {
    const record = this.host.createRecord(context, strategy, attempt, retryOf);
    record.isolation = isolation;
    return record;
  }

  /** Runs the sub-agents of a prepared fork while the parent waits in `forking`. */
  run(parent: AgentRecord, entries: readonly ForkEntry[], context: ForkContext, origin: ForkOrigin): Promise<ForkResult> {
    if (parent.status !== 'running' && parent.status !== 'forking') {
      return Promise.reject(new InvalidStateError(`Agent "${parent.id}" is ${parent.status}; only a running agent can fork`));
    }
    const stored: StoredFork = {
      version: 1,
      forkId: `fork-${this.nextFork++}`,
      parentId: parent.id,
      origin: origin.kind,
      ...(origin.kind === 'tool' ? { toolCallId: origin.toolCallId } : {}),
      ...(context.retry !== undefined ? { retry: { ...context.retry } } : {}),
      entries: entries.map((entry) => ({ task: entry.task, strategyType: entry.strategy.type, context: storedContext(entry.context), agentIds: entry.agentIds })),
      status: 'running',
      startedAt: Date.now(),
    };
    return this.go(parent, stored, entries, context.retry, context.signal);
  }

  /**
   * Goes on with a stored fork in a new process: each sub-agent from its last
   * attempt (ended ones keep their result, the others restart), then the
   * parent takes a slot and goes on, as after a fork that was never
   * interrupted.
   */
  resume(parent: AgentRecord, stored: StoredFork): Promise<ForkResult> {
    const entries = stored.entries.map((entry) => ({
      task: entry.task,
      strategy: this.host.resolveStrategy(entry.strategyType),
      context: { ...entry.context, parentId: parent.id },
      agentIds: entry.agentIds,
      // A fork's own isolation is not stored: its sub-agents restart under the orchestrator's.
      isolation: this.host.isolation?.scope === 'fork' ? this.host.isolation : undefined,
    }));
    for (const entry of entries) {
      const last = this.host.record(entry.agentIds[entry.agentIds.length - 1] as string);
      if (last) last.isolation = entry.isolation;
    }
    return this.go(parent, stored, entries, stored.retry, undefined);
  }

  private async go(
    parent: AgentRecord,
    stored: StoredFork,
    entries: readonly ForkEntry[],
    retry: AgentRetryPolicy | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ForkResult> {
    const { bus } = this.host;
    const { forkId } = stored;
    const started = performance.now();
    const members = new Set(entries.flatMap((entry) => entry.agentIds));
    parent.activeForks++;
    if (parent.activeForks === 1 && parent.status !== 'forking') {
      this.host.transition(parent, 'forking');
      parent.releaseSlot?.();
      parent.releaseSlot = undefined;
    }
    this.host.saveFork(stored);
    bus.emit('orchestrator:fork-started', { forkId, parentId: parent.id, agentIds: [...members] });
    const stopMembers = (reason: string) => {
      for (const id of members) {
        const member = this.host.record(id);
        if (member && !isTerminalStatus(member.status)) void this.host.terminateAgent(id, reason).catch(() => undefined);
      }
    };
    const onParentAbort = () => stopMembers(`parent "${parent.id}" stopped`);
    // The fork signal of a tool call follows the parent's run: name the parent when it is the cause.
    const onForkAbort = () => stopMembers(parent.controller.signal.aborted ? `parent "${parent.id}" stopped` : 'the fork signal was aborted');
    parent.controller.signal.addEventListener('abort', onParentAbort, { once: true });
    if (signal?.aborted) onForkAbort();
    else signal?.addEventListener('abort', onForkAbort, { once: true });
    let results: SubAgentResult[];
    try {
      results = await Promise.all(entries.map((entry) => this.runSubAgent(parent, entry, retry, members, stored)));
    } finally {
      parent.controller.signal.removeEventListener('abort', onParentAbort);
      signal?.removeEventListener('abort', onForkAbort);
      parent.activeForks--;
    }
    if (parent.activeForks === 0 && parent.status === 'forking') {
      parent.releaseSlot = await this.host.takeSlot(parent, 'high', 'forking');
      this.host.transition(parent, 'running');
    }
    if (isTerminalStatus(parent.status)) {
      throw new AgentTerminatedError(parent.id, parent.terminationReason ?? `it ended in ${parent.status} while forking`);
    }
    const succeeded = results.filter((result) => result.status === 'completed').length;
    const forkResult: ForkResult = { forkId, parentId: parent.id, results, succeeded, failed: results.length - succeeded };
    this.host.saveFork({ ...stored, status: 'completed', result: forkResult });
    bus.emit('orchestrator:fork-completed', { forkId, parentId: parent.id, succeeded, failed: forkResult.failed, durationMs: performance.now() - started });
    return forkResult;
  }

  private async runSubAgent(
    parent: AgentRecord,
    entry: ForkEntry,
    retryOverride: AgentRetryPolicy | undefined,
    members: Set<string>,
    stored: StoredFork,
  ): Promise<SubAgentResult> {
    const policy = retryOverride ?? entry.strategy.retry ?? { maxRetries: 0 };
    const { agentIds } = entry;
    let record = this.host.record(agentIds[agentIds.length - 1] as string) as AgentRecord;
    for (let attempt = agentIds.length; ; attempt++) {
      const base = { task: entry.task, strategyType: entry.strategy.type, agentId: record.id, agentIds: [...agentIds], attempts: attempt };
      let failure: unknown;
      // Finished before (a restarted session): its text and typed object as they were stored.
      if (record.status === 'completed') {
        return { ...base, status: 'completed', text: record.result ?? '', ...(record.object ? { object: record.object.value } : {}), ...workspaceOf(record.workspaceResult) };
      }
      if (!isTerminalStatus(record.status)) {
        try {
          const result = await this.host.execute(record);
          return { ...base, status: 'completed', text: result.text, ...('object' in result ? { object: result.object } : {}), ...workspaceOf(result.workspace) };
        } catch (error) {
          failure = error;
        }
      }
      const status = isTerminalStatus(record.status) ? record.status : 'error';
      const serialized: SerializedError = record.error ?? serializeError(failure);
      // A typed result that was not valid: the parent gets the raw answer with the error.
      const invalid = structuredOutputErrorIn(failure);
      const failed: SubAgentResult = { ...base, status, error: serialized, ...(invalid ? { text: invalid.text } : {}) };
      if (status !== 'error' || attempt > policy.maxRetries || isTerminalStatus(parent.status)) return failed;
      const delayMs = policy.delayMs ?? 0;
      this.host.bus.emit('orchestrator:agent-retry-scheduled', {
        agentId: record.id,
        parentId: parent.id,
        attempt: attempt + 1,
        maxRetries: policy.maxRetries,
        delayMs,
        error: serialized,
      });
      if (!(await delay(parent, delayMs)) || isTerminalStatus(parent.status)) return failed;
      record = this.create(entry.context, entry.strategy, attempt + 1, record.id, entry.isolation);
      members.add(record.id);
      agentIds.push(record.id);
      this.host.saveFork(stored);
    }
  }
}

/** The strategy a sub-agent asked for a typed result runs with: its `cli` with the fork call's `schema`. */
function withSchema(strategy: AgentStrategy, schema: SubAgentSpec['schema'], index: number): AgentStrategy {
  if (schema === undefined) return strategy;
  if (!strategy.cli) {
    throw new InvalidArgumentError(`subAgents[${index}].schema`, `a typed result needs a CLI strategy (one with \`cli\`); strategy "${strategy.type}" runs on a chat model`);
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidArgumentError(`subAgents[${index}].schema`, 'expected a zod schema or a JSON Schema object');
  }
  return { ...strategy, cli: { ...strategy.cli, schema } };
}

/** The `StructuredOutputError` in an error's cause chain, if any. */
function structuredOutputErrorIn(error: unknown): StructuredOutputError | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    if (StructuredOutputError.isInstance(at)) return at;
  }
  return undefined;
}

function workspaceOf(workspace: SubAgentResult['workspace']): Pick<SubAgentResult, 'workspace'> {
  return workspace ? { workspace } : {};
}

/** Waits `ms` on a timer the owner holds (cleared if it ends); false when the owner was stopped meanwhile. */
function delay(owner: AgentRecord, ms: number): Promise<boolean> {
  const signal = owner.controller.signal;
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      owner.timers.delete(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      owner.timers.delete(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    owner.timers.add(timer);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
