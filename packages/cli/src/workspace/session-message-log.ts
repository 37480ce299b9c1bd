import type { EventBus, Unsubscribe } from '@troupe/core/events';
import { MessageStore, type Message } from '@troupe/core/messages';
import type { Store } from '@troupe/core/store';

/** The part of a Looper snapshot the log needs: its revision, and whether a step is finished. */
export interface LooperPosition {
  revision: number;
  state: 'IDLE' | 'RUNNING';
  runId: string | null;
  iteration: number;
  step: 'coder' | 'review' | 'judge' | null;
}

/** Zero-padded so keys sort in order. */
export function messageKey(ordinal: number): string {
  return String(ordinal).padStart(10, '0');
}

/**
 * `[AUTO]` messages the Looper posts before the state change they belong to
 * (a step starting, JUDGE's decision): they are written only once the
 * checkpoint has moved past that step. If the
 * process dies during the step, the message was never written, and the
 * resumed step posts it again — once.
 */
export function isHeldBack(message: Message, position: LooperPosition | undefined): boolean {
  if (!position || position.state !== 'RUNNING' || message.metadata?.auto !== true) return false;
  const { kind, runId, iteration } = message.metadata;
  if (runId !== position.runId || iteration !== position.iteration) return false;
  return (kind === 'iteration-started' && position.step === 'coder') || ((kind === 'judge-fallback' || kind === 'decision') && position.step === 'judge');
}

interface Pending {
  message: Message;
  /** The Looper's revision when the message was posted: it may describe that state. */
  revision: number;
}

/**
 * Makes a session's channel messages durable, never ahead of the Looper's
 * state. Each message remembers the Looper revision it was posted at, and is
 * written only in (or after) the checkpoint that made that revision durable —
 * {@link SessionMessageLog.writeBatch} runs inside the checkpoint's
 * transaction. So after a crash the log holds no message about a change the
 * checkpoint lost (the resumed step posts it again), and none twice; and a
 * reply such as "Task queued" is never on disk without the queued task.
 */
export class SessionMessageLog {
  /** The live channels, restored from the store. */
  readonly messages: MessageStore;
  private outbox: Pending[] = [];
  private revision: () => number = () => 0;
  private committed: LooperPosition | undefined;
  private readonly keys = new WeakMap<Message, string>();
  private readonly nextOrdinal = new Map<string, number>();
  private unsubscribe: Unsubscribe | undefined;

  private constructor(
    private readonly store: Store,
    private readonly namespace: (channelId: string) => string[],
    messages: MessageStore,
  ) {
    this.messages = messages;
  }

  /**
   * Reads the session's messages back into a new `MessageStore` on `bus`
   * (same order, content and timestamps; listeners subscribed afterwards see
   * no `message:added` for them), then records every new message.
   */
  static async open(store: Store, namespace: (channelId?: string) => string[], bus: EventBus): Promise<SessionMessageLog> {
    const saved = await store.list<Message>(namespace(), { recursive: true });
    let replaying: number | undefined;
    const messages = new MessageStore(bus, { now: () => replaying ?? Date.now() });
    const log = new SessionMessageLog(store, (channelId) => namespace(channelId), messages);
    for (const item of saved) {
      const message = item.value;
      const channelId = item.namespace.at(-1) as string;
      log.nextOrdinal.set(channelId, Math.max(log.nextOrdinal.get(channelId) ?? 1, Number(item.key) + 1));
      replaying = message.timestamp;
      messages.append(channelId, {
        role: message.role,
        content: message.content,
        ...(message.speaker !== undefined ? { speaker: message.speaker } : {}),
        ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
      });
    }
    replaying = undefined;
    log.unsubscribe = bus.on('message:added', (event) => {
      log.outbox.push({ message: event.payload.message, revision: log.revision() });
    });
    return log;
  }

  /**
   * Ties the log to a Looper: `revision` reads its current revision (posted
   * messages wait for a checkpoint at least that new); `committed` is the
   * revision already on disk.
   */
  trackLooper(revision: () => number): void {
    this.revision = revision;
    this.committed ??= { revision: 0, state: 'IDLE', runId: null, iteration: 0, step: null };
  }

  /** Records that a checkpoint is on disk (called after its transaction committed, or when it was loaded). */
  markCommitted(position: LooperPosition): void {
    if (this.committed && this.committed.revision > position.revision) return;
    this.committed = { revision: position.revision, state: position.state, runId: position.runId, iteration: position.iteration, step: position.step };
  }

  /** Messages not written yet. */
  get pendingCount(): number {
    return this.outbox.length;
  }

  /**
   * The messages to write with a checkpoint at `position` (all waiting
   * ones but those {@link isHeldBack} keeps until the step is done). Take it
   * when the state it goes with is captured, write it with
   * {@link SessionMessageLog.writeBatch} in the same transaction, then
   * {@link SessionMessageLog.commitBatch}.
   */
  takeBatch(position?: LooperPosition): readonly Message[] {
    const upTo = position?.revision ?? Number.POSITIVE_INFINITY;
    const batch = this.outbox.filter((entry) => entry.revision <= upTo && !isHeldBack(entry.message, position)).map((entry) => entry.message);
    for (const message of batch) {
      if (this.keys.has(message)) continue;
      const ordinal = this.nextOrdinal.get(message.channelId) ?? 1;
      this.nextOrdinal.set(message.channelId, ordinal + 1);
      this.keys.set(message, messageKey(ordinal));
    }
    return batch;
  }

  /** Writes a batch through `store` (inside a transaction, the writes join it). Idempotent: a message keeps its key. */
  async writeBatch(batch: readonly Message[], store: Store = this.store): Promise<void> {
    for (const message of batch) await store.put(this.namespace(message.channelId), this.keys.get(message) as string, message);
  }

  /** Drops a written batch from the outbox, by identity (another flush may have written part of it too). */
  commitBatch(batch: readonly Message[]): void {
    const written = new Set(batch);
    this.outbox = this.outbox.filter((entry) => !written.has(entry.message));
  }

  /**
   * Writes, in their own transaction, the waiting messages whose Looper
   * revision is already on disk (but the held-back ones). Without a tracked
   * Looper, every waiting message.
   */
  async flush(): Promise<void> {
    const batch = this.takeBatch(this.committed);
    if (batch.length === 0) return;
    await this.store.transaction((tx) => this.writeBatch(batch, tx));
    this.commitBatch(batch);
  }

  /** Stops recording new messages. */
  close(): void {
    this.unsubscribe?.();
  }
}
