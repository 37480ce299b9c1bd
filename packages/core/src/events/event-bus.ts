import { EventEmitter } from 'node:events';
import type TypedEmitter from 'typed-emitter';
import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { serializeError } from '../util/serialize-error';
import type { AnyTroupeEvent, TroupeEvent, TroupeEventPayloads, TroupeEventType } from './event-map';
import { eventVersion } from './event-schema-registry';

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

/** One subscription, as the dispatcher sees it. */
interface Subscription {
  listener: (event: AnyTroupeEvent) => unknown;
  channelId: string | undefined;
  filter: ((event: AnyTroupeEvent) => boolean) | undefined;
  once: boolean;
  off: Unsubscribe;
}

/** Per event type: the subscriptions (copied on write) and the one function registered on the emitter. */
interface TypeDispatcher {
  subscriptions: Subscription[];
  dispatch: (event: AnyTroupeEvent) => void;
}

/**
 * The SDK's typed event bus: one event map, versioned envelopes
 * (`{ type, version, timestamp, source, payload }`), wildcard subscriptions,
 * per-channel filters and async iteration.
 *
 * A throwing (or rejecting) listener never stops the emit or the other
 * listeners; it is reported as a `bus:listener-error` event.
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
  private readonly dispatchers = new Map<string, TypeDispatcher>();
  private wildcard: TypeDispatcher | undefined;
  private reportingError = false;
  /** Listeners added straight to `emitter` (not through `on`); while 0, emit dispatches directly. */
  private directListeners = 0;

  constructor(options: EventBusOptions = {}) {
    const emitter = new EventEmitter({ captureRejections: false });
    emitter.setMaxListeners(0);
    const ours = (listener: unknown) => [...this.dispatchers.values()].some((d) => d.dispatch === listener);
    emitter.on('newListener', (type: string | symbol, listener: unknown) => {
      if (type !== 'newListener' && type !== 'removeListener' && !ours(listener)) this.directListeners++;
    });
    emitter.on('removeListener', (type: string | symbol, listener: unknown) => {
      if (type !== 'newListener' && type !== 'removeListener' && !ours(listener)) this.directListeners--;
    });
    this.emitter = emitter as unknown as TypedEmitter<EventBusListeners>;
    this.source = options.source ?? 'core';
  }

  /**
   * Emits an event, wrapping `payload` in a versioned envelope. Returns the envelope.
   */
  emit<T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T], options?: EmitOptions): TroupeEvent<T> {
    const event: TroupeEvent<T> = {
      type,
      version: eventVersion(type),
      timestamp: Date.now(),
      source: options === undefined ? this.source : (options.source ?? this.source),
      payload,
    };
    if (this.directListeners === 0) {
      // Fast path: only our own subscriptions exist, so call their dispatchers directly.
      const dispatcher = this.dispatchers.get(type);
      if (dispatcher !== undefined) dispatcher.dispatch(event as AnyTroupeEvent);
      if (this.wildcard !== undefined) this.wildcard.dispatch(event as AnyTroupeEvent);
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
      // Fast path: only our own subscriptions exist, so call their dispatchers directly.
      this.dispatchers.get(event.type)?.dispatch(event);
      this.wildcard?.dispatch(event);
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

  /** Number of listeners for a type (or `'*'`), including ones added to `emitter` directly. */
  listenerCount(type: EventSelector): number {
    const dispatcher = this.dispatchers.get(type);
    const raw = (this.emitter as unknown as EventEmitter).listenerCount(type);
    return dispatcher ? dispatcher.subscriptions.length + raw - 1 : raw;
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
    this.dispatchers.clear();
    this.wildcard = undefined;
    this.directListeners = 0;
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
    let active = true;
    const subscription: Subscription = {
      listener: listener as (event: AnyTroupeEvent) => unknown,
      channelId: options.channelId,
      filter: options.filter as ((event: AnyTroupeEvent) => boolean) | undefined,
      once,
      off: () => {
        if (!active) return;
        active = false;
        // Copy on write: a dispatch in progress keeps iterating its own snapshot.
        dispatcher.subscriptions = dispatcher.subscriptions.filter((s) => s !== subscription);
        if (dispatcher.subscriptions.length === 0) this.dropDispatcher(type, dispatcher);
        signal?.removeEventListener('abort', subscription.off);
      },
    };
    dispatcher.subscriptions = [...dispatcher.subscriptions, subscription];
    signal?.addEventListener('abort', subscription.off, { once: true });
    return subscription.off;
  }

  private dispatcherFor(type: string): TypeDispatcher {
    const existing = this.dispatchers.get(type);
    if (existing) return existing;
    const dispatcher: TypeDispatcher = {
      subscriptions: [],
      dispatch: (event) => {
        const subscriptions = dispatcher.subscriptions;
        for (let i = 0; i < subscriptions.length; i++) {
          const subscription = subscriptions[i] as Subscription;
          if (subscription.channelId !== undefined && (event.payload as { channelId?: unknown }).channelId !== subscription.channelId) continue;
          try {
            if (subscription.filter !== undefined && !subscription.filter(event)) continue;
            if (subscription.once) subscription.off();
            const result = subscription.listener(event);
            if (result !== undefined && typeof (result as PromiseLike<void>).then === 'function') {
              (result as Promise<void>).then(undefined, (error: unknown) => this.reportListenerError(event.type, error));
            }
          } catch (error) {
            this.reportListenerError(event.type, error);
          }
        }
      },
    };
    this.dispatchers.set(type, dispatcher);
    (this.emitter as unknown as EventEmitter).on(type, dispatcher.dispatch);
    if (type === '*') this.wildcard = dispatcher;
    return dispatcher;
  }

  private dropDispatcher(type: string, dispatcher: TypeDispatcher): void {
    if (this.dispatchers.get(type) !== dispatcher) return;
    (this.emitter as unknown as EventEmitter).removeListener(type, dispatcher.dispatch); // while still known as ours
    this.dispatchers.delete(type);
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
