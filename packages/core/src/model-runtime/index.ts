// `@troupe/core/model-runtime`: the runners built on ChatModel v1 — the tool loop, structured output,
// retries of model calls, stream helpers and model-call observation.
export { assertChatModel, describeChatModelProblem } from './assert-chat-model';
export { collectChatStream, createChatStream, type CollectChatStreamOptions } from './chat-stream';
export { chatTextStream } from './chat-text-stream';
export { parseJsonText, type ParseJsonTextResult } from './parse-json-text';
export { runToolLoop } from './run-tool-loop';
export { streamToolLoop } from './stream-tool-loop';
export { TOOL_LOOP_STREAM_HIGH_WATER_MARK } from './tool-loop-stream-queue';
export type { ToolLoopStream, ToolLoopStreamPart } from './tool-loop-stream-part';
export { DEFAULT_MODEL_RETRY_MAX_DELAY_MS, modelRetryBackoffMs, retryModelCall, type RetryModelCallOptions } from './retry-model-call';
export type {
  CanUseToolContext,
  RunToolLoopOptions,
  ToolLoopResult,
  ToolLoopStep,
  ToolLoopToolResult,
  ToolLoopUsage,
  ToolPermission,
} from './tool-loop-types';
export { generateObject, type GenerateObjectOptions, type GenerateObjectResult } from './generate-object';
export { observeChatModel, type ObserveChatModelOptions } from './observe-model-call';
