import type {
  LanguageModelV2CallOptions,
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

/**
 * An AI SDK language model that {@link fromAISdk} accepts: the provider
 * specification v2 (AI SDK 5: `@ai-sdk/openai@2`, `@ai-sdk/anthropic@2`…),
 * v3 (AI SDK 6: `@ai-sdk/openai@3`…) or v4 (AI SDK 7: `@ai-sdk/openai@4`…,
 * which needs Node 22). What `openai('gpt-5.5')`,
 * `anthropic('claude-sonnet-5-5')` or `google('gemini-3.8-flash')` return.
 *
 * Described by its shape, not imported from `@ai-sdk/provider`: the one a
 * project has is the one its provider package brings, and each major exports
 * only its own specification and older ones (a declaration naming
 * `LanguageModelV3` broke every AI SDK 5 project's build, one typed with v3
 * call options rejected every v4 model). `doGenerate` and `doStream` take
 * `never` so a model of any of these versions fits: Troupe builds the call
 * options for the model's version itself, and checks `specificationVersion`
 * at run time.
 */
export interface AISdkLanguageModel {
  readonly specificationVersion: 'v2' | 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: unknown;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/**
 * A language model of the provider specification v4 (AI SDK 7). v4 keeps
 * v3's call options, content, usage and stream parts, and adds parts Troupe
 * leaves out (`ping`, custom content) and the `interrupted` finish reason
 * (read as `other`).
 */
export interface AISdkLanguageModelV4 extends AISdkLanguageModel {
  readonly specificationVersion: 'v4';
}

/** @internal The call options both specifications share. */
export type AISdkCallOptions = LanguageModelV2CallOptions & LanguageModelV3CallOptions;

/** @internal One content part of a `doGenerate` result, either specification. */
export type AISdkContent = LanguageModelV2Content | LanguageModelV3Content;

/** @internal One stream part, either specification. */
export type AISdkStreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart;

/** @internal Usage, either specification (v2 flat counts, v3 nested ones). */
export type AISdkUsage = LanguageModelV2Usage | LanguageModelV3Usage;

/** @internal Finish reason, either specification (v2 a string, v3 `{ unified, raw }`). */
export type AISdkFinishReason = LanguageModelV2FinishReason | LanguageModelV3FinishReason;
