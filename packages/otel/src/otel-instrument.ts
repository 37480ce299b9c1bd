import { checkPriceTable, defaultModelPrices, type ModelPrice } from '@troupe/usage';
import {
  currentEventScope,
  enableEventScopes,
  eventScopeChain,
  InvalidArgumentError,
  EventBus,
  parseTraceparent,
  registerEventScopeWrapper,
  registerFallbackEventBus,
  registerTraceCarrierProvider,
  type AnyTroupeEvent,
  type EventScope,
  type TraceCarrier,
} from '@troupe/core';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { errorMessage, GEN_AI } from './otel-attributes';
import { ruleFor, type SpanActions, type SpanEnd, type SpanStart } from './otel-span-rules';
import { runnerSpanRules } from './otel-span-rules-runners';
import { OTEL_VERSION } from './otel-version';

/** Options for {@link instrumentTroupe}. */
export interface InstrumentTroupeOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`, set by your OpenTelemetry SDK). */
  tracerProvider?: TracerProvider;
  /** Prices for the `troupe.cost.usd` of turns and calls that report none (added to the default table). */
  prices?: Record<string, ModelPrice>;
}

/** Stops the instrumentation: ends the spans still open and removes its listeners. */
export type Uninstrument = () => void;

/**
 * Turns a bus's events into OpenTelemetry spans (GenAI semantic
 * conventions where they apply): agent turns of the CLIs (adapter, model,
 * session, tokens, cost, outcome) with their tool calls, model calls and
 * tool calls of `runToolLoop`/`generateObject`, agent-loop iterations and
 * phases, Looper runs, iterations and Coder/Review/JUDGE steps, orchestrator
 * agents with their forks as children and their tool calls, pipeline runs,
 * batches (planning and execution) and tasks, team conversations and turns.
 *
 * Parents follow the real structure: ids in the events (a step's
 * iteration, a sub-agent's parent), else the event scope the work runs in
 * (an agent turn inside a Looper step, a model call inside JUDGE), else the
 * active OpenTelemetry context (your span around `looper.start()`), else a
 * trace context that came from another process with a command (the `troupe`
 * control socket). While a Troupe scope runs, its span is the active span, so
 * your own instrumentation nests under it. No prompt, answer, tool argument
 * or secret goes into an attribute.
 *
 * Each `runToolLoop` run is one span (`tool_loop <model>`) with its model
 * and tool calls as children: one trace per run. Instrumentation is on for
 * the whole process: `runToolLoop`, `generateObject` and observed models
 * called without an `eventBus`, outside any run, report to the instrumented
 * bus (registered as core's fallback bus), so they are traced too; with no
 * `bus` argument, a bus of its own is instrumented for them.
 *
 * Bring your own SDK (`@opentelemetry/sdk-node` or `sdk-trace-node`) and
 * register it before instrumenting; `@opentelemetry/api` is a peer dependency.
 *
 * @example
 * ```ts
 * import { NodeSDK } from '@opentelemetry/sdk-node';
 * import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
 * import { instrumentTroupe } from '@troupe/otel';
 *
 * new NodeSDK({ traceExporter: new OTLPTraceExporter() }).start();
 * const bus = new EventBus();
 * const stop = instrumentTroupe(bus);
 * const looper = new Looper({ coder: { configId: 'claude' }, review: { configId: 'codex' }, eventBus: bus });
 * ```
 */
export function instrumentTroupe(bus: EventBus = new EventBus(), options: InstrumentTroupeOptions = {}): Uninstrument {
  if (bus === null || typeof bus !== 'object' || typeof bus.on !== 'function') throw new InvalidArgumentError('bus', 'expected an EventBus');
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer('@troupe/otel', OTEL_VERSION);
  const spans = new TroupeSpans(tracer, { ...defaultModelPrices, ...(options.prices ? checkPriceTable(options.prices) : {}) });
  const offs = [
    enableEventScopes(),
    bus.on('*', (event) => spans.handle(event)),
    registerEventScopeWrapper((scope, work) => {
      const parent = spans.contextOfScope(scope);
      return parent ? context.with(parent, work) : work();
    }),
    registerTraceCarrierProvider(() => spans.carrier()),
    // Model calls and tool loops given no bus, outside any run, report here: traced without passing `eventBus`.
    registerFallbackEventBus(bus),
  ];
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const off of offs) off();
    spans.endAll();
  };
}

/** The open spans of one instrumented bus, and how events move them. */
class TroupeSpans implements SpanActions {
  private readonly open = new Map<string, Span>();
  private readonly ofEvent = new WeakMap<AnyTroupeEvent, Span>();
  private readonly mine = new WeakSet<Span>();
  private readonly notes = new Map<string, string>();
  private current: AnyTroupeEvent | undefined;
  /** When the event being handled was published (see {@link SpanActions.now}). */
  now = 0;

  constructor(
    private readonly tracer: Tracer,
    readonly prices: Readonly<Record<string, ModelPrice>>,
  ) {}

  handle(event: AnyTroupeEvent): void {
    const rule = ruleFor(event) ?? runnerSpanRules[event.type];
    if (!rule) return;
    this.current = event;
    this.now = performance.timeOrigin + performance.now();
    try {
      rule(event as never, this);
    } finally {
      this.current = undefined;
    }
  }

  start(key: string, start: SpanStart): void {
    const event = this.current as AnyTroupeEvent;
    const parent = this.parentContext(start.parentKey);
    const span = this.tracer.startSpan(start.name, { kind: start.kind ?? SpanKind.INTERNAL, attributes: start.attributes, startTime: start.startTime ?? this.now }, parent);
    this.mine.add(span);
    this.open.get(key)?.end(this.now);
    this.open.set(key, span);
    this.ofEvent.set(event, span);
  }

  end(key: string, end: SpanEnd = {}): void {
    const span = this.open.get(key);
    if (!span) return;
    this.open.delete(key);
    finish(span, end, this.current ? this.now : undefined);
  }

  endUnder(prefix: string, end: SpanEnd = {}): void {
    for (const key of [...this.open.keys()]) if (key.startsWith(prefix)) this.end(key, end);
  }

  record(span: SpanStart & { endTime: number; error?: SpanEnd['error'] }): void {
    const started = this.tracer.startSpan(span.name, { kind: span.kind ?? SpanKind.INTERNAL, attributes: span.attributes, startTime: span.startTime ?? span.endTime }, this.parentContext(span.parentKey));
    this.mine.add(started);
    finish(started, { endTime: span.endTime, error: span.error }, span.endTime);
  }

  has(key: string): boolean {
    return this.open.has(key);
  }

  event(name: string, attributes: Attributes, options: { key?: string | undefined; fallbackName: string }): void {
    const target = (options.key !== undefined ? this.open.get(options.key) : undefined) ?? trace.getSpan(this.parentContext(undefined));
    if (target?.isRecording()) target.addEvent(name, attributes, this.now);
    else this.record({ name: options.fallbackName, attributes, endTime: this.now });
  }

  note(key: string, value: string | undefined): void {
    if (value === undefined) this.notes.delete(key);
    else this.notes.set(key, value);
  }

  recall(key: string): string | undefined {
    return this.notes.get(key);
  }

  /** Ends what is still open (at shutdown). */
  endAll(): void {
    const now = Date.now();
    for (const span of this.open.values()) finish(span, { error: 'still open when the instrumentation stopped' }, now);
    this.open.clear();
  }

  /** The context a scope's work runs in: its span's, or a trace context from another process. */
  contextOfScope(scope: EventScope): Context | undefined {
    const span = this.spanOfScope(scope);
    if (span) return trace.setSpan(context.active(), span);
    return scope.traceContext ? remoteContext(scope.traceContext) : undefined;
  }

  /** The W3C carrier of where work runs now (for a command sent to another process). */
  carrier(): TraceCarrier | undefined {
    const spanContext = trace.getSpan(this.parentContext(undefined))?.spanContext();
    if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
    const flags = (spanContext.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
    const tracestate = spanContext.traceState?.serialize();
    return { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`, ...(tracestate ? { tracestate } : {}) };
  }

  /**
   * A new span's parent: the span its ids name; else a span of the user's
   * nested inside the current scope (the active one, when it is not ours);
   * else the innermost scope with a span, or a remote trace context; else
   * the active context.
   */
  private parentContext(parentKey: string | undefined): Context {
    const active = context.active();
    const named = parentKey !== undefined ? this.open.get(parentKey) : undefined;
    if (named) return trace.setSpan(active, named);
    const activeSpan = trace.getSpan(active);
    if (activeSpan && !this.mine.has(activeSpan)) return active;
    for (const scope of eventScopeChain(currentEventScope())) {
      const span = this.spanOfScope(scope);
      if (span) return trace.setSpan(active, span);
      if (scope.traceContext) return remoteContext(scope.traceContext) ?? active;
    }
    return active;
  }

  private spanOfScope(scope: EventScope): Span | undefined {
    const span = scope.event ? this.ofEvent.get(scope.event) : undefined;
    if (span) return span;
    // An orchestrator agent's run opens a scope named by its agent id.
    if (scope.run?.kind === 'orchestrator' && scope.agentId !== undefined) return this.open.get(`orchestrator-agent|${scope.agentId}`);
    return undefined;
  }
}

function finish(span: Span, end: SpanEnd, fallbackTime: number | undefined): void {
  if (end.attributes) span.setAttributes(end.attributes);
  if (end.error !== undefined) {
    const message = errorMessage(end.error);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) });
    span.setAttribute(GEN_AI.errorType, typeof end.error === 'string' ? 'error' : end.error.name);
  }
  span.end(end.endTime ?? fallbackTime);
}

function remoteContext(carrier: TraceCarrier): Context | undefined {
  const parsed = parseTraceparent(carrier.traceparent);
  if (!parsed) return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: parsed.flags & 1, isRemote: true });
}
