import type { SerializedError } from '@troupe/core';
import { defined, GEN_AI } from './otel-attributes';
import type { SpanActions } from './otel-span-rules';

// The runner packages (looper, orchestrator, pipeline, team, best-of-n) are not
// dependencies of this one: their events are read by shape, as they travel.
type Payload = Record<string, unknown> & { error?: SerializedError };
type RunnerRule = (event: { type: string; timestamp: number; payload: Payload }, spans: SpanActions) => void;

const str = (value: unknown): string => String(value);
const failed = (value: boolean, message: SerializedError | string | undefined) => (value ? (message ?? 'failed') : undefined);

// ---------------------------------------------------------------- Looper: run → iteration → Coder / Review / JUDGE steps
const looperRun = (p: Payload) => `looper-run|${str(p.looperId)}|${str(p.runId)}`;
const looperIteration = (p: Payload) => `${looperRun(p)}|${str(p.iteration)}`;

const looperRules: Record<string, RunnerRule> = {
  'looper:run-started': (e, spans) =>
    spans.start(looperRun(e.payload), {
      name: `invoke_agent ${str(e.payload.looperId)}`,
      attributes: {
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentName]: str(e.payload.looperId),
        'troupe.looper.id': str(e.payload.looperId),
        'troupe.looper.run_id': str(e.payload.runId),
        'troupe.looper.resumed': e.payload.resumed === true,
      },
    }),
  'looper:iteration-started': (e, spans) =>
    spans.start(looperIteration(e.payload), {
      name: `looper.iteration ${str(e.payload.iteration)}`,
      parentKey: looperRun(e.payload),
      attributes: { 'troupe.looper.id': str(e.payload.looperId), 'troupe.looper.run_id': str(e.payload.runId), 'troupe.looper.iteration': Number(e.payload.iteration) },
    }),
  'looper:step-started': (e, spans) =>
    spans.start(`${looperIteration(e.payload)}|${str(e.payload.step)}`, {
      name: `looper.step ${str(e.payload.step)}`,
      parentKey: spans.has(looperIteration(e.payload)) ? looperIteration(e.payload) : looperRun(e.payload),
      attributes: { 'troupe.looper.step': str(e.payload.step), 'troupe.looper.iteration': Number(e.payload.iteration) },
    }),
  'looper:step-completed': (e, spans) =>
    spans.end(`${looperIteration(e.payload)}|${str(e.payload.step)}`, {
      attributes: defined({ 'troupe.outcome': str(e.payload.status), 'troupe.looper.timed_out': e.payload.timedOut === true, 'troupe.looper.health': e.payload.health as string | undefined }),
      error: failed(e.payload.status === 'FAILED', e.payload.error),
    }),
  'looper:decision': (e, spans) => {
    spans.end(`${looperIteration(e.payload)}|judge`, {
      attributes: { 'troupe.looper.decision': str(e.payload.type), 'troupe.looper.decision_source': str(e.payload.source) },
    });
    spans.endUnder(`${looperIteration(e.payload)}|`);
    spans.end(looperIteration(e.payload), { attributes: { 'troupe.looper.decision': str(e.payload.type) } });
  },
  'looper:run-finished': (e, spans) => {
    spans.endUnder(`${looperRun(e.payload)}|`);
    spans.end(looperRun(e.payload), {
      attributes: { 'troupe.outcome': str(e.payload.outcome), 'troupe.looper.iterations': Number(e.payload.iterations) },
      error: failed(e.payload.outcome === 'failed', str(e.payload.reason)),
    });
  },
};

// ---------------------------------------------------------------- orchestrator: agents, their forks as children, tool calls
const orchestratorAgent = (id: unknown) => `orchestrator-agent|${str(id)}`;
const TERMINAL = new Set(['completed', 'error', 'terminated']);

const orchestratorRules: Record<string, RunnerRule> = {
  'orchestrator:agent-created': (e, spans) =>
    spans.start(orchestratorAgent(e.payload.agentId), {
      name: `invoke_agent ${str(e.payload.agentId)}`,
      parentKey: e.payload.parentId !== undefined ? orchestratorAgent(e.payload.parentId) : undefined,
      attributes: defined({
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentId]: str(e.payload.agentId),
        [GEN_AI.agentName]: str(e.payload.strategyType),
        'troupe.orchestrator.root_id': str(e.payload.rootId),
        'troupe.orchestrator.parent_id': e.payload.parentId as string | undefined,
        'troupe.orchestrator.kind': str(e.payload.kind),
        'troupe.orchestrator.attempt': Number(e.payload.attempt),
      }),
    }),
  'orchestrator:agent-status-changed': (e, spans) => {
    if (!TERMINAL.has(str(e.payload.to))) return;
    spans.end(orchestratorAgent(e.payload.agentId), {
      attributes: defined({ 'troupe.outcome': str(e.payload.to), 'troupe.orchestrator.reason': e.payload.reason as string | undefined }),
      error: failed(e.payload.to === 'error', e.payload.error),
    });
  },
  'orchestrator:tool-executed': (e, spans) =>
    spans.record({
      name: `execute_tool ${str(e.payload.toolName)}`,
      parentKey: orchestratorAgent(e.payload.agentId),
      startTime: spans.now - Number(e.payload.durationMs),
      endTime: spans.now,
      attributes: {
        [GEN_AI.operationName]: 'execute_tool',
        [GEN_AI.toolName]: str(e.payload.toolName),
        [GEN_AI.toolCallId]: str(e.payload.toolCallId),
        [GEN_AI.toolType]: 'function',
        'troupe.tool.source': str(e.payload.source),
      },
      error: failed(e.payload.success === false, 'the tool failed'),
    }),
};

// ---------------------------------------------------------------- pipeline: run → batch (planning, execution) → task
const pipelineRun = (p: Payload) => `pipeline-run|${str(p.runId)}`;
const pipelineBatch = (p: Payload) => `pipeline-batch|${str(p.threadId)}|${str(p.batchIndex)}`;

const pipelineRules: Record<string, RunnerRule> = {
  'pipeline:run-started': (e, spans) => {
    spans.note(`pipeline-thread|${str(e.payload.threadId)}`, pipelineRun(e.payload));
    spans.start(pipelineRun(e.payload), {
      name: `pipeline.run ${str(e.payload.threadId)}`,
      attributes: { 'troupe.pipeline.run_id': str(e.payload.runId), 'troupe.pipeline.thread_id': str(e.payload.threadId), 'troupe.pipeline.mode': str(e.payload.mode), 'troupe.pipeline.role': str(e.payload.role) },
    });
  },
  'pipeline:batch-state-changed': (e, spans) => {
    const batch = pipelineBatch(e.payload);
    const status = str(e.payload.status);
    if (status === 'planning' || status === 'executing') {
      if (!spans.has(batch)) {
        spans.start(batch, {
          name: `pipeline.batch ${str(e.payload.batchIndex)}`,
          parentKey: spans.recall(`pipeline-thread|${str(e.payload.threadId)}`),
          attributes: { 'troupe.pipeline.thread_id': str(e.payload.threadId), 'troupe.pipeline.batch_index': Number(e.payload.batchIndex) },
        });
      }
      const phase = status === 'planning' ? 'planning' : 'execution';
      spans.start(`${batch}|${phase}`, { name: `pipeline.${phase} ${str(e.payload.batchIndex)}`, parentKey: batch, attributes: { 'troupe.pipeline.batch_index': Number(e.payload.batchIndex) } });
    } else if (status === 'planned') {
      spans.end(`${batch}|planning`, { attributes: defined({ 'troupe.pipeline.task_count': e.payload.taskCount as number | undefined }) });
    } else {
      const attributes = defined({ 'troupe.outcome': status, 'troupe.pipeline.failed_tasks': e.payload.failedTasks as number | undefined });
      spans.endUnder(`${batch}|`, { attributes });
      spans.end(batch, { attributes, error: failed(status === 'failed', 'a task of the batch failed') });
    }
  },
  'pipeline:task-started': (e, spans) => {
    const batch = pipelineBatch(e.payload);
    spans.start(`${batch}|task|${str(e.payload.taskIndex)}|${str(e.payload.attempt)}`, {
      name: `pipeline.task ${str(e.payload.taskId)}`,
      parentKey: spans.has(`${batch}|execution`) ? `${batch}|execution` : spans.has(batch) ? batch : spans.recall(`pipeline-thread|${str(e.payload.threadId)}`),
      attributes: { 'troupe.pipeline.task_id': str(e.payload.taskId), 'troupe.pipeline.task_index': Number(e.payload.taskIndex), 'troupe.pipeline.attempt': Number(e.payload.attempt) },
    });
  },
  'pipeline:task-completed': (e, spans) =>
    spans.end(`${pipelineBatch(e.payload)}|task|${str(e.payload.taskIndex)}|${str(e.payload.attempt)}`, {
      attributes: { 'troupe.outcome': str(e.payload.status) },
      error: failed(e.payload.status === 'failed', e.payload.error),
    }),
  'pipeline:run-finished': (e, spans) => {
    spans.end(pipelineRun(e.payload), {
      attributes: { 'troupe.outcome': str(e.payload.status), 'troupe.pipeline.executed_tasks': Number(e.payload.executedTasks), 'troupe.pipeline.failed_tasks': Number(e.payload.failedTasks) },
      error: failed(e.payload.status === 'failed', e.payload.error),
    });
  },
};

// ---------------------------------------------------------------- team: conversation → turns
const teamConversation = (p: Payload) => `team|${str(p.conversationId)}`;
const teamTurn = (p: Payload, turn: unknown) => `${teamConversation(p)}|turn|${str(turn)}`;

const teamRules: Record<string, RunnerRule> = {
  'team:started': (e, spans) =>
    spans.start(teamConversation(e.payload), {
      name: `invoke_workflow team ${str(e.payload.teamName)}`,
      attributes: { [GEN_AI.operationName]: 'invoke_workflow', [GEN_AI.conversationId]: str(e.payload.conversationId), 'troupe.team.name': str(e.payload.teamName) },
    }),
  'team:turn-started': (e, spans) => {
    const previous = spans.recall(`team-open-turn|${str(e.payload.conversationId)}`);
    if (previous !== undefined) spans.end(previous);
    const key = teamTurn(e.payload, e.payload.turn);
    spans.note(`team-open-turn|${str(e.payload.conversationId)}`, key);
    spans.start(key, {
      name: `invoke_agent ${str(e.payload.memberName)}`,
      parentKey: spans.has(teamConversation(e.payload)) ? teamConversation(e.payload) : undefined,
      attributes: {
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentId]: str(e.payload.memberId),
        [GEN_AI.agentName]: str(e.payload.memberName),
        [GEN_AI.conversationId]: str(e.payload.conversationId),
        'troupe.team.turn': Number(e.payload.turn),
        'troupe.team.member_type': str(e.payload.memberType),
        'troupe.team.cause': str(e.payload.cause),
      },
    });
  },
  'team:member-failed': (e, spans) => spans.end(teamTurn(e.payload, e.payload.turn), { error: e.payload.error, attributes: { 'troupe.outcome': str(e.payload.kind) } }),
  'team:message': (e, spans) => {
    const message = e.payload.message as { turn?: unknown; kind?: unknown } | undefined;
    if (message?.kind === 'member') spans.end(teamTurn(e.payload, message.turn), { attributes: { 'troupe.outcome': 'replied' } });
  },
  'team:completed': (e, spans) => {
    spans.endUnder(`${teamConversation(e.payload)}|`);
    const usage = (e.payload.usage ?? {}) as { inputTokens?: number; outputTokens?: number; costUsd?: number };
    spans.end(teamConversation(e.payload), {
      attributes: defined({
        'troupe.outcome': str(e.payload.reason),
        'troupe.team.turns': Number(e.payload.turns),
        [GEN_AI.usageInputTokens]: usage.inputTokens,
        [GEN_AI.usageOutputTokens]: usage.outputTokens,
        'troupe.cost.usd': usage.costUsd,
      }),
      error: failed(e.payload.reason === 'error', e.payload.error),
    });
  },
};

// ---------------------------------------------------------------- best-of-N: run → attempts (each with its agent's turn inside)
const bestOfNRun = (p: Payload) => `best-of-n|${str(p.runId)}`;
const bestOfNAttempt = (p: Payload, id: unknown) => `${bestOfNRun(p)}|${str(id)}`;

const bestOfNRules: Record<string, RunnerRule> = {
  'best-of-n:run-started': (e, spans) =>
    spans.start(bestOfNRun(e.payload), {
      name: 'invoke_workflow best-of-n',
      attributes: {
        [GEN_AI.operationName]: 'invoke_workflow',
        'troupe.best_of_n.run_id': str(e.payload.runId),
        'troupe.best_of_n.attempts': Array.isArray(e.payload.attempts) ? e.payload.attempts.length : 0,
        'troupe.best_of_n.select': str(e.payload.select),
        'troupe.best_of_n.mode': str(e.payload.mode),
      },
    }),
  'best-of-n:attempt-started': (e, spans) =>
    spans.start(bestOfNAttempt(e.payload, e.payload.id), {
      name: `invoke_agent ${str(e.payload.id)}`,
      parentKey: spans.has(bestOfNRun(e.payload)) ? bestOfNRun(e.payload) : undefined,
      attributes: {
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentId]: str(e.payload.id),
        [GEN_AI.agentName]: str(e.payload.agent),
        'troupe.workspace.branch': str(e.payload.branch),
      },
    }),
  'best-of-n:attempt-finished': (e, spans) => {
    const card = (e.payload.scorecard ?? {}) as Payload & { tokens?: { input?: number; output?: number }; diffstat?: { insertions?: number; deletions?: number } };
    spans.end(bestOfNAttempt(e.payload, card.id), {
      attributes: defined({
        'troupe.outcome': str(card.status),
        'troupe.best_of_n.passed': card.passed === true,
        [GEN_AI.usageInputTokens]: card.tokens?.input,
        [GEN_AI.usageOutputTokens]: card.tokens?.output,
        'troupe.cost.usd': card.costUsd as number | undefined,
        'troupe.best_of_n.wall_time_ms': card.wallTimeMs as number | undefined,
        'troupe.best_of_n.diff_lines': (card.diffstat?.insertions ?? 0) + (card.diffstat?.deletions ?? 0),
      }),
      error: failed(card.status === 'error', card.error),
    });
  },
  'best-of-n:run-finished': (e, spans) => {
    spans.endUnder(`${bestOfNRun(e.payload)}|`);
    spans.end(bestOfNRun(e.payload), {
      attributes: defined({
        'troupe.outcome': e.payload.winner === null ? 'no-winner' : 'selected',
        'troupe.best_of_n.winner': (e.payload.winner ?? undefined) as string | undefined,
        'troupe.best_of_n.stopped_by': e.payload.stoppedBy as string | undefined,
      }),
    });
  },
};

/** Span rules of the runner packages' events. */
export const runnerSpanRules: Readonly<Record<string, RunnerRule>> = { ...looperRules, ...orchestratorRules, ...pipelineRules, ...teamRules, ...bestOfNRules };
