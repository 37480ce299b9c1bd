import { GoogleGenAI, type GenerateContentParameters } from '@google/genai';
import {
  AbortError,
  emptyChatUsage,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1Response,
  type ChatModelV1StreamPart,
  type ChatModelV1StreamResult,
  type ChatToolCall,
  type TroupeError,
} from '@troupe/core';
import { createChatStream } from '@troupe/core/model-runtime';
import { toGeminiModelError } from './gemini-model-error';
import { toGeminiRequest, type GeminiRequestBody } from './gemini-model-request';
import { GeminiResponseReader } from './gemini-model-response';
import { withGeminiRetries, type GeminiAttemptFetch } from './gemini-model-retry';
import {
  GEMINI_PROVIDER,
  resolveGeminiApiKey,
  resolveGeminiModelSettings,
  type GeminiModelSettings,
  type ResolvedGeminiModelSettings,
} from './gemini-model-settings';

/**
 * A `ChatModel` over the Gemini Developer API through Google's
 * `@google/genai` 2.x SDK (hidden: none of its types are in this API) —
 * `models.generateContent` and `models.generateContentStream`. Text,
 * streaming, function tools (JSON Schema via `parametersJsonSchema`), native
 * structured output (`responseJsonSchema`), usage with cached and thinking
 * tokens, Gemini 3 thought signatures, retries with `retry-after`,
 * cancellation. Errors are `ModelError`s.
 */
export class GeminiChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  readonly provider = GEMINI_PROVIDER;
  readonly modelId: string;
  readonly capabilities: ChatModelV1Capabilities;
  /** Retries after a retryable failure (see {@link GeminiModelSettings.maxRetries}). */
  readonly maxRetries: number;
  private readonly settings: ResolvedGeminiModelSettings;
  private clientInstance: { client: GoogleGenAI; apiKey: string } | undefined;

  constructor(settings: GeminiModelSettings = {}) {
    this.settings = resolveGeminiModelSettings(settings);
    this.modelId = this.settings.model;
    this.maxRetries = this.settings.maxRetries;
    this.capabilities = { structuredOutput: this.settings.structuredOutput };
  }

  /** The SDK client, created on first use (so a model can be built before the key is set). */
  private get client(): { client: GoogleGenAI; apiKey: string } {
    if (!this.clientInstance) {
      const { baseURL, apiVersion, timeoutMs, headers } = this.settings;
      const apiKey = resolveGeminiApiKey(this.settings.apiKey);
      const client = new GoogleGenAI({
        vertexai: false,
        apiKey,
        ...(apiVersion !== undefined ? { apiVersion } : {}),
        httpOptions: {
          ...(baseURL !== undefined ? { baseUrl: baseURL } : {}),
          ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
          headers,
        },
      });
      this.clientInstance = { client, apiKey };
    }
    return this.clientInstance;
  }

  async doGenerate(request: ChatModelV1Request): Promise<ChatModelV1Response> {
    AbortError.throwIfAborted(request?.abortSignal, 'The Gemini request');
    const body = toGeminiRequest(request, this.settings);
    const { client } = this.client;
    const response = await this.withRetries(request, (capture) =>
      client.models.generateContent(this.parameters(body, request, request.abortSignal, capture)),
    );
    const reader = new GeminiResponseReader(this.provider);
    const parts = reader.read(response);
    const { usage, turnEnd } = reader.end();
    const toolCalls: ChatToolCall[] = [];
    let text = '';
    for (const part of parts) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'tool-call') {
        const { type: _type, ...call } = part;
        toolCalls.push(call);
      }
    }
    const { sdkHttpResponse: _http, ...rawResponse } = response;
    return {
      text,
      toolCalls,
      usage: usage ?? emptyChatUsage(),
      stopReason: turnEnd.stopReason,
      ...(turnEnd.rawStopReason !== undefined ? { rawStopReason: turnEnd.rawStopReason } : {}),
      ...(turnEnd.responseId !== undefined ? { responseId: turnEnd.responseId } : {}),
      ...(turnEnd.modelId !== undefined ? { modelId: turnEnd.modelId } : {}),
      ...(turnEnd.providerMetadata !== undefined ? { providerMetadata: turnEnd.providerMetadata } : {}),
      rawResponse,
    };
  }

  async doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    AbortError.throwIfAborted(request?.abortSignal, 'The Gemini request');
    const body = toGeminiRequest(request, this.settings);
    const { client } = this.client;
    // Our own controller stops the HTTP response when the consumer cancels or the stream fails.
    const controller = new AbortController();
    const signal = request.abortSignal ? AbortSignal.any([request.abortSignal, controller.signal]) : controller.signal;
    // The first chunk is awaited here, so HTTP errors reject doStream (after retries) instead of erroring the stream.
    const { iterator, first } = await this.withRetries(request, async (capture) => {
      const chunks = await client.models.generateContentStream(this.parameters(body, request, signal, capture));
      const started = chunks[Symbol.asyncIterator]();
      try {
        return { iterator: started, first: await started.next() };
      } catch (error) {
        void started.return?.(undefined)?.catch(() => undefined);
        throw error;
      }
    });
    const reader = new GeminiResponseReader(this.provider);
    async function* parts(): AsyncGenerator<ChatModelV1StreamPart> {
      let done = false;
      try {
        for (let next = first; !next.done; next = await iterator.next()) yield* reader.read(next.value);
        const { usage, turnEnd } = reader.end();
        done = true;
        if (usage) yield { type: 'usage', usage };
        yield turnEnd;
      } finally {
        // Canceled by the consumer, or failed: stop the HTTP response.
        if (!done) {
          controller.abort();
          void iterator.return?.(undefined)?.catch(() => undefined);
        }
      }
    }
    return { stream: createChatStream(parts(), (error) => this.toError(error, request.abortSignal, undefined)) };
  }

  private withRetries<T>(request: ChatModelV1Request, attempt: (capture: GeminiAttemptFetch | undefined) => Promise<T>): Promise<T> {
    return withGeminiRetries(attempt, this.settings.fetch, {
      maxRetries: this.settings.maxRetries,
      maxRetryDelayMs: this.settings.maxRetryDelayMs,
      abortSignal: request.abortSignal,
      toError: (error, headers) => this.toError(error, request.abortSignal, headers),
    });
  }

  private parameters(
    body: GeminiRequestBody,
    request: ChatModelV1Request,
    signal: AbortSignal | undefined,
    capture: GeminiAttemptFetch | undefined,
  ): GenerateContentParameters {
    return {
      model: this.settings.model,
      contents: body.contents,
      config: {
        ...body.config,
        ...(signal !== undefined ? { abortSignal: signal } : {}),
        // No fetch unless the user gave one: the SDK's own keeps long generations alive (no undici timeouts).
        httpOptions: {
          ...(capture !== undefined ? { fetch: capture.fetch } : {}),
          ...(request.headers !== undefined ? { headers: request.headers } : {}),
        },
      },
    };
  }

  private toError(error: unknown, abortSignal: AbortSignal | undefined, headers: Headers | undefined): TroupeError {
    return toGeminiModelError(error, {
      provider: this.provider,
      apiKey: this.clientInstance?.apiKey ?? this.settings.apiKey ?? '',
      abortSignal,
      responseHeaders: headers,
    });
  }
}

/**
 * Creates a Gemini chat model (the Gemini Developer API through
 * `@google/genai` 2.x, the maintained successor of the end-of-life
 * `@google/generative-ai`). `baseURL` is the API root (the SDK appends
 * `/v1beta/models/…`). Throws `ConfigError` for bad settings; a missing API
 * key (`apiKey`, `GEMINI_API_KEY`, `GOOGLE_API_KEY`) is reported by the
 * first call.
 *
 * @example
 * ```ts
 * import { createGeminiModel } from '@troupe/adapter-gemini/model';
 * import { defineTool } from '@troupe/core';
 * import { runToolLoop } from '@troupe/core/model-runtime';
 * import { z } from 'zod';
 *
 * const model = createGeminiModel({ model: 'gemini-3.8-flash', maxRetries: 3 }); // key from GEMINI_API_KEY
 * const getWeather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 * const { text } = await runToolLoop({ model, prompt: 'Weather in Paris?', tools: [getWeather] });
 * ```
 */
export function createGeminiModel(settings: GeminiModelSettings = {}): GeminiChatModel {
  return new GeminiChatModel(settings);
}
