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
export { claudeCodeMcpArgs, type ClaudeCodeMcpArgs } from './claude-code-mcp-config';
export { CLAUDE_DEFER_UNSUPPORTED, claudeDisallowedTools, claudeToolKind, claudeToolTarget } from './claude-code-permissions';

// The Anthropic ChatModel (@anthropic-ai/sdk) is at '@troupe/adapter-claude/model', so this entry loads no SDK.
