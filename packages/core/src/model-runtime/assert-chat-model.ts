import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { ChatModelV1 } from '../model/v1/chat-model-v1';

/** The npm package and function that turn an AI SDK `LanguageModel` into a Troupe `ChatModel`. */
const FROM_AI_SDK = 'wrap it with fromAISdk(model) from @troupe/ai-sdk';

function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * What is wrong with `value` as a Troupe `ChatModel` (v1), or `undefined`
 * when it is one. An AI SDK `LanguageModel` (specification `v2`, `v3`…, from
 * `@ai-sdk/openai`, `@ai-sdk/anthropic`…) is recognized, and the answer says
 * to wrap it with `fromAISdk` from `@troupe/ai-sdk`.
 *
 * Every runner that takes a model (`runToolLoop`, `generateObject`, JUDGE,
 * DevHub, the orchestrator, the pipeline) checks it with this when it is
 * given, so a wrong model fails at once, naming the option.
 */
export function describeChatModelProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    return `expected a ChatModel (an object with doGenerate and doStream), got ${value === null ? 'null' : typeof value}`;
  }
  const model = value as Partial<Record<keyof ChatModelV1 | 'supportedUrls' | 'defaultObjectGenerationMode', unknown>>;
  const version = model.specificationVersion;
  if (version !== 'v1' && 'supportedUrls' in model) {
    return (
      `unsupported ChatModel specificationVersion ${quoted(version)}: this is an AI SDK LanguageModel ` +
      `(provider ${quoted(model.provider)}, model ${quoted(model.modelId)}), not a Troupe ChatModel; ${FROM_AI_SDK}`
    );
  }
  if (version === 'v1' && 'defaultObjectGenerationMode' in model) {
    return (
      `this is an AI SDK 4 LanguageModelV1 (provider ${quoted(model.provider)}, model ${quoted(model.modelId)}), not a Troupe ChatModel; ` +
      `use a provider of AI SDK 5 or later and ${FROM_AI_SDK}`
    );
  }
  if (typeof model.doGenerate !== 'function' || typeof model.doStream !== 'function') {
    return 'expected a ChatModel (an object with doGenerate and doStream)';
  }
  if (version !== 'v1') {
    return `unsupported ChatModel specificationVersion ${quoted(version)}; Troupe runners speak "v1" (for an AI SDK LanguageModel, ${FROM_AI_SDK})`;
  }
  return undefined;
}

/**
 * Throws `InvalidArgumentError` naming `name` unless `model` is a Troupe
 * `ChatModel` (v1). See {@link describeChatModelProblem}.
 *
 * @example
 * ```ts
 * assertChatModel(options.model, 'options.model');
 * // Invalid argument "options.model": unsupported ChatModel specificationVersion "v3": this is an AI SDK
 * // LanguageModel (provider "openai.responses", model "gpt-5.5"), not a Troupe ChatModel; wrap it with
 * // fromAISdk(model) from @troupe/ai-sdk
 * ```
 */
export function assertChatModel(model: unknown, name = 'model'): asserts model is ChatModelV1 {
  const problem = describeChatModelProblem(model);
  if (problem !== undefined) throw new InvalidArgumentError(name, problem);
}
