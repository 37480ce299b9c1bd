import { serializeError } from '@troupe/core/util';
import { type AnyTroupeEvent, type EventBus, type MessageStore, type TroupeEventPayloads } from '@troupe/core';
import type { JudgeDecision } from '../judge/judge-decision';
import { LooperCheckpointWriter } from './looper-checkpoint-writer';
import { finishRun, type LooperRunOutcome, type LooperSnapshot } from './looper-state';
import type { LooperHistoryEntry, LooperStateStore } from './looper-state-store';
import type { ReviewStepResult } from './looper-step-result';
import type { LooperTexts } from './looper-texts';

/** What a {@link LooperJournal} needs. @internal */
export interface LooperJournalOptions {
  looperId: string;
  /** Channel of the `[AUTO]` messages. */
  channelId: string;
  messages: MessageStore;
  bus: EventBus | undefined;
  texts: LooperTexts;
  stateStore: LooperStateStore;
  now: () => number;
  /** The state it starts from. */
  snapshot: LooperSnapshot;
}

/**
 * @internal The Looper's live state and everything that makes a change to it
 * known: the `looper:*` events, the `[AUTO]` messages in its channel and the
 * checkpoints (see {@link LooperCheckpointWriter}). The command API, the
 * scheduler and the steps all change the state through it, so each change is
 * published the same way.
 */
export class LooperJournal {
  readonly looperId: string;
  readonly channelId: string;
  readonly texts: LooperTexts;
  readonly now: () => number;
  private readonly bus: EventBus | undefined;
  private readonly messages: MessageStore;
  private readonly checkpoints: LooperCheckpointWriter;
  private current: LooperSnapshot;

  constructor(options: LooperJournalOptions) {
    this.looperId = options.looperId;
    this.channelId = options.channelId;
    this.texts = options.texts;
    this.now = options.now;
    this.bus = options.bus;
    this.messages = options.messages;
    this.current = options.snapshot;
    this.checkpoints = new LooperCheckpointWriter(options.stateStore, (error) => this.emit('looper:checkpoint-failed', { error: serializeError(error) }));
  }

  /** The current state (live: read it again after any await). */
  get snapshot(): LooperSnapshot {
    return this.current;
  }

  /** Takes a state loaded from a checkpoint as the current one, without writing it back. */
  restore(snapshot: LooperSnapshot): void {
    this.current = snapshot;
  }

  /** Resolves once every checkpoint written so far is saved. */
  flush(): Promise<void> {
    return this.checkpoints.flush();
  }

  /** Replaces the state, emits `looper:state-changed` when it changed, and queues a checkpoint. */
  update(next: LooperSnapshot, entry: Pick<LooperHistoryEntry, 'kind' | 'data'>, reason?: string): void {
    const previous = this.current;
    this.current = next;
    if (previous.state !== next.state) {
      this.emit('looper:state-changed', {
        from: previous.state,
        to: next.state,
        runId: next.runId ?? previous.runId,
        task: next.currentTask ?? previous.currentTask,
        ...(reason !== undefined ? { reason } : {}),
      });
    }
    this.checkpoints.write(next, { ...entry, revision: next.revision, runId: next.runId ?? previous.runId, iteration: next.iteration, at: next.updatedAt });
  }

  /** Ends the run with `outcome`: the state goes IDLE, and the end is posted and emitted. */
  finish(outcome: LooperRunOutcome, reason: string, decision?: JudgeDecision, source?: 'model' | 'rules'): void {
    const s = this.current;
    const runId = s.runId ?? 'unknown';
    this.update(
      finishRun(s, { outcome, reason, ...(decision ? { decision } : {}), ...(source ? { source } : {}), now: this.now() }),
      { kind: 'run-finished', data: { outcome, reason } },
      reason,
    );
    this.postAuto('run-finished', this.texts.auto.finished(outcome, s.iteration, reason));
    this.emit('looper:run-finished', { runId, outcome, reason, iterations: s.iteration });
  }

  /** Posts an `[AUTO]` progress message to the channel. */
  postAuto(kind: string, content: string): void {
    const s = this.current;
    this.messages.append(this.channelId, {
      role: 'system',
      speaker: this.looperId,
      content,
      metadata: { auto: true, kind, looperId: this.looperId, runId: s.runId, iteration: s.iteration },
    });
  }

  /** Emits `looper:step-completed` for a Coder or Review result. */
  emitStep(step: 'coder' | 'review', result: ReviewStepResult): void {
    this.emit('looper:step-completed', {
      runId: this.current.runId ?? 'unknown',
      iteration: this.current.iteration,
      step,
      status: result.status,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      ...(result.report ? { health: result.report.health } : {}),
      ...(result.error ? { error: result.error } : {}),
    });
  }

  /** Emits a `looper:*` event with this Looper's id and channel. */
  emit<T extends keyof TroupeEventPayloads & `looper:${string}`>(type: T, payload: Omit<TroupeEventPayloads[T], 'looperId' | 'channelId'>): AnyTroupeEvent | undefined {
    return this.bus?.emit(type, { looperId: this.looperId, channelId: this.channelId, ...payload } as TroupeEventPayloads[T], { source: this.looperId }) as AnyTroupeEvent | undefined;
  }
}
