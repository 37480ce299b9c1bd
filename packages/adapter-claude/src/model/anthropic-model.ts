import Anthropic from '@anthropic-ai/sdk';
import {
  AbortError,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1Response,
  type ChatModelV1StreamResult,
} from '@troupe/core';
import { createChatStream } from '@troupe/core/model-runtime';
import { toAnthropicModelError } from './anthropic-error';
import { resolveAnthropicModelSettings, type AnthropicModelSettings, type ResolvedAnthropicModelSettings } from './anthropic-model-settings';
import { toAnthropicParams } from './anthropic-request';
import { fromAnthropicMessage } from './anthropic-response';
import { mapAnthropicEvents } from './anthropic-stream';

/** Provider id of {@link AnthropicChatModel}. */
export const ANTHROPIC_PROVIDER = 'anthropic.messages';

/**
 * A `ChatModel` over the Anthropic Messages API, through the official
 * `@anthropic-ai/sdk` (which stays hidden: nothing of its types is in this
 * API). Text, streaming, tool use, native structured output
 * (`output_config.format`), usage with cache reads, retries with
 * `retry-after`, cancellation. Errors are `ModelError`s.
 */
export class AnthropicChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  readonly provider = ANTHROPIC_PROVIDER;
  readonly modelId: string;
  readonly capabilities: ChatModelV1Capabilities;
  private readonly settings: ResolvedAnthropicModelSettings;
  private readonly secrets: string[];
  private clientInstance: Anthropic | undefined;

  constructor(settings: AnthropicModelSettings = {}) {
    this.settings = resolveAnthropicModelSettings(settings);
    this.modelId = this.settings.model;
    this.capabilities = { structuredOutput: this.settings.structuredOutput };
    const apiKey = this.settings.apiKey ?? process.env.ANTHROPIC_API_KEY;
    this.secrets = apiKey ? [apiKey] : [];
  }

  /** The SDK client, created on first use (so a model can be built before the key is set). */
  private get client(): Anthropic {
    if (!this.clientInstance) {
      const { apiKey, baseURL, maxRetries, timeoutMs, headers, fetch } = this.settings;
      try {
        this.clientInstance = new Anthropic({
          ...(apiKey !== undefined ? { apiKey } : {}),
          ...(baseURL !== undefined ? { baseURL } : {}),
          maxRetries: maxRetries ?? 2,
          ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
          ...(headers !== undefined ? { defaultHeaders: headers } : {}),
          ...(fetch !== undefined ? { fetch } : {}),
        });
      } catch (error) {
        throw toAnthropicModelError(error, { provider: this.provider, abortSignal: undefined, secrets: this.secrets });
      }
    }
    return this.clientInstance;
  }

  async doGenerate(request: ChatModelV1Request): Promise<ChatModelV1Response> {
    AbortError.throwIfAborted(request.abortSignal, 'The Anthropic request');
    const params = toAnthropicParams(request, this.settings);
    try {
      const { data, request_id } = await this.client.messages
        .create(params, { ...(request.abortSignal ? { signal: request.abortSignal } : {}), ...(request.headers ? { headers: request.headers } : {}) })
        .withResponse();
      return fromAnthropicMessage(data, request_id ?? undefined);
    } catch (error) {
      throw this.toError(error, request);
    }
  }

  async doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    AbortError.throwIfAborted(request.abortSignal, 'The Anthropic request');
    const params = toAnthropicParams(request, this.settings);
    let events: Awaited<ReturnType<typeof this.startStream>>;
    try {
      events = await this.startStream(params, request);
    } catch (error) {
      throw this.toError(error, request);
    }
    const { data: stream, request_id } = events;
    async function* parts() {
      let done = false;
      try {
        yield* mapAnthropicEvents(stream, request_id ?? undefined, request.abortSignal);
        done = true;
      } finally {
        // Canceled by the consumer, or failed: stop the HTTP response.
        if (!done) stream.controller.abort();
      }
    }
    return { stream: createChatStream(parts(), (error) => this.toError(error, request)) };
  }

  private startStream(params: ReturnType<typeof toAnthropicParams>, request: ChatModelV1Request) {
    return this.client.messages
      .create(
        { ...params, stream: true },
        { ...(request.abortSignal ? { signal: request.abortSignal } : {}), ...(request.headers ? { headers: request.headers } : {}) },
      )
      .withResponse();
  }

  private toError(error: unknown, request: ChatModelV1Request) {
    return toAnthropicModelError(error, { provider: this.provider, abortSignal: request.abortSignal, secrets: this.secrets });
  }
}

/**
 * Creates an Anthropic chat model. `baseURL` is the API root without `/v1`.
 *
 * @example
 * ```ts
 * import { createAnthropicModel } from '@troupe/adapter-claude/model';
 * import { runToolLoop } from '@troupe/core/model-runtime';
 *
 * const model = createAnthropicModel({ model: 'claude-sonnet-5-5', maxRetries: 3 }); // key from ANTHROPIC_API_KEY
 * const { text } = await runToolLoop({ model, system: 'Be brief.', prompt: 'Name three primes.' });
 * ```
 */
export function createAnthropicModel(settings: AnthropicModelSettings = {}): AnthropicChatModel {
  return new AnthropicChatModel(settings);
}
