import { EventEmitter } from 'node:events';
import type TypedEmitter from 'typed-emitter';
import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { serializeError } from '../util/serialize-error';
import { eventTimestamp } from './event-clock';
import type { AnyTroupeEvent, TroupeEvent, TroupeEventPayloads, TroupeEventType } from './event-map';
import { eventSchemaGeneration, eventVersion } from './event-versions';
import { TypeSubscriptions, type Subscription } from './event-subscriptions';

/** Listener signature per event type (typed-emitter's event map), plus `'*'` for every event. */
export type EventBusListeners = {
  [K in TroupeEventType | '*']: (event: K extends TroupeEventType ? TroupeEvent<K> : AnyTroupeEvent) => void;
};

/** What `on`/`once` listen to: one event type or `'*'` for all. */
export type EventSelector = TroupeEventType | '*';
/** The envelope a listener of `S` receives. */
export type EventFor<S extends EventSelector> = S extends TroupeEventType ? TroupeEvent<S> : AnyTroupeEvent;
/** A listener; it may be async — a rejection is reported like a throw. */
export type EventListener<S extends EventSelector> = (event: EventFor<S>) => void | Promise<void>;

/** Options for `on`, `once` and `events`. */
export interface SubscribeOptions<S extends EventSelector> {
  /** Only events whose payload has this `channelId` (e.g. `message:added` for the `looper` channel). */
  channelId?: string;
  /** Only events for which this returns true. */
  filter?: (event: EventFor<S>) => boolean;
  /** Unsubscribes when aborted. */
  signal?: AbortSignal;
}

/** Options for `emit`. */
export interface EmitOptions {
  /** Overrides the bus's default `source` for this event. */
  source?: string;
}

/** Options for {@link EventBus}. */
export interface EventBusOptions {
  /** Default `source` of emitted events. Default `'core'`. */
  source?: string;
}

/** Removes a subscription. Calling it twice is harmless. */
export type Unsubscribe = () => void;

/** Per event type: its subscriptions and the one function registered on the emitter. */
interface TypeDispatcher {
  type: string;
  subscriptions: TypeSubscriptions;
  dispatch: (event: AnyTroupeEvent) => void;
  /** `eventVersion(type)` as of schema generation `generation`, read once rather than per emit. */
  version: number;
  generation: number;
}

/** The dispatcher's type's schema version, re-read only after a schema registration changed. */
function versionOf(dispatcher: TypeDispatcher): number {
  const generation = eventSchemaGeneration();
  if (dispatcher.generation !== generation) {
    dispatcher.version = eventVersion(dispatcher.type);
    dispatcher.generation = generation;
  }
  return dispatcher.version;
}

/** A subscription with what its removal needs. */
interface BusSubscription extends Subscription {
  readonly dispatcher: TypeDispatcher;
  readonly signal: AbortSignal | undefined;
  readonly off: Unsubscribe;
}

/** Four (type, dispatcher) pairs in fixed fields: a fixed shape the emit path reads without a keyed lookup. */
interface RecentTypes {
  t0: string | undefined;
  d0: TypeDispatcher | undefined;
  t1: string | undefined;
  d1: TypeDispatcher | undefined;
  t2: string | undefined;
  d2: TypeDispatcher | undefined;
  t3: string | undefined;
  d3: TypeDispatcher | undefined;
  next: number;
}

function emptyRecentTypes(): RecentTypes {
  return { t0: undefined, d0: undefined, t1: undefined, d1: undefined, t2: undefined, d2: undefined, t3: undefined, d3: undefined, next: 0 };
}

/**
 * The SDK's typed event bus: one event map, versioned envelopes
 * (`{ type, version, timestamp, source, payload }`), wildcard subscriptions,
 * per-channel filters and async iteration.
 *
 * A throwing (or rejecting) listener never stops the emit or the other
 * listeners; it is reported as a `bus:listener-error` event.
 *
 * Listeners run in the order they subscribed (those of the type, then those
 * of `'*'`). Subscribing and unsubscribing cost O(1), and subscriptions with
 * a `channelId` are indexed by channel, so an emit only visits the ones that
 * match it. A listener unsubscribed during an emit is not called by it; one
 * subscribed during an emit first hears the next event.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const off = bus.on('message:added', (event) => console.log(event.payload.message.content), { channelId: 'looper' });
 * bus.emit('agent:stopped', { roleId: 'coder' });
 * off();
 * ```
 */
export class EventBus {
  /**
   * The underlying Node EventEmitter, typed with typed-emitter. Listeners
   * added here directly bypass error isolation; prefer `on()`.
   */
  readonly emitter: TypedEmitter<EventBusListeners>;
  private readonly source: string;
  /**
   * Dispatchers by event type: a prototype-less object rather than a Map, as
   * `node:events` does, since a keyed property load is the cheapest lookup
   * on the emit path. A dropped type's slot is set to undefined, not deleted.
   */
  private dispatchers: Record<string, TypeDispatcher | undefined> = Object.create(null) as Record<string, TypeDispatcher | undefined>;
  private wildcard: TypeDispatcher | undefined;
  /** Our dispatch functions registered on `emitter`, told apart from listeners added there directly. */
  private readonly ownDispatches = new WeakSet<object>();
  /** Order of the next subscription; an emit delivers to those below its value when it began. */
  private nextOrder = 0;
  private reportingError = false;
  /** Listeners added straight to `emitter` (not through `on`); while 0, emit dispatches directly. */
  private directListeners = 0;
  private listenerChanges = 0;
  /** The last types published and their dispatchers (see `typeDispatcher`). */
  private recent: RecentTypes = emptyRecentTypes();
  private readonly deliver = (subscription: Subscription, event: AnyTroupeEvent): void => {
    try {
      if (subscription.filter !== undefined && !subscription.filter(event)) return;
      if (subscription.once) this.unsubscribe(subscription as BusSubscription);
      const result = subscription.listener(event);
      if (result !== undefined && result !== null && typeof (result as PromiseLike<void>).then === 'function') this.watchRejection(result as Promise<void>, event.type);
    } catch (error) {
      this.reportListenerError(event.type, error);
    }
  };

  /** Reports an async listener's rejection (apart from `deliver`: a closure there would allocate a context per delivery). */
  private watchRejection(result: Promise<void>, eventType: string): void {
    result.then(undefined, (error: unknown) => this.reportListenerError(eventType, error));
  }

  constructor(options: EventBusOptions = {}) {
    const emitter = new EventEmitter({ captureRejections: false });
    emitter.setMaxListeners(0);
    const direct = (type: string | symbol, listener: unknown) =>
      type !== 'newListener' && type !== 'removeListener' && !this.ownDispatches.has(listener as object);
    emitter.on('newListener', (type: string | symbol, listener: unknown) => {
      this.listenerChanges++;
      if (direct(type, listener)) this.directListeners++;
    });
    emitter.on('removeListener', (type: string | symbol, listener: unknown) => {
      this.listenerChanges++;
      if (direct(type, listener)) this.directListeners--;
    });
    this.emitter = emitter as unknown as TypedEmitter<EventBusListeners>;
    this.source = options.source ?? 'core';
  }

  /**
   * Emits an event, wrapping `payload` in a versioned envelope
   * `{ type, version, timestamp, source, payload }` (a plain object; every
   * listener gets the same one). Returns the envelope. The timestamp comes
   * from a clock shared by the events of one synchronous run (read again at
   * least every 32 events), since reading the clock costs as much as the
   * rest of an emit: never later than the emit, never out of order.
   */
  emit<T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T], options?: EmitOptions): TroupeEvent<T> {
    const dispatcher = this.dispatchers[type];
    const event: TroupeEvent<T> = {
      type,
      version: dispatcher === undefined ? eventVersion(type) : dispatcher.generation === eventSchemaGeneration() ? dispatcher.version : versionOf(dispatcher),
      timestamp: eventTimestamp(),
      source: options === undefined ? this.source : (options.source ?? this.source),
      payload,
    };
    if (this.directListeners === 0) {
      // Fast path: only our own subscriptions exist, so deliver to them directly.
      const limit = this.nextOrder;
      if (dispatcher !== undefined) dispatcher.subscriptions.dispatch(event as AnyTroupeEvent, limit, this.deliver);
      const wildcard = this.wildcard;
      if (wildcard !== undefined) wildcard.subscriptions.dispatch(event as AnyTroupeEvent, limit, this.deliver);
    } else this.dispatch(event as AnyTroupeEvent);
    return event;
  }

  /**
   * Re-emits an envelope built elsewhere (e.g. parsed with `parseEvent` from
   * another process), keeping its timestamp and source.
   */
  publish(event: AnyTroupeEvent): void {
    this.dispatch(event);
  }

  private dispatch(event: AnyTroupeEvent): void {
    if (this.directListeners === 0) {
      // Fast path: only our own subscriptions exist, so deliver to them directly (as `emit` does).
      const limit = this.nextOrder;
      const dispatcher = this.typeDispatcher(event.type);
      if (dispatcher !== undefined) dispatcher.subscriptions.dispatch(event, limit, this.deliver);
      const wildcard = this.wildcard;
      if (wildcard !== undefined) wildcard.subscriptions.dispatch(event, limit, this.deliver);
      return;
    }
    const raw = this.emitter as unknown as EventEmitter;
    raw.emit(event.type, event);
    raw.emit('*', event);
  }

  /**
   * Subscribes to one event type, or to every event with `'*'`.
   * Returns a function that unsubscribes.
   */
  on<S extends EventSelector>(type: S, listener: EventListener<S>, options: SubscribeOptions<S> = {}): Unsubscribe {
    return this.subscribe(type, listener, options, false);
  }

  /** Like `on`, but the listener runs at most once. */
  once<S extends EventSelector>(type: S, listener: EventListener<S>, options: SubscribeOptions<S> = {}): Unsubscribe {
    return this.subscribe(type, listener, options, true);
  }

  /**
   * A number that changes whenever a listener is added or removed (through
   * `on`/`once`/`off`, `clear`, or on `emitter` directly): a publisher that
   * caches which event types have listeners re-checks only when it moved.
   */
  get listenerGeneration(): number {
    return this.listenerChanges;
  }

  /** Number of listeners for a type (or `'*'`), including ones added to `emitter` directly. */
  listenerCount(type: EventSelector): number {
    const dispatcher = this.dispatchers[type];
    const raw = (this.emitter as unknown as EventEmitter).listenerCount(type);
    return dispatcher ? dispatcher.subscriptions.size + raw - 1 : raw;
  }

  /**
   * Async iterator over events of one type (or `'*'`). Ends cleanly, without
   * leaking its listener, when `signal` aborts or the loop breaks.
   *
   * @example
   * ```ts
   * for await (const event of bus.events('message:added', { signal, channelId: 'looper' })) {
   *   console.log(event.payload.message.content);
   * }
   * ```
   */
  events<S extends EventSelector>(type: S, options: SubscribeOptions<S> = {}): AsyncIterableIterator<EventFor<S>> {
    const { signal } = options;
    const queue: EventFor<S>[] = [];
    let wake: ((result: IteratorResult<EventFor<S>>) => void) | undefined;
    let done = signal?.aborted ?? false;
    let off: Unsubscribe = () => {};
    const finish = (): IteratorResult<EventFor<S>> => {
      done = true;
      off();
      signal?.removeEventListener('abort', onAbort);
      queue.length = 0;
      return { value: undefined, done: true };
    };
    const onAbort = () => {
      const result = finish();
      const resolve = wake;
      wake = undefined;
      resolve?.(result);
    };
    if (!done) {
      off = this.on(
        type,
        (event) => {
          if (wake) {
            const resolve = wake;
            wake = undefined;
            resolve({ value: event, done: false });
          } else queue.push(event);
        },
        { ...options, signal: undefined },
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }
    const iterator: AsyncIterableIterator<EventFor<S>> = {
      next: () => {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as EventFor<S>, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          wake = resolve;
        });
      },
      return: () => Promise.resolve(finish()),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * Resolves with the next matching event; rejects with `AbortError` when
   * `signal` aborts first.
   */
  waitFor<S extends EventSelector>(type: S, options: SubscribeOptions<S> = {}): Promise<EventFor<S>> {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortError(`Waiting for "${type}" was aborted`, { cause: signal.reason }));
      const onAbort = () => {
        off();
        reject(new AbortError(`Waiting for "${type}" was aborted`, { cause: signal?.reason }));
      };
      const off = this.once(
        type,
        (event) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(event);
        },
        { ...options, signal: undefined },
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Removes every listener. */
  clear(): void {
    const raw = this.emitter as unknown as EventEmitter;
    for (const name of raw.eventNames()) {
      if (name !== 'newListener' && name !== 'removeListener') raw.removeAllListeners(name);
    }
    for (const dispatcher of Object.values(this.dispatchers)) dispatcher?.subscriptions.clear();
    this.dispatchers = Object.create(null) as Record<string, TypeDispatcher | undefined>;
    this.wildcard = undefined;
    this.recent = emptyRecentTypes();
    this.directListeners = 0;
    this.listenerChanges++;
  }

  private subscribe<S extends EventSelector>(
    type: S,
    listener: EventListener<S>,
    options: SubscribeOptions<S>,
    once: boolean,
  ): Unsubscribe {
    if (typeof type !== 'string' || type.length === 0) throw new InvalidArgumentError('type', 'expected an event type or "*"');
    if (typeof listener !== 'function') throw new InvalidArgumentError('listener', `expected a function for "${type}"`);
    const { signal } = options;
    if (signal?.aborted) return () => {};
    const dispatcher = this.dispatcherFor(type);
    const subscription: BusSubscription = {
      listener: listener as (event: AnyTroupeEvent) => unknown,
      channelId: options.channelId,
      filter: options.filter as ((event: AnyTroupeEvent) => boolean) | undefined,
      once,
      order: this.nextOrder++,
      prev: undefined,
      next: undefined,
      removed: false,
      dispatcher,
      signal,
      off: () => this.unsubscribe(subscription),
    };
    dispatcher.subscriptions.add(subscription);
    this.listenerChanges++;
    signal?.addEventListener('abort', subscription.off, { once: true });
    return subscription.off;
  }

  private unsubscribe(subscription: BusSubscription): void {
    const { dispatcher } = subscription;
    if (!dispatcher.subscriptions.remove(subscription)) return;
    this.listenerChanges++;
    if (dispatcher.subscriptions.size === 0) this.dropDispatcher(dispatcher);
    subscription.signal?.removeEventListener('abort', subscription.off);
  }

  /**
   * The dispatcher of a type, through a small cache of the last four types
   * published: a publisher usually cycles through a few types (a loop's
   * iteration events), and comparing interned names is cheaper than the
   * keyed lookup, which goes megamorphic when the type varies. Emptied
   * whenever a dispatcher comes or goes.
   */
  private typeDispatcher(type: string): TypeDispatcher | undefined {
    const cache = this.recent;
    if (type === cache.t0) return cache.d0;
    if (type === cache.t1) return cache.d1;
    if (type === cache.t2) return cache.d2;
    if (type === cache.t3) return cache.d3;
    const dispatcher = this.dispatchers[type];
    switch (cache.next) {
      case 0:
        cache.t0 = type;
        cache.d0 = dispatcher;
        break;
      case 1:
        cache.t1 = type;
        cache.d1 = dispatcher;
        break;
      case 2:
        cache.t2 = type;
        cache.d2 = dispatcher;
        break;
      default:
        cache.t3 = type;
        cache.d3 = dispatcher;
    }
    cache.next = (cache.next + 1) & 3;
    return dispatcher;
  }

  private dispatcherFor(type: string): TypeDispatcher {
    const existing = this.dispatchers[type];
    if (existing) return existing;
    const subscriptions = new TypeSubscriptions();
    const dispatcher: TypeDispatcher = {
      type,
      subscriptions,
      dispatch: (event) => subscriptions.dispatch(event, this.nextOrder, this.deliver),
      version: eventVersion(type),
      generation: eventSchemaGeneration(),
    };
    this.dispatchers[type] = dispatcher;
    this.recent = emptyRecentTypes();
    this.ownDispatches.add(dispatcher.dispatch);
    (this.emitter as unknown as EventEmitter).on(type, dispatcher.dispatch);
    if (type === '*') this.wildcard = dispatcher;
    return dispatcher;
  }

  private dropDispatcher(dispatcher: TypeDispatcher): void {
    const { type } = dispatcher;
    if (this.dispatchers[type] !== dispatcher) return;
    (this.emitter as unknown as EventEmitter).removeListener(type, dispatcher.dispatch);
    this.dispatchers[type] = undefined;
    this.recent = emptyRecentTypes();
    if (type === '*') this.wildcard = undefined;
  }

  private reportListenerError(eventType: string, error: unknown): void {
    // A throwing `bus:listener-error` listener must not recurse forever.
    if (this.reportingError || eventType === 'bus:listener-error') {
      process.emitWarning(`Troupe event listener for "${eventType}" failed: ${serializeError(error).message}`, 'TroupeWarning');
      return;
    }
    this.reportingError = true;
    try {
      this.emit('bus:listener-error', { eventType, error: serializeError(error) });
    } finally {
      this.reportingError = false;
    }
  }
}
