// Any Vercel AI SDK language model (specification v2, v3 or v4) as a Troupe ChatModel.
export { AI_SDK_DEFAULT_MAX_RETRIES, AI_SDK_SPECIFICATION_VERSIONS, AISdkChatModel, fromAISdk, type FromAISdkOptions } from './ai-sdk-model';
export type { AISdkProviderOptions } from './ai-sdk-request';
export type { AISdkLanguageModel, AISdkLanguageModelV4 } from './ai-sdk-types';
