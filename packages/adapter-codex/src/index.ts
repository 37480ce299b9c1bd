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
export { codexMcpConfig, type CodexMcpConfig, type CodexMcpConfigOptions } from './codex-mcp-config';

// The OpenAI ChatModel (openai SDK) is at '@troupe/adapter-codex/model', so this entry loads no SDK.
