import OpenAI from 'openai';
import {
  AbortError,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1Response,
  type ChatModelV1StreamPart,
  type ChatModelV1StreamResult,
} from '@troupe/core';
import { createChatStream } from '@troupe/core/model-runtime';
import { fromChatCompletion, mapChatChunks, OPENAI_CHAT_PROVIDER } from './openai-chat-response';
import { toChatParams } from './openai-chat-request';
import { toOpenAIModelError } from './openai-error';
import { resolveOpenAIModelSettings, type OpenAIModelSettings, type ResolvedOpenAIModelSettings } from './openai-model-settings';
import { toResponsesParams } from './openai-responses-request';
import { fromResponsesResponse, mapResponsesEvents, OPENAI_RESPONSES_PROVIDER } from './openai-responses-response';

/** Key sent to an OpenAI-compatible `baseURL` when none is configured (local servers ignore it). */
const LOCAL_PLACEHOLDER_KEY = 'troupe-no-key';

interface StartedStream<T> {
  events: AsyncIterable<T> & { controller: AbortController };
  requestId: string | undefined;
}

/**
 * A `ChatModel` over OpenAI through the official `openai` SDK (hidden: none
 * of its types are in this API), on the Responses API (`openai.responses`)
 * or Chat Completions (`openai.chat`, also for OpenAI-compatible servers).
 * Text, streaming, function tools, native structured output, usage with
 * cached and reasoning tokens, retries with `retry-after`, cancellation.
 * Errors are `ModelError`s.
 */
export class OpenAIChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ChatModelV1Capabilities;
  private readonly settings: ResolvedOpenAIModelSettings;
  private readonly secrets: string[];
  private clientInstance: OpenAI | undefined;

  constructor(settings: OpenAIModelSettings = {}) {
    this.settings = resolveOpenAIModelSettings(settings);
    this.provider = this.settings.api === 'chat' ? OPENAI_CHAT_PROVIDER : OPENAI_RESPONSES_PROVIDER;
    this.modelId = this.settings.model;
    this.capabilities = { structuredOutput: this.settings.structuredOutput };
    const apiKey = this.settings.apiKey ?? process.env.OPENAI_API_KEY;
    this.secrets = apiKey ? [apiKey] : [];
  }

  /** The SDK client, created on first use (so a model can be built before the key is set). */
  private get client(): OpenAI {
    if (!this.clientInstance) {
      const { baseURL, organization, project, maxRetries, timeoutMs, headers, fetch } = this.settings;
      const apiKey = this.settings.apiKey ?? process.env.OPENAI_API_KEY ?? (baseURL ? LOCAL_PLACEHOLDER_KEY : undefined);
      try {
        this.clientInstance = new OpenAI({
          ...(apiKey !== undefined ? { apiKey } : {}),
          ...(baseURL !== undefined ? { baseURL } : {}),
          ...(organization !== undefined ? { organization } : {}),
          ...(project !== undefined ? { project } : {}),
          maxRetries: maxRetries ?? 2,
          ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
          ...(headers !== undefined ? { defaultHeaders: headers } : {}),
          ...(fetch !== undefined ? { fetch } : {}),
        });
      } catch (error) {
        throw this.toError(error, undefined);
      }
    }
    return this.clientInstance;
  }

  async doGenerate(request: ChatModelV1Request): Promise<ChatModelV1Response> {
    AbortError.throwIfAborted(request.abortSignal, 'The OpenAI request');
    try {
      if (this.settings.api === 'chat') {
        const { data, request_id } = await this.client.chat.completions.create(toChatParams(request, this.settings), this.options(request)).withResponse();
        return fromChatCompletion(data, request_id ?? undefined);
      }
      const { data, request_id } = await this.client.responses.create(toResponsesParams(request, this.settings), this.options(request)).withResponse();
      return fromResponsesResponse(data, request_id ?? undefined);
    } catch (error) {
      throw this.toError(error, request.abortSignal);
    }
  }

  async doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    AbortError.throwIfAborted(request.abortSignal, 'The OpenAI request');
    let source: AsyncIterable<ChatModelV1StreamPart>;
    let controller: AbortController;
    try {
      if (this.settings.api === 'chat') {
        const started = await this.startChat(request);
        controller = started.events.controller;
        source = mapChatChunks(started.events, started.requestId, request.abortSignal);
      } else {
        const started = await this.startResponses(request);
        controller = started.events.controller;
        source = mapResponsesEvents(started.events, started.requestId, request.abortSignal);
      }
    } catch (error) {
      throw this.toError(error, request.abortSignal);
    }
    async function* parts() {
      let done = false;
      try {
        yield* source;
        done = true;
      } finally {
        // Canceled by the consumer, or failed: stop the HTTP response.
        if (!done) controller.abort();
      }
    }
    return { stream: createChatStream(parts(), (error) => this.toError(error, request.abortSignal)) };
  }

  private async startChat(request: ChatModelV1Request): Promise<StartedStream<OpenAI.Chat.Completions.ChatCompletionChunk>> {
    const params = toChatParams(request, this.settings);
    const { data, request_id } = await this.client.chat.completions
      .create(
        { ...params, stream: true, ...(this.settings.streamUsage !== false ? { stream_options: { include_usage: true } } : {}) },
        this.options(request),
      )
      .withResponse();
    return { events: data, requestId: request_id ?? undefined };
  }

  private async startResponses(request: ChatModelV1Request): Promise<StartedStream<OpenAI.Responses.ResponseStreamEvent>> {
    const params = toResponsesParams(request, this.settings);
    const { data, request_id } = await this.client.responses.create({ ...params, stream: true }, this.options(request)).withResponse();
    return { events: data, requestId: request_id ?? undefined };
  }

  private options(request: ChatModelV1Request) {
    return { ...(request.abortSignal ? { signal: request.abortSignal } : {}), ...(request.headers ? { headers: request.headers } : {}) };
  }

  private toError(error: unknown, abortSignal: AbortSignal | undefined) {
    return toOpenAIModelError(error, { provider: this.provider, abortSignal, secrets: this.secrets });
  }
}

/**
 * Creates an OpenAI chat model. `api: 'responses'` (default) uses the
 * Responses API; `api: 'chat'` uses Chat Completions — with a `baseURL`,
 * that is how to reach local OpenAI-compatible servers (Ollama
 * `http://localhost:11434/v1`, llama.cpp `llama-server` `http://localhost:8080/v1`,
 * vLLM `http://localhost:8000/v1`). `baseURL` includes `/v1`.
 *
 * @example
 * ```ts
 * import { createOpenAIModel } from '@troupe/adapter-codex/model';
 * import { generateObject } from '@troupe/core/model-runtime';
 *
 * const model = createOpenAIModel({ model: 'gpt-5.5' }); // key from OPENAI_API_KEY
 * const local = createOpenAIModel({ api: 'chat', baseURL: 'http://localhost:11434/v1', model: 'qwen3', structuredOutput: 'json-object' });
 * const { object } = await generateObject({ model: local, schema: z.object({ ok: z.boolean() }), prompt: 'Is 7 prime?' });
 * ```
 */
export function createOpenAIModel(settings: OpenAIModelSettings = {}): OpenAIChatModel {
  return new OpenAIChatModel(settings);
}
