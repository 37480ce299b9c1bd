import { InvalidArgumentError, InvalidStateError, type ChatMessage } from '@troupe/core';
import { callsInAnswer } from './agent-answer-text';
import type { AgentExecutor, AgentRestart } from './orchestrator-agent-executor';
import type { AgentFactory } from './agent-factory';
import type { AgentForkRunner } from './agent-fork-runner';
import type { AgentOrchestratorOptions, ResumeOptions } from './agent-orchestrator-options';
import { freshRecordState, type AgentRecord } from './agent-record';
import type { AgentSessionStore, StoredAgent, StoredFork } from './agent-session-store';
import { isTerminalStatus } from './agent-status';
import type { AgentStrategy } from './agent-strategy';
import type { AgentTree } from './agent-tree';
import type { AgentRunResult, AgentRuntimeStatus, OrchestratorResumeReport } from './orchestrator-types';

/** @internal What resuming needs from the orchestrator. */
export interface ResumeHost {
  tree: AgentTree;
  factory: AgentFactory;
  executor: AgentExecutor;
  forks: AgentForkRunner;
  session: AgentSessionStore;
  options: AgentOrchestratorOptions;
}

const LIVE: ReadonlySet<AgentRuntimeStatus> = new Set(['idle', 'running', 'forking', 'waiting']);

/**
 * @internal Rebuilds the agent tree of a stored session and goes on with
 * it: ended agents stay ended; an agent that was running, queued or forking
 * restarts from its last stored messages (forks in progress go on, open tool
 * calls get their kept results or an "interrupted" error); an agent waiting
 * for input waits again; one never run stays idle. Everything is checked
 * before anything changes: a strategy type nobody registered, or a stored
 * record this version cannot read, throws and leaves the orchestrator empty.
 */
export async function resumeSession(host: ResumeHost, options: ResumeOptions): Promise<OrchestratorResumeReport> {
  const { tree, factory, executor, forks, session } = host;
  if (tree.records.size > 0) throw new InvalidStateError('resume() needs an orchestrator with no agents yet: create it, resume, then add agents');
  if (options.data !== undefined && typeof options.data !== 'function') throw new InvalidArgumentError('options.data', 'expected a function of the agent');
  const { signal } = options;
  const loaded = await session.load(signal);
  const live = loaded.agents.filter((agent) => LIVE.has(agent.status));
  const liveIds = new Set(live.map((agent) => agent.id));
  const runningForks = loaded.forks.filter((fork) => fork.status === 'running' && liveIds.has(fork.parentId));
  const strategies = resolveStrategies(host, loaded.agents, runningForks);

  // Everything read before anything changes.
  const conversations = new Map<string, ChatMessage[]>();
  const toolResults = new Map<string, AgentRestart['toolResults']>();
  for (const agent of live) {
    conversations.set(agent.id, await session.loadMessages(agent.id, signal));
    if (agent.status !== 'idle' || agent.started) toolResults.set(agent.id, await session.loadToolResults(agent.id, signal));
  }

  const records = loaded.agents.map((agent) => toRecord(agent, strategies.get(agent.strategyType) ?? placeholderStrategy(agent), conversations.get(agent.id)));
  for (const record of records) {
    tree.records.set(record.id, record);
    // A tree that goes on gets a budget again (counting from now: earlier spending was another process's).
    if (record.parentId === undefined && !isTerminalStatus(record.status)) tree.budgets?.start(record.id);
  }
  factory.nextAgent = Math.max(factory.nextAgent, ...loaded.agents.map((agent) => numberOf(agent.id, `${factory.idPrefix}-`) + 1));
  forks.nextFork = Math.max(forks.nextFork, ...loaded.forks.map((fork) => numberOf(fork.forkId, 'fork-') + 1));

  // A fork whose call the parent's stored conversation does not hold was started by an answer that was lost: the parent asks again.
  const abandoned = runningForks.filter((fork) => fork.origin === 'tool' && !openCalls(tree.require(fork.parentId)).has(fork.toolCallId ?? ''));
  const goingOn = runningForks.filter((fork) => !abandoned.includes(fork));
  const members = new Set(goingOn.flatMap((fork) => fork.entries.flatMap((entry) => entry.agentIds)));

  for (const fork of abandoned) abandonFork(host, fork);
  const report = { restarted: [] as string[], waiting: [] as string[], idle: [] as string[], ended: [] as string[] };
  const runs = new Map<string, Promise<AgentRunResult>>();
  for (const record of records) {
    if (isTerminalStatus(record.status)) {
      report.ended.push(record.id);
      continue;
    }
    const stored = loaded.agents.find((agent) => agent.id === record.id) as StoredAgent;
    const last = record.conversation?.[record.conversation.length - 1];
    const waitsForInput = record.status === 'waiting' && last?.role === 'assistant';
    if (waitsForInput || (record.status === 'idle' && !stored.started)) {
      (waitsForInput ? report.waiting : report.idle).push(record.id);
      continue;
    }
    const ownForks = goingOn.filter((fork) => fork.parentId === record.id);
    const endedForks = loaded.forks.filter((fork) => fork.parentId === record.id && fork.status === 'completed' && fork.result !== undefined);
    // A forking agent with forks that go on stays `forking`; any other restarts from `idle` (or `waiting`, with a message to answer).
    if (record.status !== 'waiting') record.status = record.status === 'forking' && ownForks.length > 0 ? 'forking' : 'idle';
    executor.restarts.set(record.id, { forks: ownForks, endedForks, toolResults: toolResults.get(record.id) ?? new Map() });
    report.restarted.push(record.id);
  }
  for (const record of records) tree.save(record);
  // Every record is ready before any runs (a fork that goes on runs its members at once).
  for (const id of report.restarted) {
    if (members.has(id)) continue; // its fork runs it
    const run = executor.execute(tree.require(id));
    run.catch(() => undefined); // reported as a status change; awaited through `runs` by whoever wants it
    runs.set(id, run);
  }
  tree.bus.emit('orchestrator:session-resumed', {
    sessionId: session.sessionId,
    agents: records.length,
    restarted: report.restarted,
    waiting: report.waiting,
    forks: goingOn.map((fork) => fork.forkId),
  });
  return { sessionId: session.sessionId, agents: records.length, ...report, forks: goingOn.map((fork) => fork.forkId), runs };
}

/** The strategy of every agent that will run again, by type; throws naming every type nobody registered. */
function resolveStrategies(host: ResumeHost, agents: readonly StoredAgent[], runningForks: readonly StoredFork[]): Map<string, AgentStrategy> {
  const needed = new Map<string, string[]>();
  const need = (type: string, agentId: string) => needed.set(type, [...(needed.get(type) ?? []), agentId]);
  for (const agent of agents) if (LIVE.has(agent.status)) need(agent.strategyType, agent.id);
  for (const fork of runningForks) for (const entry of fork.entries) need(entry.strategyType, `${fork.forkId} (its retries)`);
  const found = new Map<string, AgentStrategy>();
  const missing: string[] = [];
  for (const [type, users] of needed) {
    const strategy = host.factory.strategies.get(type) ?? (type === host.factory.subAgentStrategy.type ? host.factory.subAgentStrategy : undefined);
    if (!strategy) missing.push(`"${type}" (${users.join(', ')})`);
    else if (!(strategy.model ?? host.options.model)) missing.push(`"${type}" has no model and the orchestrator has no default model`);
    else found.set(type, strategy);
  }
  if (missing.length > 0) {
    throw new InvalidArgumentError(
      'strategies',
      `resume() needs the strategy of every agent that goes on; register these types first (options.strategies or registerStrategy): ${missing.join('; ')}`,
    );
  }
  for (const agent of agents) if (!found.has(agent.strategyType) && host.factory.strategies.has(agent.strategyType)) found.set(agent.strategyType, host.factory.strategies.get(agent.strategyType) as AgentStrategy);
  return found;
}

/** A record from its stored form. */
function toRecord(agent: StoredAgent, strategy: AgentStrategy, conversation: ChatMessage[] | undefined): AgentRecord {
  const record: AgentRecord = {
    ...freshRecordState(),
    id: agent.id,
    parentId: agent.parentId,
    rootId: agent.rootId,
    kind: agent.kind,
    strategy,
    context: { ...agent.context },
    systemPrompt: agent.systemPrompt,
    createdAt: agent.createdAt,
    attempt: agent.attempt,
    retryOf: agent.retryOf,
    children: [...agent.children],
    waitForInput: agent.waitForInput,
    status: agent.status,
    conversation,
  };
  record.updatedAt = agent.updatedAt;
  record.started = agent.started;
  record.iterations = agent.iterations;
  record.inputs = agent.inputs;
  record.result = agent.result;
  record.object = agent.object;
  record.error = agent.error;
  record.terminationReason = agent.terminationReason;
  record.storedMessages = conversation?.length ?? 0;
  record.pendingCalls = agent.pendingCalls;
  return record;
}

/** An ended agent whose strategy is not registered keeps its type and prompt (it never runs again). */
function placeholderStrategy(agent: StoredAgent): AgentStrategy {
  return Object.freeze({ type: agent.strategyType, systemPrompt: agent.systemPrompt });
}

/** Ids of the tool calls the agent's last stored answer left open. */
function openCalls(record: AgentRecord): Set<string> {
  const conversation = record.conversation ?? [];
  const last = conversation.length - 1;
  const calls = record.pendingCalls?.afterMessage === last ? record.pendingCalls.calls : callsInAnswer(conversation[last], record.strategy.endMarker);
  return new Set(calls.map((call) => call.toolCallId));
}

/** Ends a fork whose parent starts over: its live sub-agents are terminated, the fork is marked abandoned. */
function abandonFork(host: ResumeHost, fork: StoredFork): void {
  const reason = `fork "${fork.forkId}" was abandoned: its parent "${fork.parentId}" restarts from before the fork`;
  for (const entry of fork.entries) {
    for (const id of entry.agentIds) {
      const member = host.tree.records.get(id);
      if (member && !isTerminalStatus(member.status)) {
        member.terminationReason = reason;
        host.tree.transition(member, 'terminated', { reason });
      }
    }
  }
  host.session.saveFork({ ...fork, status: 'abandoned' });
}

function numberOf(id: string, prefix: string): number {
  if (!id.startsWith(prefix)) return 0;
  const n = Number(id.slice(prefix.length));
  return Number.isInteger(n) ? n : 0;
}

