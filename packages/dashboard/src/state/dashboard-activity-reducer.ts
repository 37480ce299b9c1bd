// Folds orchestrator (`orchestrator:*`), team (`team:*`) and pipeline (`pipeline:*`) events into the view model.
import { clip, count, errorLine, keepLast, record, text } from './dashboard-fields';
import type { BatchView, ConversationView, DashboardState, PipelineView } from './dashboard-state';

type Payload = Record<string, unknown>;

/** Applies one `orchestrator:*` event. Returns false for a type it does not know. */
export function applyOrchestratorEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  const agentId = text(payload.agentId);
  const agent = agentId ? state.agents.find((item) => item.agentId === agentId) : undefined;
  switch (type) {
    case 'orchestrator:agent-created':
    case 'orchestrator:agent-status-changed': {
      if (!agentId) return true;
      const parentId = text(payload.parentId);
      const task = text(payload.task);
      const reason = text(payload.reason);
      const error = errorLine(payload.error);
      const view = agent ?? {
        agentId,
        ...(parentId ? { parentId } : {}),
        rootId: text(payload.rootId) ?? agentId,
        kind: text(payload.kind) ?? 'main',
        strategyType: text(payload.strategyType) ?? '',
        status: 'idle',
        attempt: 1,
        createdAt: timestamp,
        updatedAt: timestamp,
        tools: 0,
        forks: 0,
      };
      if (!agent) {
        state.agents.push(view);
        keepLast(state.agents, state.limits.agents);
      }
      if (task) view.task = clip(task, state.limits.textChars);
      view.attempt = count(payload.attempt) ?? view.attempt;
      if (type === 'orchestrator:agent-status-changed') view.status = text(payload.to) ?? view.status;
      if (reason) view.reason = clip(reason, 500);
      if (error) view.error = clip(error, 500);
      view.updatedAt = timestamp;
      return true;
    }
    case 'orchestrator:tool-executed':
      if (agent) agent.tools++;
      return true;
    case 'orchestrator:fork-started': {
      const parent = state.agents.find((item) => item.agentId === text(payload.parentId));
      if (parent) parent.forks++;
      return true;
    }
    case 'orchestrator:fork-completed':
    case 'orchestrator:agent-retry-scheduled':
    case 'orchestrator:text-delta':
    case 'orchestrator:markup-malformed':
      return true;
    default:
      return false;
  }
}

function conversationFor(state: DashboardState, payload: Payload, timestamp: number): ConversationView | undefined {
  const conversationId = text(payload.conversationId);
  if (!conversationId) return undefined;
  let conversation = state.conversations.find((item) => item.conversationId === conversationId);
  if (!conversation) {
    conversation = {
      conversationId,
      teamName: text(payload.teamName) ?? '',
      channelId: text(payload.channelId) ?? '',
      startedAt: timestamp,
      messages: [],
      turn: null,
      failures: 0,
      completed: null,
    };
    state.conversations.push(conversation);
    keepLast(state.conversations, state.limits.conversations);
  }
  return conversation;
}

/** Applies one `team:*` event. Returns false for a type it does not know. */
export function applyTeamEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  if (!type.startsWith('team:')) return false;
  const conversation = conversationFor(state, payload, timestamp);
  if (!conversation) return true;
  switch (type) {
    case 'team:turn-started':
      conversation.turn = {
        turn: count(payload.turn) ?? 0,
        memberName: text(payload.memberName) ?? '',
        memberType: text(payload.memberType) ?? 'ai',
        cause: text(payload.cause) ?? '',
      };
      return true;
    case 'team:message': {
      const message = record(payload.message);
      const id = text(message.id) ?? `${conversation.messages.length}`;
      if (conversation.messages.some((item) => item.id === id)) return true;
      const speakerType = text(message.speakerType);
      conversation.messages.push({
        id,
        turn: count(message.turn) ?? 0,
        kind: text(message.kind) ?? 'member',
        speakerName: text(message.speakerName) ?? '',
        ...(speakerType ? { speakerType } : {}),
        content: clip(text(message.content) ?? '', state.limits.textChars),
        isDone: message.isDone === true,
        next: Array.isArray(message.next) ? message.next.filter((item): item is string => typeof item === 'string') : [],
        timestamp: count(message.timestamp) ?? timestamp,
      });
      keepLast(conversation.messages, state.limits.teamMessages);
      return true;
    }
    case 'team:member-failed':
      conversation.failures++;
      return true;
    case 'team:completed': {
      const usage = record(payload.usage);
      const tokens = { inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens), totalTokens: count(usage.totalTokens), costUsd: count(usage.costUsd) };
      conversation.completed = {
        reason: text(payload.reason) ?? '',
        detail: clip(text(payload.detail) ?? '', 500),
        turns: count(payload.turns) ?? 0,
        ...(tokens.inputTokens !== undefined
          ? { usage: { inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens ?? 0, totalTokens: tokens.totalTokens ?? 0, costUsd: tokens.costUsd ?? 0 } }
          : {}),
      };
      conversation.turn = null;
      return true;
    }
    default:
      return true;
  }
}

function pipelineFor(state: DashboardState, payload: Payload, timestamp: number): PipelineView | undefined {
  const channelId = text(payload.channelId);
  if (!channelId) return undefined;
  let pipeline = state.pipelines.find((item) => item.channelId === channelId);
  if (!pipeline) {
    pipeline = { channelId, threadId: text(payload.threadId) ?? channelId, startedAt: timestamp, runs: [], batches: [], totalBatches: null, planningCompleted: false, executionCompleted: false };
    state.pipelines.push(pipeline);
    keepLast(state.pipelines, state.limits.pipelines);
  }
  return pipeline;
}

function batchFor(state: DashboardState, pipeline: PipelineView, batchIndex: number): BatchView {
  let batch = pipeline.batches.find((item) => item.batchIndex === batchIndex);
  if (!batch) {
    batch = { batchIndex, status: 'planning' };
    pipeline.batches.push(batch);
    pipeline.batches.sort((a, b) => a.batchIndex - b.batchIndex);
    keepLast(pipeline.batches, state.limits.batches);
  }
  return batch;
}

/** Applies one `pipeline:*` event. Returns false for a type it does not know. */
export function applyPipelineEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  if (!type.startsWith('pipeline:')) return false;
  const pipeline = pipelineFor(state, payload, timestamp);
  if (!pipeline) return true;
  const batchIndex = count(payload.batchIndex);
  const batch = batchIndex === undefined ? undefined : batchFor(state, pipeline, batchIndex);
  switch (type) {
    case 'pipeline:run-started': {
      const runId = text(payload.runId) ?? '';
      const mode = text(payload.mode);
      if (mode) pipeline.mode = mode;
      pipeline.runs.push({ runId, role: text(payload.role) ?? 'both', ...(mode ? { mode } : {}), startedAt: timestamp });
      keepLast(pipeline.runs, 20);
      return true;
    }
    case 'pipeline:run-finished': {
      const run = pipeline.runs.find((item) => item.runId === text(payload.runId));
      if (run) Object.assign(run, { finishedAt: timestamp, status: text(payload.status) ?? 'unknown' });
      return true;
    }
    case 'pipeline:batch-state-changed': {
      if (!batch) return true;
      const status = text(payload.status) ?? batch.status;
      batch.status = status;
      if (status === 'planning') batch.planningStartedAt ??= timestamp;
      if (status === 'planned') batch.plannedAt ??= timestamp;
      if (status === 'executing') batch.executionStartedAt ??= timestamp;
      if (status === 'executed' || status === 'failed') batch.executedAt ??= timestamp;
      batch.taskCount = count(payload.taskCount) ?? batch.taskCount;
      batch.executedTasks = count(payload.executedTasks) ?? batch.executedTasks;
      batch.failedTasks = count(payload.failedTasks) ?? batch.failedTasks;
      return true;
    }
    case 'pipeline:batch-planned':
      if (batch) {
        batch.plannedAt ??= timestamp;
        batch.taskCount = count(payload.taskCount) ?? batch.taskCount;
        if (batch.status === 'planning') batch.status = 'planned';
      }
      pipeline.totalBatches = count(payload.totalBatches) ?? pipeline.totalBatches;
      return true;
    case 'pipeline:batch-executed':
      if (batch) {
        batch.executedAt ??= timestamp;
        batch.status = text(payload.status) ?? 'executed';
        batch.taskCount = count(payload.taskCount) ?? batch.taskCount;
        batch.executedTasks = count(payload.executedTasks) ?? batch.executedTasks;
        batch.failedTasks = count(payload.failedTasks) ?? batch.failedTasks;
        batch.skipped = payload.skipped === true;
      }
      return true;
    case 'pipeline:task-started':
      if (batch) {
        batch.executionStartedAt ??= timestamp;
        if (batch.status === 'planned') batch.status = 'executing';
      }
      return true;
    case 'pipeline:planning-completed':
      pipeline.planningCompleted = true;
      pipeline.totalBatches = count(payload.totalBatches) ?? pipeline.totalBatches;
      return true;
    case 'pipeline:execution-completed':
      pipeline.executionCompleted = true;
      return true;
    default:
      return true;
  }
}
