// OpenAI chat model (official openai SDK, an optional peer dependency): Responses API and Chat Completions.
// `@troupe/adapter-codex/model`, apart from the CLI adapter so that importing the adapter loads no SDK.
export { createOpenAIModel, OpenAIChatModel } from './openai-model';
export {
  OPENAI_DEFAULT_MODEL,
  openAIModelSettingsSchema,
  resolveOpenAIModelSettings,
  type OpenAIModelSettings,
  type ResolvedOpenAIModelSettings,
} from './openai-model-settings';
export { OPENAI_CHAT_PROVIDER } from './openai-chat-response';
export { OPENAI_RESPONSES_PROVIDER } from './openai-responses-response';
