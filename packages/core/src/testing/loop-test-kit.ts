// Helpers shared by the loop's tests (not exported from the package).
import type { AgentLoop } from '@troupe/core/agent-loop';
import type { AnyTroupeEvent, EventBus, LoopLogger, PerceptionInput, TroupeEventType } from '@troupe/core';

/** Records every event on a bus. */
export function recordEvents(bus: EventBus): AnyTroupeEvent[] {
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => void events.push(event));
  return events;
}

/** Types of the recorded events, optionally only those of some types, with the phase when there is one. */
export function eventTrail(events: readonly AnyTroupeEvent[], types: readonly TroupeEventType[]): string[] {
  return events
    .filter((event) => types.includes(event.type))
    .map((event) => {
      const payload = event.payload as { phase?: string; to?: string };
      return payload.phase ? `${event.type} ${payload.phase}` : payload.to ? `${event.type} ${payload.to}` : event.type;
    });
}

/** Resolves once the loop has completed `count` iterations (any outcome). */
export function iterations(loop: AgentLoop, count: number): Promise<unknown> {
  if (loop.stats().iterations >= count) return Promise.resolve();
  return loop.bus.waitFor('loop:completed', { filter: (event) => event.payload.iteration >= count });
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A logger that keeps its lines. */
export function memoryLogger(): { logger: LoopLogger; lines: { level: string; message: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

/** A sensor returning the given batches one per Sense phase, then nothing. */
export function scriptedSensor(batches: PerceptionInput[][], name = 'test:sensor') {
  let next = 0;
  return {
    kind: 'sensor' as const,
    name,
    calls: 0,
    sense() {
      this.calls++;
      return batches[next++] ?? [];
    },
  };
}

/** Lets pending promise callbacks and immediates run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
