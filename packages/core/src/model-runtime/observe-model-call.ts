import type { EventBus } from '../events/event-bus';
import { currentEventScope } from '../events/event-scope';
import { fallbackEventBus } from '../events/fallback-event-bus';
import { TroupeError } from '../errors/troupe-error';
import { serializeError } from '../util/serialize-error';
import type { ChatModelV1, ChatModelV1Request, ChatModelV1Response } from '../model/v1/chat-model-v1';
import type { ChatModelV1StreamPart, ChatUsage } from '../model/v1/chat-stream-part';

let callCounter = 0;

/** What a finished call reports. */
interface CallEnd {
  status: 'completed' | 'failed' | 'canceled';
  usage?: ChatUsage | undefined;
  stopReason?: string | undefined;
  responseId?: string | undefined;
  responseModelId?: string | undefined;
  error?: unknown;
}

/**
 * @internal The bus a model or tool call reports to: the given one, else the
 * bus of the run it is made in, else the fallback bus (the one
 * `instrumentTroupe` registers).
 */
export function busFor(eventBus: EventBus | undefined): EventBus | undefined {
  return eventBus ?? currentEventScope()?.bus ?? fallbackEventBus();
}

/**
 * @internal Emits `model:call-started` now and returns the function that
 * emits its `model:call-completed` (once). Nothing is emitted without a bus.
 * `loopId` names the `runToolLoop` run that makes the call.
 */
export function startModelCallEvents(model: ChatModelV1, request: ChatModelV1Request, stream: boolean, eventBus?: EventBus, loopId?: string): (end: CallEnd) => void {
  const bus = busFor(eventBus);
  if (!bus) return () => {};
  const callId = `call-${++callCounter}`;
  const started = Date.now();
  bus.emit('model:call-started', {
    callId,
    ...(loopId !== undefined ? { loopId } : {}),
    provider: model.provider,
    modelId: model.modelId,
    stream,
    toolCount: request.tools?.length ?? 0,
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    timestamp: started,
  });
  let ended = false;
  return (end) => {
    if (ended) return;
    ended = true;
    const usage = end.usage;
    bus.emit('model:call-completed', {
      callId,
      provider: model.provider,
      modelId: model.modelId,
      status: end.status,
      durationMs: Math.max(0, Date.now() - started),
      ...(end.responseModelId !== undefined ? { responseModelId: end.responseModelId } : {}),
      ...(end.responseId !== undefined ? { responseId: end.responseId } : {}),
      ...(end.stopReason !== undefined ? { stopReason: end.stopReason } : {}),
      ...(usage ? { usage: definedCounts(usage) } : {}),
      ...(end.error !== undefined ? { error: serializeError(end.error) } : {}),
    });
  };
}

/** @internal The end of a call from its response. */
export function completedCall(response: ChatModelV1Response): CallEnd {
  return { status: 'completed', usage: response.usage, stopReason: response.stopReason, responseId: response.responseId, responseModelId: response.modelId };
}

/** @internal The end of a call from its error. */
export function failedCall(error: unknown, signal: AbortSignal | undefined): CallEnd {
  return { status: signal?.aborted || TroupeError.hasCode(error, 'ABORTED') ? 'canceled' : 'failed', error };
}

/** @internal The token counts a usage carries, as they travel in events (no undefined fields). */
export function definedCounts(usage: ChatUsage): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens'] as const) {
    const value = usage[key];
    if (typeof value === 'number') counts[key] = value;
  }
  return counts;
}

/** Options for {@link observeChatModel}. */
export interface ObserveChatModelOptions {
  /** Where `model:*` events go. Default: the bus of the run each call is made in (its event scope). */
  eventBus?: EventBus;
}

/**
 * Wraps a ChatModel so that each `doGenerate` / `doStream` call emits
 * `model:call-started` and `model:call-completed` (with usage, stop reason
 * and duration) — for runners that call a model directly rather than
 * through `runToolLoop` / `generateObject` (which report their calls
 * themselves). The stream is passed through unchanged.
 *
 * @example
 * ```ts
 * const model = observeChatModel(createAnthropicModel({ model: 'claude-sonnet-4-5' }), { eventBus: bus });
 * const { stream } = await model.doStream({ messages: [{ role: 'user', content: 'Hi' }] });
 * ```
 */
export function observeChatModel(model: ChatModelV1, options: ObserveChatModelOptions = {}): ChatModelV1 {
  const observed: ChatModelV1 = {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    async doGenerate(request) {
      const end = startModelCallEvents(model, request, false, options.eventBus);
      try {
        const response = await model.doGenerate(request);
        end(completedCall(response));
        return response;
      } catch (error) {
        end(failedCall(error, request.abortSignal));
        throw error;
      }
    },
    async doStream(request) {
      const end = startModelCallEvents(model, request, true, options.eventBus);
      let result;
      try {
        result = await model.doStream(request);
      } catch (error) {
        end(failedCall(error, request.abortSignal));
        throw error;
      }
      let usage: ChatUsage | undefined;
      const reader = result.stream.getReader();
      const watched = new ReadableStream<ChatModelV1StreamPart>(
        {
          async pull(controller) {
            let next: Awaited<ReturnType<typeof reader.read>>;
            try {
              next = await reader.read();
            } catch (error) {
              end({ ...failedCall(error, request.abortSignal), usage });
              controller.error(error);
              return;
            }
            if (next.done) {
              end({ status: 'failed', usage, error: new Error('the stream ended without a turn-end part') });
              controller.close();
              return;
            }
            const part = next.value;
            if (part.type === 'usage') usage = part.usage;
            else if (part.type === 'turn-end') end({ status: 'completed', usage, stopReason: part.stopReason, responseId: part.responseId, responseModelId: part.modelId });
            else if (part.type === 'error') end({ ...failedCall(part.error, request.abortSignal), usage });
            controller.enqueue(part);
          },
          async cancel(reason) {
            end({ status: 'canceled', usage, error: reason ?? new Error('stream canceled') });
            await reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
      return { stream: watched };
    },
  };
  return Object.freeze(observed);
}
