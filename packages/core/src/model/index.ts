// Chat models: the v1 contract, errors and the runners built on it.
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
export { assertChatModel, describeChatModelProblem } from './assert-chat-model';
export { collectChatStream, createChatStream, type CollectChatStreamOptions } from './chat-stream';
export { addChatUsage, emptyChatUsage } from './chat-usage';
export { parseJsonText, type ParseJsonTextResult } from './parse-json-text';
export { runToolLoop } from './run-tool-loop';
export { DEFAULT_MODEL_RETRY_MAX_DELAY_MS, modelRetryBackoffMs, retryModelCall, type RetryModelCallOptions } from './retry-model-call';
export type {
  CanUseToolContext,
  RunToolLoopOptions,
  ToolLoopResult,
  ToolLoopStep,
  ToolLoopToolResult,
  ToolPermission,
} from './tool-loop-types';
export { generateObject, type GenerateObjectOptions, type GenerateObjectResult } from './generate-object';
export { observeChatModel, type ObserveChatModelOptions } from './observe-model-call';
export { modelCallUsageSchema, modelEventSchemas } from './model-event-schemas';
