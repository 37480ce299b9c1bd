import type { ChatMessage, ChatResponseFormat, ChatToolCall, ChatToolChoice, ChatToolSpec, ProviderMetadata } from './chat-message';
import type { ChatModelV1StreamPart, ChatStopReason, ChatUsage } from './chat-stream-part';

/**
 * What a model can do natively, so runners pick the right strategy instead
 * of guessing. (A capability a model lacks entirely — e.g. tools — throws
 * one named error when asked for, rather than adding flags here.)
 */
export interface ChatModelV1Capabilities {
  /**
   * How the model honours `responseFormat: { type: 'json', schema }`:
   * - `json-schema`: the provider constrains output to the schema natively;
   * - `json-object`: the provider guarantees JSON but not the schema
   *   (`generateObject` adds the schema to the prompt);
   * - `none`: no JSON mode; `generateObject` prompts for JSON and extracts it.
   */
  structuredOutput: 'json-schema' | 'json-object' | 'none';
}

/** One call to a model: everything the provider needs, nothing provider-specific. */
export interface ChatModelV1Request {
  /** System prompt / instructions. */
  system?: string;
  /** The conversation so far (at least one message). */
  messages: readonly ChatMessage[];
  /** Tools the model may call. */
  tools?: readonly ChatToolSpec[];
  /** Tool choice; default `auto` when tools are given. */
  toolChoice?: ChatToolChoice;
  /** Text (default) or JSON, optionally with a schema. */
  responseFormat?: ChatResponseFormat;
  /** Cap on generated tokens. Providers that require one (Anthropic) use their own default when absent. */
  maxOutputTokens?: number;
  /** Sampling temperature; provider default when absent. */
  temperature?: number;
  /** Cancels the HTTP request (and the stream); the call then rejects with `AbortError`. */
  abortSignal?: AbortSignal;
  /** Extra HTTP headers for this call. */
  headers?: Record<string, string>;
}

/** The answer to {@link ChatModelV1.doGenerate}. */
export interface ChatModelV1Response {
  /** The answer text (all text blocks joined). */
  text: string;
  /** Tool calls, in the order the model made them. */
  toolCalls: ChatToolCall[];
  /** Token usage of this call. */
  usage: ChatUsage;
  /** Why the model stopped (what other SDKs call the finish reason). */
  stopReason: ChatStopReason;
  /** The provider's own stop value. */
  rawStopReason?: string;
  /** Provider response id. */
  responseId?: string;
  /** Model that answered. */
  modelId?: string;
  /** Provider data to keep with the assistant message (request id, signatures…). */
  providerMetadata?: ProviderMetadata;
  /** The provider's raw response body, for debugging. */
  rawResponse?: unknown;
}

/** The answer to {@link ChatModelV1.doStream}. */
export interface ChatModelV1StreamResult {
  /**
   * The response as parts (a web `ReadableStream`, which is also an async
   * iterable on Node 20). See {@link ChatModelV1StreamPart} for the order and
   * the error contract.
   */
  stream: ReadableStream<ChatModelV1StreamPart>;
}

/**
 * The chat model contract, version 1: one LLM behind one vendor API. Modelled
 * on the Vercel AI SDK's `LanguageModel` spec, trimmed to what Troupe's
 * runners need (text, tools, JSON output, usage, cancellation).
 *
 * Only runners (`runToolLoop`, `generateObject`) call the `do*` methods;
 * application code calls the runners.
 *
 * Errors: both methods reject with a `ModelError` (status, retryable,
 * provider message; never an API key) for vendor failures, and with an
 * `AbortError` when `abortSignal` fires. Retries of 429/5xx happen inside
 * (the vendor SDK's `maxRetries`) before rejecting.
 *
 * A breaking change adds `v2/` beside `v1/`.
 *
 * @example
 * ```ts
 * const model: ChatModelV1 = createAnthropicModel({ model: 'claude-sonnet-5-5' });
 * const { text } = await runToolLoop({ model, prompt: 'Say hello' });
 * ```
 */
export type ChatModelV1 = {
  /** Contract version; runners check it. */
  readonly specificationVersion: 'v1';
  /** Provider and API, e.g. `anthropic.messages`, `openai.responses`, `openai.chat`, `google.generative-ai`. */
  readonly provider: string;
  /** Model name sent to the provider, e.g. `claude-sonnet-5-5`. */
  readonly modelId: string;
  /** What the model does natively. */
  readonly capabilities: ChatModelV1Capabilities;
  /** One request → one complete response. */
  doGenerate(request: ChatModelV1Request): PromiseLike<ChatModelV1Response>;
  /**
   * One request → a stream of parts. Resolves once the provider accepted the
   * request (HTTP errors before the first byte reject, after retries).
   */
  doStream(request: ChatModelV1Request): PromiseLike<ChatModelV1StreamResult>;
};

/** The current chat model contract (an alias of {@link ChatModelV1}). */
export type ChatModel = ChatModelV1;
