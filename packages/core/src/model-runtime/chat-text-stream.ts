import { missingTurnEndError } from './chat-stream';
import { hostSecretRedactor } from '../util/redact-secrets';
import type { ChatModelV1StreamResult } from '../model/v1/chat-model-v1';
import type { ChatModelV1StreamPart } from '../model/v1/chat-stream-part';

/**
 * The text of one model call as an async iterable — the `textStream` of a
 * single `doStream`, for code that talks to a `ChatModel` without the tool
 * loop (`streamToolLoop` gives the same over a whole run). Like the tool
 * loop, it hides this process's secrets that the model repeats, also when
 * they are cut over several deltas. It throws the stream's error (a
 * `ModelError` or `AbortError`), and a `ModelError` of kind `stream` when the
 * stream ends without its `turn-end`. Leaving the `for await` early cancels
 * the stream, which stops the provider's request.
 *
 * The parts themselves need no helper: the `stream` of `doStream` is an
 * async iterable of {@link ChatModelV1StreamPart}s on Node 20.
 *
 * @param source `model.doStream(request)`, or its `stream`.
 * @param options.provider Names the model in the error of a stream cut short.
 *
 * @example
 * ```ts
 * import { chatTextStream } from '@troupe/core/model-runtime';
 *
 * const request = { messages: [{ role: 'user' as const, content: 'Write a haiku' }], abortSignal: AbortSignal.timeout(60_000) };
 * for await (const text of chatTextStream(model.doStream(request))) process.stdout.write(text);
 * ```
 */
export async function* chatTextStream(
  source: ReadableStream<ChatModelV1StreamPart> | PromiseLike<ChatModelV1StreamResult>,
  options: { provider?: string } = {},
): AsyncGenerator<string, void, undefined> {
  const stream = 'getReader' in source ? source : (await source).stream;
  const reader = stream.getReader();
  const redaction = hostSecretRedactor().stream();
  let ended = false;
  let read = false;
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === 'text-delta') {
        const text = redaction.write(part.text);
        if (text !== '') yield text;
      } else if (part.type === 'turn-end') ended = true;
      else if (part.type === 'error') throw part.error;
    }
    read = true;
    const tail = redaction.end();
    if (tail !== '') yield tail;
    if (!ended) throw missingTurnEndError(options.provider);
  } finally {
    // Stops the provider's request when the reader leaves early or the stream failed.
    if (!read) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
