// Anthropic Messages API chat model (official @anthropic-ai/sdk, an optional peer dependency):
// `@troupe/adapter-claude/model`, apart from the CLI adapter so that importing the adapter loads no SDK.
export { AnthropicChatModel, ANTHROPIC_PROVIDER, createAnthropicModel } from './anthropic-model';
export {
  ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
  ANTHROPIC_DEFAULT_MODEL,
  anthropicModelSettingsSchema,
  resolveAnthropicModelSettings,
  type AnthropicModelSettings,
  type ResolvedAnthropicModelSettings,
} from './anthropic-model-settings';
