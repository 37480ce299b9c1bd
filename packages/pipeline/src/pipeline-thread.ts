import { redactSecrets, serializeError } from '@troupe/core/util';
import {
  type AnyTroupeEvent,
  type EventBus,
  type Namespace,
  type SerializedError,
  type Store,
  type TroupeEventPayloads,
} from '@troupe/core';
import { writeBatchStateUpdate, type BatchStateUpdate } from './batch-state-manager';
import type { PipelineEventPayloads } from './pipeline-events';
import { guardStore } from './pipeline-store-guard';
import { PLANNING_KEY, planningProgressSchema, threadLayout, type ThreadLayout } from './pipeline-store-layout';
import { parseStored } from './pipeline-store-guard';
import type { BatchState, PlanningProgress } from './pipeline-types';

/** Counts of what one run did. */
export interface RunStats {
  plannedBatches: number;
  executedTasks: number;
  failedTasks: number;
  skippedBatches: number;
}

/** Where the store work of an action is aimed, for its error message. */
interface ActionTarget {
  batchIndex?: number;
  taskIndex?: number;
}

type Ids = { channelId: string; threadId: string };
type PayloadWithoutIds<K extends keyof PipelineEventPayloads> = Omit<PipelineEventPayloads[K], keyof Ids>;

/**
 * Everything the planner and executor loops of one run share: the store
 * (reads, locked writes, atomic groups, each failing with a named
 * {@link PipelineError}), the thread's layout, the bus and the run's stats.
 *
 * @internal
 */
export class PipelineThread {
  readonly layout: ThreadLayout;
  readonly ids: Ids;
  readonly stats: RunStats = { plannedBatches: 0, executedTasks: 0, failedTasks: 0, skippedBatches: 0 };

  constructor(
    readonly store: Store,
    readonly namespace: Namespace,
    readonly threadId: string,
    readonly channelId: string,
    readonly bus: EventBus,
    readonly now: () => number,
    readonly signal: AbortSignal,
    /** Values redacted from every stored or emitted error. */
    readonly secrets: readonly string[] = [],
  ) {
    this.layout = threadLayout(namespace, threadId);
    this.ids = { channelId, threadId };
  }

  /** The message of anything thrown, secrets redacted. */
  messageOf(error: unknown): string {
    return redactSecrets(error instanceof Error ? error.message : String(error), this.secrets);
  }

  /** An error as stored and emitted, secrets redacted. */
  serialize(error: unknown): SerializedError {
    return serializeError(error, this.secrets);
  }

  /** Reads (no lock); `action` completes "could not …". */
  read<T>(action: string, work: (store: Store) => Promise<T>, target: ActionTarget = {}): Promise<T> {
    return guardStore(this.store, { threadId: this.threadId, action, signal: this.signal, secrets: this.secrets, ...target }, work);
  }

  /**
   * Writes under the store's write lock. Writes do not take the run's
   * signal: an outcome that was reached is recorded even while the run stops.
   */
  write<T>(action: string, work: (store: Store) => Promise<T>, target: ActionTarget = {}): Promise<T> {
    return guardStore(this.store, { threadId: this.threadId, action, secrets: this.secrets, ...target }, work, { lock: true });
  }

  /** Writes a group atomically (one `transaction`, under the write lock). */
  atomic<T>(action: string, work: (tx: Store) => Promise<T>, target: ActionTarget = {}): Promise<T> {
    return guardStore(this.store, { threadId: this.threadId, action, secrets: this.secrets, ...target }, work, { atomic: true });
  }

  /** Merges into a batch state with `store` (inside a locked write or a transaction). */
  updateState(store: Store, batchIndex: number, updates: BatchStateUpdate, remove: readonly (keyof BatchState)[] = []): Promise<BatchState> {
    return writeBatchStateUpdate(store, this.namespace, this.threadId, batchIndex, updates, undefined, remove);
  }

  /** Planning progress with `store`; a fresh thread starts at batch 0. */
  async readPlanning(store: Store): Promise<PlanningProgress> {
    const item = await store.get(this.layout.base, PLANNING_KEY, { signal: this.signal });
    if (!item) return { nextBatchIndex: 0, totalBatches: null, planningCompleted: false };
    return parseStored(planningProgressSchema, item, { threadId: this.threadId }) as PlanningProgress;
  }

  /** Emits a `pipeline:*` event with the thread's ids (skipped when nobody listens). */
  emit<K extends keyof PipelineEventPayloads>(type: K, payload: PayloadWithoutIds<K>): AnyTroupeEvent | undefined {
    if (this.bus.listenerCount(type) === 0 && this.bus.listenerCount('*') === 0) return undefined;
    return this.bus.emit(type, { ...this.ids, ...payload } as unknown as TroupeEventPayloads[K], { source: 'pipeline' }) as AnyTroupeEvent;
  }

  /** Emits `pipeline:batch-state-changed` for a state. */
  emitState(state: BatchState): void {
    this.emit('pipeline:batch-state-changed', {
      batchIndex: state.batchIndex,
      status: state.status,
      ...(state.taskCount !== undefined ? { taskCount: state.taskCount } : {}),
      ...(state.executedTasks !== undefined ? { executedTasks: state.executedTasks } : {}),
      ...(state.failedTasks !== undefined ? { failedTasks: state.failedTasks } : {}),
    });
  }
}
