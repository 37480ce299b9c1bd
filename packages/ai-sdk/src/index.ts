// Any Vercel AI SDK language model (specification v2 or v3) as a Troupe ChatModel.
export { AI_SDK_DEFAULT_MAX_RETRIES, AI_SDK_SPECIFICATION_VERSIONS, AISdkChatModel, fromAISdk, type FromAISdkOptions } from './ai-sdk-model';
export type { AISdkProviderOptions } from './ai-sdk-request';
export type { AISdkLanguageModel } from './ai-sdk-types';
