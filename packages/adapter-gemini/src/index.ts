// Gemini CLI agent adapter (`gemini -p … -o stream-json`).
export { createGeminiCliAdapter, geminiCliCapabilities, type GeminiCliAdapter } from './gemini-cli-adapter';
export {
  createGeminiCliAdapterPlugin,
  geminiCliAdapterPlugin,
  geminiCliSettingsFromDefinition,
  registerGeminiCliAdapter,
} from './gemini-cli-plugin';
export {
  GEMINI_CLI_DEFAULT_MAX_ATTEMPTS,
  GEMINI_CLI_DEFAULT_MODEL,
  GEMINI_CLI_INSTALL_HINT,
  geminiCliSettingsSchema,
  resolveGeminiCliSettings,
  type GeminiCliSettings,
  type ResolvedGeminiCliSettings,
} from './gemini-cli-settings';
export { geminiCliSettingsPatch, prepareGeminiCliHome, type GeminiCliHomeOptions } from './gemini-cli-home';
export { geminiCliMcpServers } from './gemini-cli-mcp-settings';
export { GeminiCliStreamParser, parseGeminiCliResponse } from './gemini-cli-stream-parser';
export { parseGeminiApiError, type GeminiApiErrorInfo } from './gemini-cli-api-error';
export { describeGeminiExitCode, httpStatusFromGeminiExitCode } from './gemini-cli-exit-code';

// Gemini CLI in ACP mode (`gemini --acp`) is the `@troupe/adapter-gemini/acp` subpath (it needs @troupe/adapter-acp).

// The Gemini ChatModel (@google/genai) is at '@troupe/adapter-gemini/model', so this entry loads no SDK.
