import type { ChatMessage, SerializedError, ToolAgentKind } from '@troupe/core';
import type { Workspace } from '@troupe/worktree';
import type { AgentWorkspaceResult, ResolvedIsolation } from './agent-isolation';
import type { AgentRunner } from './agent-runner';
import type { AgentToolCallInfo } from './agent-runner-types';
import type { ReleaseSlot } from './agent-slots';
import type { AgentStrategy } from './agent-strategy';
import type { AgentInfo, AgentRuntimeStatus, AgentTaskContext, AgentTreeNode, AgentTreeSnapshot } from './orchestrator-types';

/** @internal A tool call as stored with the session (what a restarted agent needs to answer it). */
export interface StoredToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  rawInput?: string;
  source: 'native' | 'tag';
  iteration: number;
}

/** @internal Tool calls of the agent's last answer whose results are not in its conversation yet. */
export interface PendingToolCalls {
  /** Index of the assistant message that made them. */
  afterMessage: number;
  calls: StoredToolCall[];
}

/** @internal One agent as the orchestrator keeps it. */
export interface AgentRecord {
  readonly id: string;
  readonly parentId: string | undefined;
  readonly rootId: string;
  readonly kind: ToolAgentKind;
  readonly strategy: AgentStrategy;
  /** Its context, without `messages` (they live in `conversation` or the runner). */
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
  /** After an answer, wait for the next message instead of completing. */
  readonly waitForInput: boolean;
  status: AgentRuntimeStatus;
  updatedAt: number;
  /** `runAgent` (or a fork) started it once. */
  started: boolean;
  queued: boolean;
  /** The conversation while no runner holds it (before the run, while waiting for input); `undefined` during a run. */
  conversation: ChatMessage[] | undefined;
  runner: AgentRunner | undefined;
  releaseSlot: ReleaseSlot | undefined;
  /** Forks in progress (a parent may fork from two tool calls at once). */
  activeForks: number;
  /** Model calls over every run. */
  iterations: number;
  /** Messages sent with `sendMessage`. */
  inputs: number;
  /** A `sendMessage` is waiting for a slot. */
  inputPending: boolean;
  result: string | undefined;
  /**
   * The validated object of its last turn, when it was asked for a typed result (`{ value }`, so a `null` object is
   * kept apart from none): stored with the record, so a restarted session hands it back as before.
   */
  object: { value: unknown } | undefined;
  error: SerializedError | undefined;
  terminationReason: string | undefined;
  timedOut: boolean;
  /** Resolves when the agent's run has fully stopped (runner settled, tools stopped, slot released). */
  settled: Promise<void>;
  /** Messages of its conversation handed to the store so far (the next one's index). */
  storedMessages: number;
  /** Tool calls started in the current step (what `pendingCalls` will hold once the answer is stored). */
  stepCalls: StoredToolCall[];
  /** Calls of its last answer whose results are not in the conversation yet. */
  pendingCalls: PendingToolCalls | undefined;
  /** It runs in a workspace of its own, made with these settings (its fork's or the tree's isolation). */
  isolation: ResolvedIsolation | undefined;
  /** Its own workspace while its turn runs (its descendants work inside it). */
  workspace: Workspace | undefined;
  /** What its last turn left in its own workspace. */
  workspaceResult: AgentWorkspaceResult | undefined;
}

/** @internal The fields a new record starts with, besides its identity. */
export function freshRecordState(): Pick<
  AgentRecord,
  | 'controller'
  | 'timers'
  | 'updatedAt'
  | 'started'
  | 'queued'
  | 'runner'
  | 'releaseSlot'
  | 'activeForks'
  | 'iterations'
  | 'inputs'
  | 'inputPending'
  | 'result'
  | 'object'
  | 'error'
  | 'terminationReason'
  | 'timedOut'
  | 'settled'
  | 'storedMessages'
  | 'stepCalls'
  | 'pendingCalls'
  | 'isolation'
  | 'workspace'
  | 'workspaceResult'
> {
  return {
    controller: new AbortController(),
    timers: new Set(),
    updatedAt: Date.now(),
    started: false,
    queued: false,
    runner: undefined,
    releaseSlot: undefined,
    activeForks: 0,
    iterations: 0,
    inputs: 0,
    inputPending: false,
    result: undefined,
    object: undefined,
    error: undefined,
    terminationReason: undefined,
    timedOut: false,
    settled: Promise.resolve(),
    storedMessages: 0,
    stepCalls: [],
    pendingCalls: undefined,
    isolation: undefined,
    workspace: undefined,
    workspaceResult: undefined,
  };
}

/** @internal A tool call as stored. */
export function storedToolCall(call: AgentToolCallInfo): StoredToolCall {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    ...(call.rawInput !== undefined ? { rawInput: call.rawInput } : {}),
    source: call.source,
    iteration: call.iteration,
  };
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
    iterations: record.iterations + (record.runner?.iterations ?? 0),
    inputs: record.inputs,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.result !== undefined ? { result: record.result } : {}),
    ...(record.error !== undefined ? { error: { ...record.error } } : {}),
    ...(record.workspaceResult !== undefined ? { workspace: record.workspaceResult } : {}),
  };
}

/** @internal The whole tree as plain data. */
export function buildTreeSnapshot(records: ReadonlyMap<string, AgentRecord>, maxConcurrency: number): AgentTreeSnapshot {
  const counts: Record<AgentRuntimeStatus, number> = { idle: 0, running: 0, forking: 0, waiting: 0, completed: 0, error: 0, terminated: 0 };
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
