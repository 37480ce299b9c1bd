import { currentEventScope, eventScopeChain, type TraceCarrier } from './event-scope';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A parsed W3C `traceparent`. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Trace flags (bit 0: sampled). */
  flags: number;
}

/**
 * Parses a W3C `traceparent` header. Returns undefined for anything that is
 * not one (wrong shape, version `ff`, all-zero ids), so a bad header from
 * another process is ignored rather than trusted.
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/** Keeps a carrier only when its `traceparent` is valid (and its `tracestate` a short string). */
export function checkTraceCarrier(value: unknown): TraceCarrier | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (!parseTraceparent(traceparent)) return undefined;
  return { traceparent: traceparent as string, ...(typeof tracestate === 'string' && tracestate.length <= 512 ? { tracestate } : {}) };
}

type TraceCarrierProvider = () => TraceCarrier | undefined;

const PROVIDER_KEY = Symbol.for('troupe.singleton.core.trace-carrier-provider.v1');
const holder = globalThis as Record<symbol, unknown>;
if (!(PROVIDER_KEY in holder)) Object.defineProperty(globalThis, PROVIDER_KEY, { value: { providers: [] as TraceCarrierProvider[] } });
const providers = (holder[PROVIDER_KEY] as { providers: TraceCarrierProvider[] }).providers;

/**
 * Registers what {@link currentTraceCarrier} asks first: `@troupe/otel`
 * answers with the active OpenTelemetry span's context. Returns a function
 * that unregisters it.
 */
export function registerTraceCarrierProvider(provider: TraceCarrierProvider): () => void {
  providers.push(provider);
  return () => {
    const index = providers.indexOf(provider);
    if (index >= 0) providers.splice(index, 1);
  };
}

/**
 * The trace context to send with a request to another process (the
 * `troupe` control socket): the active span's (through a registered
 * provider), else one received from another process for the work running
 * now, else the `TRACEPARENT` / `TRACESTATE` environment variables (how a
 * CI job or a shell script hands its trace to a command). Undefined when
 * there is none.
 */
export function currentTraceCarrier(env: Readonly<Record<string, string | undefined>> = process.env): TraceCarrier | undefined {
  for (let index = providers.length - 1; index >= 0; index--) {
    const carrier = checkTraceCarrier((providers[index] as TraceCarrierProvider)());
    if (carrier) return carrier;
  }
  for (const scope of eventScopeChain(currentEventScope())) {
    if (scope.traceContext) return scope.traceContext;
  }
  return checkTraceCarrier({ traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE });
}
