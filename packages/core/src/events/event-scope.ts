import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyTroupeEvent } from './event-map';
import type { EventBus } from './event-bus';

/**
 * A W3C trace context as it crosses a process boundary (the `troupe`
 * control socket, an environment variable): `traceparent` and optional
 * `tracestate` headers, as text.
 */
export interface TraceCarrier {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  traceparent: string;
  tracestate?: string;
}

/** The run a scope belongs to, for usage totals and budgets: `{ kind: 'looper', id: 'looper/run-1' }`. */
export interface EventScopeRun {
  /** `looper`, `team`, `orchestrator`, `pipeline`, `loop`, or a plugin's own kind. */
  kind: string;
  id: string;
}

/**
 * One unit of work in progress (a Looper step, an agent turn, a tool call…)
 * as seen from inside it. Events emitted while the work runs — across
 * `await`s — can ask {@link currentEventScope} which unit they belong to:
 * tracing uses it for parent/child links, the usage ledger to charge tokens
 * to an agent and a run.
 */
export interface EventScope {
  /** The event that opened the scope (a `*-started` event); undefined for a scope made only to carry a trace context or a bus. */
  readonly event: AnyTroupeEvent | undefined;
  /** The bus the work reports to: model and tool calls inside emit their events here when given no bus. */
  readonly bus: EventBus | undefined;
  /** The enclosing scope. */
  readonly parent: EventScope | undefined;
  /** Who spends tokens inside (the innermost scope's agent is charged). */
  readonly agentId: string | undefined;
  /** The run this scope is (or belongs to, through {@link EventScope.parent}). */
  readonly run: EventScopeRun | undefined;
  /** Trace context received from another process: the parent of spans started inside. */
  readonly traceContext: TraceCarrier | undefined;
}

/** What a new scope is made of (the parent is the current scope). */
export interface EventScopeInit {
  event?: AnyTroupeEvent | undefined;
  bus?: EventBus | undefined;
  agentId?: string | undefined;
  run?: EventScopeRun | undefined;
  traceContext?: TraceCarrier | undefined;
}

/** A function that runs `work` inside a scope of its own (e.g. OpenTelemetry's active span). */
export type EventScopeWrapper = <T>(scope: EventScope, work: () => T) => T;

interface ScopeState {
  /** Consumers that turned scopes on; while 0, {@link withEventScope} only calls its function. */
  users: number;
  storage: AsyncLocalStorage<EventScope> | undefined;
  wrappers: EventScopeWrapper[];
}

// One state per process, shared by the ESM and CJS builds of core (and duplicate installs).
const STATE_KEY = Symbol.for('troupe.singleton.core.event-scopes.v1');
const holder = globalThis as Record<symbol, unknown>;
if (!(STATE_KEY in holder)) {
  Object.defineProperty(globalThis, STATE_KEY, { value: { users: 0, storage: undefined, wrappers: [] } satisfies ScopeState });
}
const state = holder[STATE_KEY] as ScopeState;

/**
 * Turns event scopes on for this process until the returned function is
 * called. Scopes cost an `AsyncLocalStorage` (on Node 20 it slows every
 * promise a little), so they are off until something reads them: a usage
 * ledger or the OpenTelemetry instrumentation turns them on.
 *
 * @example
 * ```ts
 * const off = enableEventScopes();
 * // … runs whose events are linked to their scopes …
 * off();
 * ```
 */
export function enableEventScopes(): () => void {
  state.users++;
  state.storage ??= new AsyncLocalStorage<EventScope>();
  let enabled = true;
  return () => {
    if (!enabled) return;
    enabled = false;
    state.users--;
  };
}

/** True while some consumer has scopes on. */
export function eventScopesEnabled(): boolean {
  return state.users > 0;
}

/** The innermost scope of the work running now, if scopes are on and it runs inside one. */
export function currentEventScope(): EventScope | undefined {
  return state.users > 0 ? state.storage?.getStore() : undefined;
}

/**
 * Runs `work` inside a new scope (child of the current one), so that events
 * emitted while it runs, across `await`s, belong to it. When scopes are off,
 * it only calls `work`. Runners open one scope per unit of work, right after
 * emitting its `*-started` event:
 *
 * @example
 * ```ts
 * const started = bus.emit('looper:step-started', { … });
 * const result = await withEventScope({ event: started, bus, agentId: 'looper-coder' }, () => runStep());
 * ```
 */
export function withEventScope<T>(init: EventScopeInit, work: () => T): T {
  if (state.users === 0 || state.storage === undefined) return work();
  const parent = state.storage.getStore();
  const scope: EventScope = {
    event: init.event,
    bus: init.bus ?? parent?.bus,
    parent,
    agentId: init.agentId,
    run: init.run,
    traceContext: init.traceContext,
  };
  let run = work;
  for (const wrap of state.wrappers) {
    const inner = run;
    run = () => wrap(scope, inner);
  }
  return state.storage.run(scope, run);
}

/**
 * Runs `work` inside a scope captured earlier with {@link currentEventScope} (not a new child of the current one),
 * so that events published later on another path — a queue worker's events streamed back to the origin — belong
 * to the unit of work that asked for them, as if it had run in-process. With scopes off, or no scope, it only calls `work`.
 *
 * @example
 * ```ts
 * const scope = currentEventScope(); // when the job is submitted
 * // … later, as its events come back:
 * runInEventScope(scope, () => bus.publish(event));
 * ```
 */
export function runInEventScope<T>(scope: EventScope | undefined, work: () => T): T {
  if (scope === undefined || state.users === 0 || state.storage === undefined) return work();
  return state.storage.run(scope, work);
}

/**
 * Adds a wrapper that every new scope's work runs through (inside the
 * scope): `@troupe/otel` uses it to make the scope's span the active
 * OpenTelemetry span, so user code inside nests under it. Returns a function
 * that removes it.
 */
export function registerEventScopeWrapper(wrapper: EventScopeWrapper): () => void {
  state.wrappers.push(wrapper);
  return () => {
    const index = state.wrappers.indexOf(wrapper);
    if (index >= 0) state.wrappers.splice(index, 1);
  };
}

/** Walks from `scope` outwards (itself first). */
export function* eventScopeChain(scope: EventScope | undefined): Generator<EventScope> {
  for (let current = scope; current !== undefined; current = current.parent) yield current;
}
