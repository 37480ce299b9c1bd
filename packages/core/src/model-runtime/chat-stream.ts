import { AbortError } from '../errors/abort-error';
import { TroupeError } from '../errors/troupe-error';
import { ModelError } from '../model/model-error';
import { addChatUsage, emptyChatUsage } from '../model/chat-usage';
import type { ChatToolCall, ProviderMetadata } from '../model/v1/chat-message';
import type { ChatModelV1Response } from '../model/v1/chat-model-v1';
import type { ChatModelV1StreamPart } from '../model/v1/chat-stream-part';

/**
 * Builds the `ReadableStream` a provider's `doStream` returns from an async
 * iterable of parts, and enforces the stream's error contract: when the
 * source throws (or yields an `error` part), the consumer first reads one
 * `error` part, then the next read rejects with that same error. Canceling
 * the stream calls the source's `return()` (which should abort the HTTP
 * request).
 *
 * Provider packages write `doStream` as an async generator and wrap it with
 * this, so every provider behaves the same.
 *
 * @param toError Maps whatever the source threw to a `ModelError` or `AbortError`.
 *
 * @example
 * ```ts
 * async doStream(request) {
 *   const events = await client.messages.create({ ...params, stream: true }, { signal: request.abortSignal });
 *   return { stream: createChatStream(mapEvents(events), (error) => toModelError(error, request.abortSignal)) };
 * }
 * ```
 */
export function createChatStream(
  source: AsyncIterable<ChatModelV1StreamPart>,
  toError: (error: unknown) => TroupeError,
): ReadableStream<ChatModelV1StreamPart> {
  let iterator: AsyncIterator<ChatModelV1StreamPart> | undefined;
  let failure: TroupeError | undefined;
  return new ReadableStream<ChatModelV1StreamPart>(
    {
      async pull(controller) {
        if (failure) {
          controller.error(failure);
          return;
        }
        try {
          iterator ??= source[Symbol.asyncIterator]();
          const next = await iterator.next();
          if (next.done) {
            controller.close();
          } else if (next.value.type === 'error') {
            failure = next.value.error;
            controller.enqueue(next.value);
            void iterator.return?.();
          } else {
            controller.enqueue(next.value);
          }
        } catch (error) {
          failure = TroupeError.isInstance(error) ? error : toError(error);
          controller.enqueue({ type: 'error', error: failure });
        }
      },
      async cancel(reason) {
        await iterator?.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Callbacks of {@link collectChatStream}. */
export interface CollectChatStreamOptions {
  /** Called with each part as it arrives (before the error is thrown, for `error`). */
  onPart?: (part: ChatModelV1StreamPart) => void;
  /** Provider name, for the error when the stream ends without `turn-end`. */
  provider?: string;
  /**
   * Cancels the stream when it aborts, even when the provider ignores its own
   * `abortSignal` (a pending read then ends); the collector rejects with
   * `AbortError`.
   */
  signal?: AbortSignal;
  /**
   * Asked after each part (after `onPart`): `true` ends the answer there (an
   * agent's end marker). The stream is canceled and what was read so far is
   * returned, with the `turn-end`'s stop reason if one came, else `'stop'`.
   */
  stopWhen?: () => boolean;
}

/**
 * Reads a `doStream` stream to its end and returns the same shape as
 * `doGenerate`. Throws the stream's error (a `ModelError` or `AbortError`),
 * and a `ModelError` of kind `stream` when the stream ends without a
 * `turn-end` part (unless `stopWhen` ended it first). The one collector of
 * chat stream parts: the tool loop and the orchestrator's agent steps read
 * their answers through it.
 */
export async function collectChatStream(
  stream: ReadableStream<ChatModelV1StreamPart>,
  options: CollectChatStreamOptions = {},
): Promise<ChatModelV1Response> {
  const reader = stream.getReader();
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  let usage = emptyChatUsage();
  let end: Extract<ChatModelV1StreamPart, { type: 'turn-end' }> | undefined;
  let stopped = false;
  const { signal } = options;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    AbortError.throwIfAborted(signal, 'The model stream');
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      options.onPart?.(part);
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          break;
        case 'tool-call': {
          const { type: _type, ...call } = part;
          toolCalls.push(call);
          break;
        }
        case 'usage':
          usage = addChatUsage(usage, part.usage);
          break;
        case 'turn-end':
          end = part;
          break;
        case 'error':
          throw part.error;
      }
      if (options.stopWhen?.()) {
        stopped = true;
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
    AbortError.throwIfAborted(signal, 'The model stream');
  } catch (error) {
    // Stops the provider's request when we give up early (a throwing onPart, an error part).
    await reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
  if (!end && !stopped) throw missingTurnEndError(options.provider);
  const providerMetadata: ProviderMetadata | undefined = end?.providerMetadata;
  return {
    text,
    toolCalls,
    usage,
    stopReason: end?.stopReason ?? 'stop',
    ...(end?.rawStopReason !== undefined ? { rawStopReason: end.rawStopReason } : {}),
    ...(end?.responseId !== undefined ? { responseId: end.responseId } : {}),
    ...(end?.modelId !== undefined ? { modelId: end.modelId } : {}),
    ...(providerMetadata !== undefined ? { providerMetadata } : {}),
  };
}

/** @internal The error of a stream that ended without its `turn-end` part (a cut connection: worth a retry). */
export function missingTurnEndError(provider: string | undefined): ModelError {
  return new ModelError(`${provider ?? 'The model'} stream ended without a turn-end part`, { provider: provider ?? 'unknown', kind: 'stream', retryable: true });
}
