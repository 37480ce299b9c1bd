import type { AnyTroupeEvent } from './event-map';

/**
 * One subscription: a node of a doubly linked list, so adding and removing
 * it cost O(1) however many others there are.
 */
export interface Subscription {
  readonly listener: (event: AnyTroupeEvent) => unknown;
  /** Set when the subscription only wants events whose payload has this `channelId`. */
  readonly channelId: string | undefined;
  readonly filter: ((event: AnyTroupeEvent) => boolean) | undefined;
  readonly once: boolean;
  /** Position in the bus's subscription order; delivery follows it across lists. */
  readonly order: number;
  prev: Subscription | undefined;
  /** Kept on removal, so a dispatch standing on a removed node can walk on. */
  next: Subscription | undefined;
  removed: boolean;
}

/** Subscriptions in the order they were added. */
class SubscriptionList {
  head: Subscription | undefined;
  tail: Subscription | undefined;

  append(subscription: Subscription): void {
    subscription.prev = this.tail;
    if (this.tail === undefined) this.head = subscription;
    else this.tail.next = subscription;
    this.tail = subscription;
  }

  /** Unlinks `subscription`; its own `next` stays, for a dispatch standing on it. */
  remove(subscription: Subscription): void {
    const { prev, next } = subscription;
    if (prev === undefined) this.head = next;
    else prev.next = next;
    if (next === undefined) this.tail = prev;
    else next.prev = prev;
  }

  get empty(): boolean {
    return this.head === undefined;
  }
}

/** The first live subscription from `node` on that was added before the dispatch began. */
function live(node: Subscription | undefined, limit: number): Subscription | undefined {
  while (node !== undefined && node.removed) node = node.next;
  return node === undefined || node.order >= limit ? undefined : node;
}

/** Calls one subscription; a throw or a rejection goes to `report`, never to the emitter. */
export type Deliver = (subscription: Subscription, event: AnyTroupeEvent) => void;

/**
 * The subscriptions of one event type (or of `'*'`): those without a channel
 * in one list, the others indexed by channel, so an emit visits only the
 * subscriptions that can match it. Delivery keeps subscription order across
 * the two lists. A subscription removed during a dispatch is not called by
 * it; one added during a dispatch waits for the next event.
 */
export class TypeSubscriptions {
  private readonly any = new SubscriptionList();
  private readonly byChannel = new Map<string, SubscriptionList>();
  /** Live subscriptions with a channel (a field, not `byChannel.size`: read on every dispatch). */
  private channelled = 0;
  /** Live subscriptions. */
  size = 0;

  add(subscription: Subscription): void {
    const { channelId } = subscription;
    if (channelId === undefined) this.any.append(subscription);
    else {
      let list = this.byChannel.get(channelId);
      if (list === undefined) {
        list = new SubscriptionList();
        this.byChannel.set(channelId, list);
      }
      list.append(subscription);
      this.channelled++;
    }
    this.size++;
  }

  /** Removes a subscription; returns false when it was already removed. */
  remove(subscription: Subscription): boolean {
    if (subscription.removed) return false;
    subscription.removed = true;
    const { channelId } = subscription;
    if (channelId === undefined) this.any.remove(subscription);
    else {
      const list = this.byChannel.get(channelId) as SubscriptionList;
      list.remove(subscription);
      if (list.empty) this.byChannel.delete(channelId);
      this.channelled--;
    }
    this.size--;
    return true;
  }

  /** Removes every subscription (a dispatch in progress calls none of them any more). */
  clear(): void {
    for (const list of [this.any, ...this.byChannel.values()]) {
      for (let node = list.head; node !== undefined; node = node.next) node.removed = true;
      list.head = undefined;
      list.tail = undefined;
    }
    this.byChannel.clear();
    this.channelled = 0;
    this.size = 0;
  }

  /**
   * Delivers `event` to every matching subscription added before `limit`
   * (the bus's next subscription order when the emit began), in order.
   */
  dispatch(event: AnyTroupeEvent, limit: number, deliver: Deliver): void {
    if (this.size === 1 && this.channelled === 0) {
      // The common case: one listener for the type.
      const only = this.any.head as Subscription;
      if (only.order < limit) deliver(only, event);
      return;
    }
    let any = live(this.any.head, limit);
    let channel: Subscription | undefined;
    if (this.channelled > 0) {
      const payload = event.payload as { channelId?: unknown } | null | undefined;
      const channelId = payload === null || typeof payload !== 'object' ? undefined : payload.channelId;
      if (typeof channelId === 'string') channel = live(this.byChannel.get(channelId)?.head, limit);
    }
    if (channel === undefined) {
      // Fast path: no channel-indexed subscription matches this event.
      while (any !== undefined) {
        const current = any;
        deliver(current, event);
        any = live(current.next, limit);
      }
      return;
    }
    // Merge the two ordered lists by subscription order.
    while (any !== undefined || channel !== undefined) {
      if (channel === undefined || (any !== undefined && any.order < channel.order)) {
        const current = any as Subscription;
        deliver(current, event);
        any = live(current.next, limit);
        channel = live(channel, limit);
      } else {
        const current = channel;
        deliver(current, event);
        channel = live(current.next, limit);
        any = live(any, limit);
      }
    }
  }
}
