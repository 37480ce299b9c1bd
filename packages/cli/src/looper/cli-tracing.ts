import type { EventBus } from '@troupe/core';

/** Stops tracing the bus and exports the spans the SDK still holds (a batch processor's queue). */
export type StopTracing = () => Promise<void>;

/**
 * Traces the runner's bus with `@troupe/otel` when an OpenTelemetry SDK is
 * registered in this process (e.g. `NODE_OPTIONS="--import ./tracing.mjs" troupe looper …`)
 * and the packages can be loaded; otherwise does nothing. Returns what stops
 * it: that ends the open spans and flushes the SDK's provider, so a short
 * `troupe` process loses no span to a batch processor's delay.
 */
export async function instrumentIfTracing(bus: EventBus): Promise<StopTracing | undefined> {
  try {
    const api = await import('@opentelemetry/api');
    const provider = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    const delegate = (typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider) as { forceFlush?: () => Promise<void> } | undefined;
    if (!delegate || delegate.constructor?.name === 'NoopTracerProvider') return undefined;
    const { instrumentTroupe } = await import('@troupe/otel');
    const uninstrument = instrumentTroupe(bus);
    return async () => {
      uninstrument();
      await delegate.forceFlush?.().catch(() => undefined);
    };
  } catch {
    return undefined;
  }
}
