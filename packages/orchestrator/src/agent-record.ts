import type { ChatMessage, SerializedError, ToolAgentKind } from '@troupe/core';
import type { AgentRunner } from './agent-runner';
import type { ReleaseSlot } from './agent-slots';
import type { AgentStrategy } from './agent-strategy';
import type { AgentInfo, AgentRuntimeStatus, AgentTaskContext, AgentTreeNode, AgentTreeSnapshot } from './orchestrator-types';

/** @internal One agent as the orchestrator keeps it. */
export interface AgentRecord {
  readonly id: string;
  readonly parentId: string | undefined;
  readonly rootId: string;
  readonly kind: ToolAgentKind;
  readonly strategy: AgentStrategy;
  readonly context: AgentTaskContext;
  readonly systemPrompt: string;
  readonly createdAt: number;
  readonly attempt: number;
  readonly retryOf: string | undefined;
  readonly children: string[];
  /** Cancels everything the agent runs: its model stream, its tools (their processes), its waits. */
  readonly controller: AbortController;
  /** Timers the agent owns (run timeout, retry delays); cleared when it ends or is terminated. */
  readonly timers: Set<ReturnType<typeof setTimeout>>;
  status: AgentRuntimeStatus;
  updatedAt: number;
  started: boolean;
  queued: boolean;
  /** Messages to start from; dropped once the run starts (the runner owns the history). */
  initialMessages: ChatMessage[] | undefined;
  runner: AgentRunner | undefined;
  releaseSlot: ReleaseSlot | undefined;
  /** Forks in progress (a parent may fork from two tool calls at once). */
  activeForks: number;
  iterations: number;
  result: string | undefined;
  error: SerializedError | undefined;
  terminationReason: string | undefined;
  timedOut: boolean;
  /** Resolves when the agent's run has fully stopped (runner settled, tools stopped, slot released). */
  settled: Promise<void>;
}

/** @internal A record as plain data. */
export function toAgentInfo(record: AgentRecord): AgentInfo {
  return {
    id: record.id,
    parentId: record.parentId,
    rootId: record.rootId,
    kind: record.kind,
    strategyType: record.strategy.type,
    status: record.status,
    task: record.context.task,
    labels: [...(record.context.labels ?? [])],
    attempt: record.attempt,
    retryOf: record.retryOf,
    queued: record.queued,
    paused: record.runner?.state === 'paused',
    iterations: record.runner?.iterations ?? record.iterations,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.result !== undefined ? { result: record.result } : {}),
    ...(record.error !== undefined ? { error: { ...record.error } } : {}),
  };
}

/** @internal The whole tree as plain data. */
export function buildTreeSnapshot(records: ReadonlyMap<string, AgentRecord>, maxConcurrency: number): AgentTreeSnapshot {
  const counts: Record<AgentRuntimeStatus, number> = { idle: 0, running: 0, forking: 0, completed: 0, error: 0, terminated: 0 };
  let queued = 0;
  const node = (record: AgentRecord): AgentTreeNode => {
    counts[record.status]++;
    if (record.queued) queued++;
    const children: AgentTreeNode[] = [];
    for (const childId of record.children) {
      const child = records.get(childId);
      if (child) children.push(node(child));
    }
    return { ...toAgentInfo(record), children };
  };
  const roots: AgentTreeNode[] = [];
  for (const record of records.values()) {
    if (record.parentId === undefined || !records.has(record.parentId)) roots.push(node(record));
  }
  return { roots, counts, queued, maxConcurrency, timestamp: Date.now() };
}
