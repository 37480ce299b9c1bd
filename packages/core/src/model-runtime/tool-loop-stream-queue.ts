import { AbortError } from '../errors/abort-error';
import { InvalidStateError } from '../errors/invalid-argument-error';
import type { ChatModelV1StreamPart } from '../model/v1/chat-stream-part';
import type { ToolLoopResult } from './tool-loop-types';
import type { ToolLoopStreamPart } from './tool-loop-stream-part';

/**
 * Parts a {@link streamToolLoop} run may hold for its reader before it waits
 * (its step's tool results may add to them: they are never held back).
 */
export const TOOL_LOOP_STREAM_HIGH_WATER_MARK = 64;

const ROOM = Promise.resolve();

/** @internal Where a streamed run puts its parts, and how it waits for its reader. */
export interface ToolLoopPartSink {
  push(part: ToolLoopStreamPart): void;
  /** Resolves when the reader has room; rejects with `AbortError` once the reader has gone. */
  room(): Promise<void>;
}

type View = 'fullStream' | 'textStream';

/**
 * @internal The buffer between a streamed run and its one reader (the
 * `fullStream` or `textStream` view). Bounded: the run waits on `room()`
 * while the buffer is full and nobody awaits `result` without reading.
 */
export class ToolLoopPartQueue implements ToolLoopPartSink {
  private readonly buffer: ToolLoopStreamPart[] = [];
  private view: View | undefined;
  /** `result` was awaited before any view was read: parts are no longer kept. */
  private drained = false;
  private resultAwaited = false;
  private ended = false;
  private gone: AbortError | undefined;
  private failure: { error: unknown } | undefined;
  private wakeReader: (() => void) | undefined;
  private readonly waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];

  /**
   * @param signal The run's signal: when it aborts, a run waiting for room goes on (to fail with `AbortError`).
   * @param onReaderGone Called once when the reader stops early (aborts the run).
   */
  constructor(
    private readonly signal: AbortSignal,
    private readonly onReaderGone: (reason: AbortError) => void,
  ) {
    signal.addEventListener('abort', () => this.release(true), { once: true });
  }

  push(part: ToolLoopStreamPart): void {
    if (this.drained || this.gone) return;
    this.buffer.push(part);
    this.wake();
  }

  room(): Promise<void> {
    if (this.gone) return Promise.reject(this.gone);
    if (this.buffer.length < TOOL_LOOP_STREAM_HIGH_WATER_MARK || this.drained || this.signal.aborted) return ROOM;
    if (this.resultAwaited && this.view === undefined) {
      this.drain();
      return ROOM;
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The run ended well (its `loop-end` part is in). */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** The run failed: an `error` part, then the reader's next read throws. */
  fail(error: unknown): void {
    this.push({ type: 'error', error });
    this.failure = { error };
    this.ended = true;
    this.wake();
  }

  /** `result`, which lets the run go to its end when it is awaited before any view is read. */
  result(run: Promise<ToolLoopResult>): Promise<ToolLoopResult> {
    const promise = new AwaitedPromise<ToolLoopResult>((resolve, reject) => void run.then(resolve, reject));
    promise.onAwait = () => {
      this.resultAwaited = true;
      if (this.view === undefined && this.waiters.length > 0) this.drain();
    };
    // A run the caller stops by breaking out of a view rejects; that is not an unhandled rejection.
    Promise.prototype.then.call(promise, undefined, () => undefined);
    return promise;
  }

  /** One of the two views; the first one opened is the only one. */
  iterable<T>(view: View, pick: (part: ToolLoopStreamPart) => T | undefined): AsyncIterable<T> {
    return { [Symbol.asyncIterator]: () => this.open(view, pick) };
  }

  private open<T>(view: View, pick: (part: ToolLoopStreamPart) => T | undefined): AsyncIterator<T> {
    if (this.view !== undefined) {
      throw new InvalidStateError(
        `streamToolLoop: ${view} cannot be read: ${this.view} was already read (read one of fullStream and textStream, once; fullStream has the text-delta parts too)`,
      );
    }
    if (this.drained) {
      throw new InvalidStateError(`streamToolLoop: ${view} cannot be read: result was awaited first and the run went on without a reader; read the stream before (or while) awaiting result`);
    }
    this.view = view;
    let errorSeen = false;
    const next = async (): Promise<IteratorResult<T>> => {
      for (;;) {
        if (this.gone) return { done: true, value: undefined };
        const part = this.buffer.shift();
        if (part !== undefined) {
          this.release();
          if (part.type === 'error') {
            if (view === 'textStream') throw part.error;
            errorSeen = true;
          }
          const value = pick(part);
          if (value !== undefined) return { done: false, value };
          continue;
        }
        if (errorSeen && this.failure) throw this.failure.error;
        if (this.ended) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
      }
    };
    const stop = async (): Promise<IteratorResult<T>> => {
      this.leave();
      return { done: true, value: undefined };
    };
    return { next, return: stop };
  }

  /** The reader stopped before the end: the run is aborted and holds nothing more. */
  private leave(): void {
    if (this.gone || this.ended) return;
    this.gone = new AbortError('The tool loop was aborted: its stream reader stopped reading');
    this.buffer.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.gone);
    this.onReaderGone(this.gone);
  }

  private drain(): void {
    this.drained = true;
    this.buffer.length = 0;
    this.release();
  }

  private release(always = false): void {
    if (this.waiters.length === 0 || (!always && this.buffer.length >= TOOL_LOOP_STREAM_HIGH_WATER_MARK && !this.drained)) return;
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }
}

/** A promise that notices being awaited (`await`, `then`, `catch` and `finally` all call `then`). */
class AwaitedPromise<T> extends Promise<T> {
  onAwait: (() => void) | undefined;

  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.onAwait?.();
    return super.then(onFulfilled, onRejected);
  }
}

/**
 * @internal A model stream read no faster than `room()` allows: the loop's
 * reader sets the pace, and the provider's HTTP stream waits with it.
 */
export function pacedChatStream(stream: ReadableStream<ChatModelV1StreamPart>, room: () => Promise<void>): ReadableStream<ChatModelV1StreamPart> {
  const reader = stream.getReader();
  return new ReadableStream<ChatModelV1StreamPart>(
    {
      async pull(controller) {
        try {
          await room();
        } catch (error) {
          await reader.cancel(error).catch(() => undefined);
          throw error;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
