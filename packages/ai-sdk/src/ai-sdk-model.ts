import {
  AbortError,
  ConfigError,
  InvalidArgumentError,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1Response,
  type ChatModelV1StreamResult,
  type TroupeError,
} from '@troupe/core';
import { createChatStream, retryModelCall } from '@troupe/core/model-runtime';
import { secretValuesFromEnv } from '@troupe/core/util';
import { z } from 'zod';
import { toAISdkModelError } from './ai-sdk-error';
import { toAISdkCallOptions, type AISdkProviderOptions } from './ai-sdk-request';
import { toChatResponse, toChatStreamParts, type AISdkGenerateResult } from './ai-sdk-response';
import type { AISdkLanguageModel, AISdkStreamPart } from './ai-sdk-types';

/** Default retries after a retryable failure: the AI SDK's own default (its providers do not retry; `generateText` does). */
export const AI_SDK_DEFAULT_MAX_RETRIES = 2;

/** The AI SDK specifications {@link fromAISdk} speaks (AI SDK 5, 6 and 7). */
export const AI_SDK_SPECIFICATION_VERSIONS: readonly string[] = Object.freeze(['v2', 'v3', 'v4']);

/** Options of {@link fromAISdk}. */
export interface FromAISdkOptions {
  /**
   * Retries after a retryable failure (429, 408, 409, 5xx, a dropped
   * connection) before the answer starts, waiting what the provider asked
   * (`retry-after-ms`, `retry-after`), else 0.5 s, 1 s, 2 s… An AI SDK model
   * does not retry by itself (the `ai` package's `generateText` does), and
   * Troupe runners expect the model to. Default
   * {@link AI_SDK_DEFAULT_MAX_RETRIES}; 0 turns retries off.
   */
  maxRetries?: number;
  /** Longest wait accepted between attempts, in ms; a longer `retry-after` fails at once with `retryAfterMs`. Default 60 000. */
  maxRetryDelayMs?: number;
  /**
   * How `generateObject` asks for JSON. Default `json-schema`: the schema goes
   * in the AI SDK's `responseFormat`, and the provider enforces it natively
   * (OpenAI, Google) or through its own emulation (Anthropic). Use
   * `json-object` or `none` for a provider that ignores `responseFormat`:
   * the schema then also goes in the system prompt.
   */
  structuredOutput?: ChatModelV1Capabilities['structuredOutput'];
  /** Provider options sent with every call, the AI SDK's `providerOptions` (`{ openai: { reasoningEffort: 'low' } }`). */
  providerOptions?: AISdkProviderOptions;
  /** Values to redact from errors besides the secret-looking environment variables (an API key given in code). */
  secrets?: readonly string[];
}

const optionsSchema = z.strictObject({
  maxRetries: z.number().int('maxRetries must be an integer').min(0, 'maxRetries must be 0 or more').max(10, 'maxRetries is capped at 10').optional(),
  maxRetryDelayMs: z.number().min(0, 'maxRetryDelayMs must be 0 or more').optional(),
  structuredOutput: z.enum(['json-schema', 'json-object', 'none']).optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  secrets: z.array(z.string()).optional(),
});

function describeVersion(model: { specificationVersion?: unknown }): string {
  const version = model.specificationVersion;
  return typeof version === 'string' ? JSON.stringify(version) : String(version);
}

/**
 * An AI SDK language model as a Troupe `ChatModel` (v1). Made by
 * {@link fromAISdk}; the AI SDK model stays in {@link AISdkChatModel.languageModel}.
 */
export class AISdkChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  /** The AI SDK model's provider id (`openai.responses`, `anthropic.messages`, `google.generative-ai`…). */
  readonly provider: string;
  /** The AI SDK model's id (`gpt-5.5`, `claude-sonnet-5-5`…). */
  readonly modelId: string;
  readonly capabilities: ChatModelV1Capabilities;
  /** Retries after a retryable failure (see {@link FromAISdkOptions.maxRetries}). */
  readonly maxRetries: number;
  /** The wrapped AI SDK model. */
  readonly languageModel: AISdkLanguageModel;
  private readonly maxRetryDelayMs: number | undefined;
  private readonly providerOptions: AISdkProviderOptions | undefined;
  private readonly secrets: readonly string[];

  constructor(languageModel: AISdkLanguageModel, options: FromAISdkOptions = {}) {
    if (languageModel === null || typeof languageModel !== 'object') {
      throw new InvalidArgumentError('model', 'expected an AI SDK LanguageModel, e.g. openai("gpt-5.5") from @ai-sdk/openai');
    }
    const candidate = languageModel as Partial<Record<'doGenerate' | 'doStream', unknown>> & { specificationVersion?: unknown };
    if ((candidate.specificationVersion as unknown) === 'v1' && 'capabilities' in candidate) {
      throw new InvalidArgumentError('model', 'this is already a Troupe ChatModel (specificationVersion "v1"); use it as it is, without fromAISdk');
    }
    if (!AI_SDK_SPECIFICATION_VERSIONS.includes(candidate.specificationVersion as string)) {
      throw new InvalidArgumentError(
        'model',
        `unsupported AI SDK specificationVersion ${describeVersion(candidate)}; fromAISdk speaks ${AI_SDK_SPECIFICATION_VERSIONS.map((v) => `"${v}"`).join(', ')} (the providers of AI SDK 5, 6 and 7)`,
      );
    }
    if (typeof candidate.doGenerate !== 'function' || typeof candidate.doStream !== 'function') {
      throw new InvalidArgumentError('model', 'expected an AI SDK LanguageModel with doGenerate and doStream');
    }
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) throw ConfigError.fromZod('fromAISdk options', parsed.error);
    this.languageModel = languageModel;
    this.provider = String(languageModel.provider);
    this.modelId = String(languageModel.modelId);
    this.maxRetries = parsed.data.maxRetries ?? AI_SDK_DEFAULT_MAX_RETRIES;
    this.maxRetryDelayMs = parsed.data.maxRetryDelayMs;
    this.capabilities = { structuredOutput: parsed.data.structuredOutput ?? 'json-schema' };
    this.providerOptions = parsed.data.providerOptions as AISdkProviderOptions | undefined;
    this.secrets = Object.freeze([...(parsed.data.secrets ?? [])]);
  }

  async doGenerate(request: ChatModelV1Request): Promise<ChatModelV1Response> {
    AbortError.throwIfAborted(request?.abortSignal, `The ${this.provider} request`);
    const options = toAISdkCallOptions(request, request.abortSignal, this.providerOptions);
    // `never`: the options are built for the model's own specification version (see AISdkLanguageModel).
    const result = await this.withRetries(request, () => this.languageModel.doGenerate(options as never) as PromiseLike<AISdkGenerateResult>);
    return toChatResponse(result);
  }

  async doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    AbortError.throwIfAborted(request?.abortSignal, `The ${this.provider} request`);
    // Our own controller stops the HTTP response when the consumer cancels the stream.
    const controller = new AbortController();
    const signal = request.abortSignal ? AbortSignal.any([request.abortSignal, controller.signal]) : controller.signal;
    const options = toAISdkCallOptions(request, signal, this.providerOptions);
    const { stream } = await this.withRetries(request, () => this.languageModel.doStream(options as never) as PromiseLike<{ stream: ReadableStream<AISdkStreamPart> }>);
    async function* parts(): AsyncGenerator<AISdkStreamPart> {
      const reader = stream.getReader();
      let done = false;
      try {
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          yield next.value;
        }
        done = true;
      } finally {
        if (!done) {
          controller.abort();
          void reader.cancel().catch(() => undefined);
        }
        reader.releaseLock();
      }
    }
    return { stream: createChatStream(toChatStreamParts(parts()), (error) => this.toError(error, request.abortSignal)) };
  }

  private withRetries<T>(request: ChatModelV1Request, call: () => PromiseLike<T>): Promise<T> {
    return retryModelCall(async () => call(), {
      maxRetries: this.maxRetries,
      ...(this.maxRetryDelayMs !== undefined ? { maxRetryDelayMs: this.maxRetryDelayMs } : {}),
      abortSignal: request.abortSignal,
      toError: (error) => this.toError(error, request.abortSignal),
    });
  }

  private toError(error: unknown, abortSignal: AbortSignal | undefined): TroupeError {
    return toAISdkModelError(error, { provider: this.provider, abortSignal, secrets: [...this.secrets, ...secretValuesFromEnv(process.env)] });
  }
}

/**
 * Turns an AI SDK language model — any provider of the Vercel AI SDK,
 * specification v2 (AI SDK 5), v3 (AI SDK 6) or v4 (AI SDK 7) — into a Troupe `ChatModel`,
 * for `runToolLoop`, `generateObject`, JUDGE, DevHub, the orchestrator and
 * the pipeline. Text and streaming, tool calls (JSON Schema tools, tool
 * choice), structured output (`responseFormat` JSON with a schema), usage
 * (cached and reasoning tokens), finish reasons, abort, and retries of
 * 429/5xx honouring `retry-after`. Errors are `ModelError`s (status,
 * retryable, the provider's message and error type), cancellation an
 * `AbortError`.
 *
 * @throws InvalidArgumentError when `model` is not an AI SDK v2/v3/v4 language model.
 * @throws ConfigError naming each bad option.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * import { fromAISdk } from '@troupe/ai-sdk';
 * import { runToolLoop } from '@troupe/core/model-runtime';
 * import { createWorkspaceTools } from '@troupe/workspace-tools';
 *
 * const model = fromAISdk(openai('gpt-5.5'));
 * const { text } = await runToolLoop({
 *   model,
 *   prompt: 'What does package.json say the test command is?',
 *   tools: createWorkspaceTools({ root: process.cwd(), shellExec: false }),
 * });
 * ```
 */
export function fromAISdk(model: AISdkLanguageModel, options: FromAISdkOptions = {}): AISdkChatModel {
  return new AISdkChatModel(model, options);
}
