// Codex CLI adapter
export { CODEX_ADAPTER_ID, CODEX_COMPLETION_TYPES, createCodexAdapter, type CodexAdapter } from './codex-adapter';
export {
  codexAdapterPlugin,
  codexSettingsFromDefinition,
  createCodexAdapterPlugin,
  registerCodexAdapter,
  type CodexAdapterPlugin,
} from './codex-adapter-plugin';
export {
  codexAdapterSettingsSchema,
  DEFAULT_CODEX_BASE_ARGS,
  DEFAULT_CODEX_MAX_RETRIES,
  DEFAULT_CODEX_MODEL,
  resolveCodexAdapterSettings,
  type CodexAdapterSettings,
  type ResolvedCodexAdapterSettings,
} from './codex-adapter-settings';
export {
  buildCodexCommandLine,
  CODEX_API_KEY_ENV,
  CODEX_PROVIDER_ID,
  type CodexCommandLine,
  type CodexCommandLineInput,
} from './codex-command-line';
export {
  CODEX_COMMAND_TOOL,
  CODEX_FILE_CHANGE_TOOL,
  createCodexLineParser,
  parseCodexHttpStatus,
  parseCodexResponse,
  type CodexLineParser,
  type CodexLineParserOptions,
} from './codex-line-parser';
export { toTomlString } from './codex-toml';

// OpenAI chat model (official openai SDK): Responses API and Chat Completions.
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
