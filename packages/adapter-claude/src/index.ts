// Claude Code CLI adapter.
export {
  createClaudeCodeAdapter,
  type ClaudeCodeAdapter,
} from './claude-code-adapter';
export {
  claudeCodeAdapterPlugin,
  claudeCodeSettingsFromDefinition,
  createClaudeCodeAdapterPlugin,
  registerClaudeCodeAdapter,
  type ClaudeCodeAdapterPlugin,
} from './claude-code-plugin';
export {
  CLAUDE_CODE_DEFAULT_BASE_ARGS,
  CLAUDE_CODE_INSTALL_HINT,
  claudeCodeSettingsSchema,
  resolveClaudeCodeSettings,
  type ClaudeCodeSettings,
  type ResolvedClaudeCodeSettings,
} from './claude-code-settings';
export { ClaudeCodeStreamParser, parseClaudeCodeResponse } from './claude-code-stream-parser';

// Anthropic Messages API chat model (official @anthropic-ai/sdk).
export { AnthropicChatModel, ANTHROPIC_PROVIDER, createAnthropicModel } from './anthropic-model';
export {
  ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
  ANTHROPIC_DEFAULT_MODEL,
  anthropicModelSettingsSchema,
  resolveAnthropicModelSettings,
  type AnthropicModelSettings,
  type ResolvedAnthropicModelSettings,
} from './anthropic-model-settings';
