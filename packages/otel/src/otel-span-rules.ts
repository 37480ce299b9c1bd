import { defaultModelPrices, priceUsage, type PriceTable } from '@troupe/usage';
import { type AnyTroupeEvent, type SerializedError, type TroupeEvent, type TroupeEventType } from '@troupe/core';
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { defined, GEN_AI, providerAttributes, usageAttributes } from './otel-attributes';

/** How a span starts. */
export interface SpanStart {
  name: string;
  kind?: SpanKind;
  attributes: Attributes;
  /** The span this one is a child of, by key, when the events say it (else the event's scope decides). */
  parentKey?: string | undefined;
  /** Default: when the event was published ({@link SpanActions.now}). */
  startTime?: number;
}

/** How a span ends. */
export interface SpanEnd {
  attributes?: Attributes;
  /** Set: the span's status is error, with this message. */
  error?: SerializedError | string | undefined;
  /** Default: when the event was published ({@link SpanActions.now}). */
  endTime?: number;
}

/** What a rule can do with spans. */
export interface SpanActions {
  start(key: string, span: SpanStart): void;
  end(key: string, end?: SpanEnd): void;
  /** Ends every open span whose key starts with `prefix` (children left open when their parent ends). */
  endUnder(prefix: string, end?: SpanEnd): void;
  /** A span that already happened (start and end known at once). */
  record(span: SpanStart & { endTime: number; error?: SerializedError | string | undefined }): void;
  has(key: string): boolean;
  /**
   * Adds a span event (a point in time with attributes) to the span `key` names when it is open, else to the span the
   * work runs in (the event's scope, or the active context); with neither, records a zero-length span named
   * `fallbackName` with the attributes, so the fact is never lost.
   */
  event(name: string, attributes: Attributes, options: { key?: string | undefined; fallbackName: string }): void;
  /** Remembers a value between events (a pipeline thread's run, a team turn's member). */
  note(key: string, value: string | undefined): void;
  recall(key: string): string | undefined;
  prices: PriceTable;
  /**
   * When the event being handled was published (ms since the epoch, sub-ms
   * precise, on the clock the spans use): events are handled as they are
   * published, so their spans are timed on one fine clock rather than the
   * events' whole-ms timestamps.
   */
  readonly now: number;
}

type Rule<T extends TroupeEventType> = (event: TroupeEvent<T>, spans: SpanActions) => void;
type Rules = { [T in TroupeEventType]?: Rule<T> };

const error = (failed: boolean, value: SerializedError | string | undefined, fallback: string) => (failed ? (value ?? fallback) : undefined);
const toolLoop = (loopId: string) => `tool-loop|${loopId}`;
/** A call's parent when a tool loop made it and its span is open (else the scope decides). */
const loopParent = (spans: SpanActions, loopId: string | undefined) => (loopId !== undefined && spans.has(toolLoop(loopId)) ? toolLoop(loopId) : undefined);

/**
 * Which spans each event starts or ends. Keys name spans by the ids the
 * events carry, so a child finds its parent (`looper-step|…` under
 * `looper-iteration|…`); spans with no parent in their ids take the event
 * scope's span, or the active OpenTelemetry context.
 */
export const spanRules: Rules = {
  // ---------------------------------------------------------------- agent turns (CLIs) and their tool calls
  'agent:turn-started': (e, spans) =>
    spans.start(`turn|${e.payload.turnId}`, {
      name: `invoke_agent ${e.payload.roleId}`,
      attributes: defined({
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentName]: e.payload.roleId,
        ...providerAttributes(e.payload.adapterType),
        'troupe.agent.adapter': e.payload.adapterType,
        'troupe.agent.resumed': e.payload.resumeSessionId !== undefined,
      }),
    }),
  'agent:part': (e, spans) => {
    const { part, turnId } = e.payload;
    if (turnId === undefined || (part.type !== 'tool-call' && part.type !== 'tool-result')) return;
    const key = `turn|${turnId}|tool|${part.toolCallId}`;
    spans.note(`tool-call|${part.toolCallId}`, part.type === 'tool-call' ? key : undefined);
    if (part.type === 'tool-call') {
      spans.start(key, {
        name: `execute_tool ${part.toolName}`,
        parentKey: `turn|${turnId}`,
        attributes: { [GEN_AI.operationName]: 'execute_tool', [GEN_AI.toolName]: part.toolName, [GEN_AI.toolCallId]: part.toolCallId, [GEN_AI.toolType]: 'function' },
      });
    } else spans.end(key, { error: error(part.isError, undefined, 'the tool reported an error') });
  },
  // A permission decision (also one made by `troupe approve` in another process, reported here with decidedBy
  // `approval`): an event on the tool call's span, else on the span the work runs in. The record holds no input, only
  // its hash, and its reason is redacted already.
  'permission:decided': (e, spans) => {
    const p = e.payload;
    spans.event(
      'troupe.permission.decided',
      defined({
        [GEN_AI.toolName]: p.tool,
        [GEN_AI.toolCallId]: p.id,
        [GEN_AI.agentName]: p.agent,
        'troupe.agent.adapter': p.adapter,
        'troupe.tool.kind': p.kind,
        'troupe.permission.behavior': p.behavior,
        'troupe.permission.decided_by': p.decidedBy,
        'troupe.permission.rule': p.rule,
        'troupe.permission.input_hash': p.inputHash,
        'troupe.permission.input_changed': p.inputChanged,
        'troupe.permission.reason': p.reason,
        'troupe.permission.duration_ms': p.durationMs,
        [GEN_AI.conversationId]: p.sessionId,
      }),
      { key: spans.recall(`tool-call|${p.id}`), fallbackName: `permission ${p.tool}` },
    );
  },
  'agent:turn-completed': (e, spans) => {
    const p = e.payload;
    if (p.turnId === undefined) return;
    const usage = p.usage;
    const tokens = { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0, cachedInputTokens: usage?.cachedInputTokens ?? 0 };
    const cost = usage ? priceUsage(spans.prices, p.model, tokens, usage.costUsd) : undefined;
    const end: SpanEnd = {
      attributes: defined({
        ...(p.model !== undefined ? { [GEN_AI.requestModel]: p.model, [GEN_AI.responseModel]: p.model } : {}),
        [GEN_AI.conversationId]: p.sessionId,
        ...usageAttributes(usage),
        'troupe.cost.usd': cost && cost.costSource !== 'unknown' ? cost.costUsd : undefined,
        'troupe.cost.source': cost?.costSource,
        'troupe.outcome': p.status,
        'troupe.duration_ms': p.durationMs,
      }),
      error: error(p.status !== 'completed' || p.error !== undefined, p.error, p.status),
    };
    spans.endUnder(`turn|${p.turnId}|`, { error: 'the turn ended first' });
    spans.end(`turn|${p.turnId}`, end);
  },

  // ---------------------------------------------------------------- tool loops (runToolLoop): the root of their calls
  'tool-loop:started': (e, spans) =>
    spans.start(toolLoop(e.payload.loopId), {
      name: `tool_loop ${e.payload.modelId}`,
      attributes: {
        [GEN_AI.operationName]: 'invoke_agent',
        ...providerAttributes(e.payload.provider),
        [GEN_AI.requestModel]: e.payload.modelId,
        'troupe.tool_loop.id': e.payload.loopId,
        'troupe.tool_loop.max_steps': e.payload.maxSteps,
        'troupe.tool_loop.tool_count': e.payload.toolCount,
      },
    }),
  'tool-loop:completed': (e, spans) => {
    const p = e.payload;
    spans.endUnder(`${toolLoop(p.loopId)}|`, { error: 'the tool loop ended first' });
    spans.end(toolLoop(p.loopId), {
      attributes: defined({
        ...usageAttributes(p.usage),
        'troupe.outcome': p.status,
        'troupe.tool_loop.steps': p.steps,
        'troupe.tool_loop.step_limit_reached': p.stepLimitReached,
      }),
      error: error(p.status !== 'completed', p.error, p.status),
    });
  },

  // ---------------------------------------------------------------- model and tool calls (APIs)
  'model:call-started': (e, spans) =>
    spans.start(`model|${e.payload.callId}`, {
      name: `chat ${e.payload.modelId}`,
      kind: SpanKind.CLIENT,
      parentKey: loopParent(spans, e.payload.loopId),
      attributes: defined({
        [GEN_AI.operationName]: 'chat',
        ...providerAttributes(e.payload.provider),
        [GEN_AI.requestModel]: e.payload.modelId,
        [GEN_AI.requestMaxTokens]: e.payload.maxOutputTokens,
        [GEN_AI.requestTemperature]: e.payload.temperature,
        'troupe.model.provider': e.payload.provider,
        'troupe.model.stream': e.payload.stream,
      }),
    }),
  'model:call-completed': (e, spans) => {
    const p = e.payload;
    const model = p.responseModelId ?? p.modelId;
    const cost = p.usage
      ? priceUsage(spans.prices, model, { inputTokens: p.usage.inputTokens ?? 0, outputTokens: p.usage.outputTokens ?? 0, cachedInputTokens: p.usage.cachedInputTokens ?? 0 }, undefined)
      : undefined;
    spans.end(`model|${p.callId}`, {
      attributes: defined({
        [GEN_AI.responseModel]: p.responseModelId,
        [GEN_AI.responseId]: p.responseId,
        [GEN_AI.responseFinishReasons]: p.stopReason !== undefined ? [p.stopReason] : undefined,
        ...usageAttributes(p.usage),
        'troupe.cost.usd': cost && cost.costSource !== 'unknown' ? cost.costUsd : undefined,
        'troupe.outcome': p.status,
      }),
      error: error(p.status !== 'completed', p.error, p.status),
    });
  },
  'tool:call-started': (e, spans) => {
    // Tool call ids repeat across loops: number the calls of each id.
    const count = Number(spans.recall(`tool-count|${e.payload.toolCallId}`) ?? 0) + 1;
    const key = `tool|${e.payload.toolCallId}|${count}`;
    spans.note(`tool-count|${e.payload.toolCallId}`, String(count));
    spans.note(`tool-open|${e.payload.toolCallId}`, key);
    spans.start(key, {
      name: `execute_tool ${e.payload.toolName}`,
      parentKey: loopParent(spans, e.payload.loopId),
      attributes: { [GEN_AI.operationName]: 'execute_tool', [GEN_AI.toolName]: e.payload.toolName, [GEN_AI.toolCallId]: e.payload.toolCallId, [GEN_AI.toolType]: 'function' },
    });
  },
  'tool:call-completed': (e, spans) => {
    const p = e.payload;
    const key = spans.recall(`tool-open|${p.toolCallId}`);
    if (key === undefined) return;
    spans.end(key, {
      attributes: { 'troupe.outcome': p.status },
      error: error(p.status !== 'succeeded', p.error, p.status),
    });
  },

  // ---------------------------------------------------------------- executor and background tasks
  'executor:started': (e, spans) =>
    spans.start(`exec|${e.payload.executionId}`, {
      name: `invoke_agent ${e.payload.agentId}`,
      attributes: { [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.agentName]: e.payload.agentId, 'troupe.channel_id': e.payload.channelId },
    }),
  'executor:completed': (e, spans) => spans.end(`exec|${e.payload.executionId}`),
  'executor:failed': (e, spans) => spans.end(`exec|${e.payload.executionId}`, { error: e.payload.error }),
  'task:started': (e, spans) =>
    // The task an agent was given (its CLI turns are `invoke_agent` children): named apart from them.
    spans.start(`task|${e.payload.taskId}`, {
      name: `troupe.task ${e.payload.agentId}`,
      attributes: { [GEN_AI.agentName]: e.payload.agentId, 'troupe.task.id': e.payload.taskId },
    }),
  'task:completed': (e, spans) => spans.end(`task|${e.payload.taskId}`),
  'task:failed': (e, spans) => spans.end(`task|${e.payload.taskId}`, { error: e.payload.error, attributes: { 'troupe.outcome': e.payload.status } }),

  // ---------------------------------------------------------------- agent loop (Sense-Plan-Act-Reflect)
  'loop:started': (e, spans) =>
    spans.start(`loop-iteration|${e.payload.iterationId}`, {
      name: `loop.iteration ${e.payload.loopId}`,
      attributes: { [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.agentName]: e.payload.loopId, 'troupe.loop.id': e.payload.loopId, 'troupe.loop.iteration': e.payload.iteration },
    }),
  'loop:phase-started': (e, spans) =>
    spans.start(`loop-iteration|${e.payload.iterationId}|${e.payload.phase}`, {
      name: `loop.phase ${e.payload.phase}`,
      parentKey: spans.has(`loop-iteration|${e.payload.iterationId}`) ? `loop-iteration|${e.payload.iterationId}` : undefined,
      attributes: { 'troupe.loop.id': e.payload.loopId, 'troupe.loop.phase': e.payload.phase, 'troupe.loop.step': e.payload.step },
    }),
  'loop:phase-completed': (e, spans) => spans.end(`loop-iteration|${e.payload.iterationId}|${e.payload.phase}`),
  'loop:error': (e, spans) => {
    if (e.payload.iterationId !== undefined) spans.end(`loop-iteration|${e.payload.iterationId}|${e.payload.phase}`, { error: e.payload.error });
  },
  'loop:completed': (e, spans) => {
    const key = `loop-iteration|${e.payload.iterationId}`;
    spans.endUnder(`${key}|`);
    spans.end(key, {
      attributes: { 'troupe.outcome': e.payload.outcome, 'troupe.loop.perception_count': e.payload.perceptionCount },
      error: error(e.payload.outcome === 'failed', e.payload.failedPhase ? `the ${e.payload.failedPhase} phase failed` : undefined, 'failed'),
    });
  },
};

/** The rule for an event, if any. */
export function ruleFor(event: AnyTroupeEvent): ((event: AnyTroupeEvent, spans: SpanActions) => void) | undefined {
  return (spanRules as Record<string, ((event: AnyTroupeEvent, spans: SpanActions) => void) | undefined>)[event.type];
}

/** Default prices for span costs. */
export const defaultSpanPrices: PriceTable = defaultModelPrices;
