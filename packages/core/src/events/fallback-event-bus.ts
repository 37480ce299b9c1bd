import { processSingleton } from '../util/process-singleton';
import type { EventBus } from './event-bus';

const fallbacks = processSingleton('core.fallback-event-buses.v1', () => ({ buses: [] as EventBus[] }));

/**
 * Registers `bus` as the one runners report to when they are given no bus
 * and run in no scope that has one (`runToolLoop`, `generateObject`,
 * `observeChatModel` called on their own). `instrumentTroupe` registers the
 * bus it instruments, so such calls are traced without passing `eventBus`
 * everywhere. The latest registration wins until it is removed; returns the
 * function that removes it. One list per process, shared by every copy of
 * core.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const off = registerFallbackEventBus(bus);
 * await runToolLoop({ model, prompt: 'hi' }); // model:* and tool-loop:* events reach `bus`
 * off();
 * ```
 */
export function registerFallbackEventBus(bus: EventBus): () => void {
  fallbacks.buses.push(bus);
  let registered = true;
  return () => {
    if (!registered) return;
    registered = false;
    const index = fallbacks.buses.lastIndexOf(bus);
    if (index >= 0) fallbacks.buses.splice(index, 1);
  };
}

/** The bus registered last with {@link registerFallbackEventBus}, if any. */
export function fallbackEventBus(): EventBus | undefined {
  return fallbacks.buses.at(-1);
}
