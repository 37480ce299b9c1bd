import type { TroupeError } from '../../errors/troupe-error';
import type { ChatToolCall, ProviderMetadata } from './chat-message';

/**
 * Token usage of one model call. Fields a provider does not report are
 * `undefined`, never guessed.
 */
export interface ChatUsage {
  /** Prompt tokens, cached ones included. */
  inputTokens: number | undefined;
  /** Generated tokens, reasoning included. */
  outputTokens: number | undefined;
  /** Prompt tokens read from the provider's cache (a subset of `inputTokens`). */
  cachedInputTokens?: number | undefined;
  /** Output tokens spent on hidden reasoning (a subset of `outputTokens`). */
  reasoningTokens?: number | undefined;
}

/**
 * Why the model stopped (what other SDKs call the "finish reason"; our naming
 * rule keeps `finish` out of names):
 * - `stop`: it ended its answer (or hit a stop sequence);
 * - `tool-calls`: it wants tool results before going on;
 * - `length`: `maxOutputTokens` (or the context window) cut it off;
 * - `content-filter`: the provider refused or filtered it;
 * - `error`: the provider reported a failed response;
 * - `other`: anything else (the raw value is in `rawStopReason`).
 */
export type ChatStopReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

/**
 * One piece of a streamed model response (`doStream`). Order: any number of
 * `text-delta` and `tool-call` parts, then one `usage` part (when the provider
 * reports usage), then exactly one `turn-end` — or, on failure, one `error`
 * part after which the stream errors with the same error.
 *
 * Names follow our rule (noun-verb, `start`/`delta`/`end`, never `finish`):
 * the part other SDKs call `finish` is `turn-end` here.
 */
export type ChatModelV1StreamPart =
  /** A piece of the answer text. */
  | { type: 'text-delta'; text: string }
  /** A complete tool call, its arguments parsed (emitted once its arguments are complete). */
  | ({ type: 'tool-call' } & ChatToolCall)
  /** Token usage of the whole response. */
  | { type: 'usage'; usage: ChatUsage }
  /** The response ended normally. */
  | {
      type: 'turn-end';
      stopReason: ChatStopReason;
      /** The provider's own value (`end_turn`, `tool_use`, `STOP`, `incomplete:max_output_tokens`…). */
      rawStopReason?: string;
      /** Provider's response id, when it has one. */
      responseId?: string;
      /** Model that actually answered, when the provider says. */
      modelId?: string;
      /** Provider data to keep with the assistant message. */
      providerMetadata?: ProviderMetadata;
    }
  /**
   * The response failed after streaming began (a provider error event, a
   * dropped connection, an abort). It is always the last part: the next read
   * rejects with the same error. `error` is a `ModelError`, or an
   * `AbortError` when the request's `abortSignal` fired.
   */
  | { type: 'error'; error: TroupeError };
