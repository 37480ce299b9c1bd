// Chat models: the v1 contract, its errors, usage and event contracts; re-exported from the package root.
// The runners built on it (runToolLoop, generateObject, retries) are in `@troupe/core/model-runtime`.
export type { ChatModel, ChatModelV1, ChatModelV1Capabilities, ChatModelV1Request, ChatModelV1Response, ChatModelV1StreamResult } from './v1/chat-model-v1';
export type {
  ChatAssistantMessage,
  ChatMessage,
  ChatResponseFormat,
  ChatToolCall,
  ChatToolChoice,
  ChatToolMessage,
  ChatToolResultPart,
  ChatToolSpec,
  ChatUserMessage,
  JsonSchema,
  ProviderMetadata,
} from './v1/chat-message';
export type { ChatModelV1StreamPart, ChatStopReason, ChatUsage } from './v1/chat-stream-part';
export {
  isRetryableModelFailure,
  ModelError,
  modelErrorKindForStatus,
  ModelOutputError,
  parseRetryAfterMs,
  type ModelErrorCode,
  type ModelErrorDetails,
  type ModelErrorKind,
  type ModelOutputIssue,
} from './model-error';
export { addChatUsage, emptyChatUsage, totalChatTokens } from './chat-usage';
export { modelCallUsageSchema, modelEventSchemas } from './model-event-schemas';
