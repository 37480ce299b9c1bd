// Gemini ChatModel: the Gemini API through @google/genai (an optional peer dependency), not the CLI.
// `@troupe/adapter-gemini/model`, apart from the CLI adapter so that importing the adapter loads no SDK.
export { createGeminiModel, GeminiChatModel } from './gemini-model';
export {
  GEMINI_PROVIDER,
  GEMINI_MODEL_API_KEY_ENV,
  GEMINI_MODEL_DEFAULT_MAX_RETRIES,
  GEMINI_MODEL_DEFAULT_MAX_RETRY_DELAY_MS,
  GEMINI_MODEL_DEFAULT_MODEL,
  geminiModelSettingsSchema,
  resolveGeminiModelSettings,
  type GeminiModelSettings,
  type ResolvedGeminiModelSettings,
} from './gemini-model-settings';
export { GEMINI_GENERATED_CALL_ID_PREFIX, mapGeminiStopReason } from './gemini-model-response';
