import type { EventBus } from '@troupe/core';

/**
 * Traces the runner's bus with `@troupe/otel` when an OpenTelemetry SDK is
 * registered in this process (e.g. `NODE_OPTIONS="--import ./tracing.mjs" troupe looper …`)
 * and the packages can be loaded; otherwise does nothing. Returns what stops it.
 */
export async function instrumentIfTracing(bus: EventBus): Promise<(() => void) | undefined> {
  try {
    const api = await import('@opentelemetry/api');
    const provider = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
    if (!delegate || delegate.constructor?.name === 'NoopTracerProvider') return undefined;
    const { instrumentTroupe } = await import('@troupe/otel');
    return instrumentTroupe(bus);
  } catch {
    return undefined;
  }
}
