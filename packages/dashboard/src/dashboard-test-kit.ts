// Test helpers for the dashboard's own tests (not exported from the package).
import { get, request } from 'node:http';
import { defineAgent, EventBus, MemoryStore, MessageStore, type AgentOutput } from '@troupe/core';
import { Looper } from '@troupe/looper';
import type { DashboardInput, DashboardState } from './state/dashboard-state';

/** A real Looper on a bus and a store, whose Coder waits until the test releases it. */
export function gatedLooper(options: { store?: MemoryStore; maxIterations?: number } = {}) {
  const bus = new EventBus();
  const store = options.store ?? new MemoryStore();
  const messages = new MessageStore(bus);
  const waiting: Array<(output: AgentOutput) => void> = [];
  const started: Array<() => void> = [];
  const coder = defineAgent({
    id: 'coder',
    description: 'gated by the test',
    run: (_input, { signal }) =>
      new Promise<AgentOutput>((resolve, reject) => {
        waiting.push(resolve);
        started.shift()?.();
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  });
  const review = defineAgent({
    id: 'review',
    description: 'always healthy',
    run: () => ({ text: 'Health normal', data: { health: 'normal', summary: 'All good.', findings: [] } }),
  });
  const looper = new Looper({ coder, review, eventBus: bus, messages, store, maxIterations: options.maxIterations ?? 2 });
  return {
    bus,
    store,
    looper,
    /** Resolves once the Coder is waiting. */
    coderWaiting: () => new Promise<void>((resolve) => (waiting.length > 0 ? resolve() : started.push(resolve))),
    release: (text = 'Done.') => waiting.shift()?.({ text }),
  };
}

/** An HTTP request to the dashboard; resolves with status and body. */
export function call(url: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Reads the dashboard's event stream: the snapshot, then inputs as they come. */
export function openStream(url: string) {
  const inputs: DashboardInput[] = [];
  const waiters: Array<{ test: (input: DashboardInput) => boolean; resolve: (input: DashboardInput) => void }> = [];
  let snapshot: (value: DashboardState) => void = () => {};
  const snapshotReady = new Promise<DashboardState>((resolve) => (snapshot = resolve));
  const req = get(url, (response) => {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!event || data === undefined) continue;
        if (event === 'snapshot') snapshot(JSON.parse(data) as DashboardState);
        if (event === 'input') {
          const input = JSON.parse(data) as DashboardInput;
          inputs.push(input);
          for (const waiter of [...waiters]) {
            if (!waiter.test(input)) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(input);
          }
        }
      }
    });
  });
  return {
    inputs,
    snapshot: snapshotReady,
    /** Resolves with the first input (seen or to come) that passes `test`. */
    next: (test: (input: DashboardInput) => boolean) =>
      new Promise<DashboardInput>((resolve) => {
        const seen = inputs.find(test);
        if (seen) resolve(seen);
        else waiters.push({ test, resolve });
      }),
    close: () => req.destroy(),
  };
}
