import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { EventBus } from '../events/event-bus';
import { checkMessageInput } from './message-input';
import type { Message, MessageInput } from './message-schema';

/** Options for {@link MessageStore}. */
export interface MessageStoreOptions {
  /**
   * Keep at most this many messages per channel; older ones are dropped
   * first. Default: unbounded.
   */
  maxMessagesPerChannel?: number;
  /** Per-channel overrides of `maxMessagesPerChannel`. */
  retention?: Record<string, number>;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Options for {@link MessageStore.list}. */
export interface ListMessagesOptions {
  /** Only messages after this one (a message id or a `seq` number). */
  after?: string | number;
  /** At most this many messages: the oldest ones after `after`, or with `last`, the newest ones. */
  limit?: number;
  /** With `limit`, return the newest `limit` messages instead of the oldest. */
  last?: boolean;
}

interface Channel {
  /** Messages in order; `start` skips dropped ones without shifting the array. */
  items: Message[];
  start: number;
  nextSeq: number;
}

/**
 * Channels (the seeds' tabs) of ordered messages. `append` emits
 * `message:added` on the bus when one is given (seed 000 §1); without a bus
 * the store works the same, silently.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const store = new MessageStore(bus, { maxMessagesPerChannel: 1000 });
 * bus.on('message:added', (e) => console.log(e.payload.message.content), { channelId: 'looper' });
 * store.append('looper', { role: 'system', content: '[AUTO] Iteration 1 started' });
 * ```
 */
export class MessageStore {
  private readonly channels = new Map<string, Channel>();
  private readonly now: () => number;

  constructor(
    private readonly eventBus?: EventBus,
    private readonly options: MessageStoreOptions = {},
  ) {
    const { maxMessagesPerChannel } = options;
    if (maxMessagesPerChannel !== undefined && !(Number.isInteger(maxMessagesPerChannel) && maxMessagesPerChannel > 0)) {
      throw new InvalidArgumentError('maxMessagesPerChannel', `expected a positive integer, got ${String(maxMessagesPerChannel)}`);
    }
    this.now = options.now ?? Date.now;
  }

  /**
   * Appends a message to a channel and emits `message:added`.
   * Returns the stored message (with id, seq and timestamp).
   *
   * @throws ConfigError when the message is malformed (nothing is stored).
   */
  append(channelId: string, input: MessageInput): Message {
    if (typeof channelId !== 'string' || channelId.length === 0) {
      throw new InvalidArgumentError('channelId', 'expected a non-empty string');
    }
    const data = checkMessageInput(channelId, input);
    const channel = this.channel(channelId);
    const seq = channel.nextSeq++;
    const timestamp = this.now();
    const message: Message = {
      id: `${channelId}#${seq}`,
      channelId,
      seq,
      role: data.role ?? 'assistant',
      content: data.content,
      timestamp,
      ...(data.speaker !== undefined ? { speaker: data.speaker } : {}),
      ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
    };
    channel.items.push(message);
    this.trim(channelId, channel);
    this.eventBus?.emit('message:added', { channelId, tabId: channelId, message, timestamp }, { source: 'message-store' });
    return message;
  }

  /** The seed's name for {@link MessageStore.append}. */
  appendMessage(channelId: string, input: MessageInput): Message {
    return this.append(channelId, input);
  }

  /** Messages of a channel in order, optionally after a message and limited. */
  list(channelId: string, options: ListMessagesOptions = {}): Message[] {
    const channel = this.channels.get(channelId);
    if (!channel) return [];
    const { limit, last } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
      throw new InvalidArgumentError('limit', `expected a non-negative integer, got ${String(limit)}`);
    }
    let from = channel.start;
    if (options.after !== undefined) from = this.indexAfter(channel, options.after);
    const end = channel.items.length;
    if (limit === undefined) return channel.items.slice(from, end);
    return last ? channel.items.slice(Math.max(from, end - limit), end) : channel.items.slice(from, from + limit);
  }

  /** The newest message of a channel, if any. */
  last(channelId: string): Message | undefined {
    const channel = this.channels.get(channelId);
    return channel && channel.items.length > channel.start ? channel.items[channel.items.length - 1] : undefined;
  }

  /** Number of messages currently held in a channel. */
  count(channelId: string): number {
    const channel = this.channels.get(channelId);
    return channel ? channel.items.length - channel.start : 0;
  }

  /** Ids of channels that have held at least one message. */
  channelIds(): string[] {
    return [...this.channels.keys()];
  }

  /** Removes every message of a channel (sequence numbers keep increasing). */
  clear(channelId: string): void {
    const channel = this.channels.get(channelId);
    if (channel) {
      channel.items = [];
      channel.start = 0;
    }
  }

  private channel(channelId: string): Channel {
    let channel = this.channels.get(channelId);
    if (!channel) {
      channel = { items: [], start: 0, nextSeq: 1 };
      this.channels.set(channelId, channel);
    }
    return channel;
  }

  private trim(channelId: string, channel: Channel): void {
    const max = this.options.retention?.[channelId] ?? this.options.maxMessagesPerChannel;
    if (max === undefined) return;
    const held = channel.items.length - channel.start;
    if (held > max) channel.start += held - max;
    // Compact once the dropped prefix outweighs what is kept, so trimming stays O(1) amortized.
    if (channel.start > 1024 && channel.start > channel.items.length / 2) {
      channel.items = channel.items.slice(channel.start);
      channel.start = 0;
    }
  }

  private indexAfter(channel: Channel, after: string | number): number {
    let seq: number;
    if (typeof after === 'number') seq = after;
    else {
      const hash = after.lastIndexOf('#');
      seq = hash >= 0 ? Number(after.slice(hash + 1)) : Number.NaN;
      if (!Number.isInteger(seq)) throw new InvalidArgumentError('after', `"${after}" is not a message id of this store`);
    }
    // Binary search: seq is strictly increasing.
    let low = channel.start;
    let high = channel.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((channel.items[mid] as Message).seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
