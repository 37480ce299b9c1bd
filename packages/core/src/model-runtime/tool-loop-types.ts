import type { EventBus } from '../events/event-bus';
import type { AnyTool, ToolAgentKind, ToolResult } from '../tools/define-tool';
import type { ChatMessage, ChatToolCall, ChatToolChoice } from '../model/v1/chat-message';
import type { ChatModelV1, ChatModelV1Response } from '../model/v1/chat-model-v1';
import type { ChatStopReason, ChatUsage } from '../model/v1/chat-stream-part';

/**
 * The answer of a {@link RunToolLoopOptions.canUseTool} hook: run the call
 * (optionally with changed arguments) or refuse it (the model sees `message`
 * as an error result and can adapt).
 */
export type ToolPermission = { behavior: 'allow'; input?: unknown } | { behavior: 'deny'; message?: string };

/** What a {@link RunToolLoopOptions.canUseTool} hook is told besides the call. */
export interface CanUseToolContext {
  /** The step the call was made in (1-based). */
  stepNumber: number;
  /** The conversation so far, the assistant message with the call included. */
  messages: readonly ChatMessage[];
  /** The run's signal. */
  abortSignal: AbortSignal;
}

/**
 * Token usage of a whole run: the counts of {@link ChatUsage} summed over
 * its model calls, and their total.
 */
export interface ToolLoopUsage extends ChatUsage {
  /**
   * `inputTokens + outputTokens` (cached input and reasoning are already
   * inside them) — the figure budgets and bills count; `undefined` when the
   * provider left either count out.
   */
  totalTokens: number | undefined;
}

/** One executed (or refused) tool call of a step. */
export interface ToolLoopToolResult {
  toolCallId: string;
  toolName: string;
  /** The arguments the tool ran with (after a `canUseTool` rewrite). */
  input: unknown;
  result: ToolResult;
  /** True when `canUseTool` refused the call. */
  denied: boolean;
}

/** One model call and the tool calls it made. */
export interface ToolLoopStep {
  /** 1-based. */
  stepNumber: number;
  /** The text of this model call. */
  text: string;
  toolCalls: ChatToolCall[];
  /** Results, in the order of `toolCalls`. */
  toolResults: ToolLoopToolResult[];
  usage: ChatUsage;
  stopReason: ChatStopReason;
  /** The model's full response for this step. */
  response: ChatModelV1Response;
}

/** Options of {@link runToolLoop}. */
export interface RunToolLoopOptions {
  /** The model to call. */
  model: ChatModelV1;
  /** System prompt. */
  system?: string;
  /** The conversation so far. At least one of `messages` and `prompt` is needed. */
  messages?: readonly ChatMessage[];
  /** A user message appended after `messages`. */
  prompt?: string;
  /** Tools the model may call (names must be unique). */
  tools?: readonly AnyTool[];
  /** Tool choice for every step. `required` keeps calling tools until `maxSteps`. */
  toolChoice?: ChatToolChoice;
  /** Most model calls in the run. Default 10. Tools of the last step still run; the model does not see their results. */
  maxSteps?: number;
  /** Cancels the model call in flight and the tools (they get it as `abortSignal`); the run rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Per model call. */
  maxOutputTokens?: number;
  temperature?: number;
  headers?: Record<string, string>;
  /** Given to tools as `context.workspaceRoot` (the workspace tools use it when built without a root). */
  workspaceRoot?: string;
  /** Given to tools as `context.agentKind`. */
  agentKind?: ToolAgentKind;
  /** Given to tools as `context.data`. */
  toolData?: Readonly<Record<string, unknown>>;
  /**
   * Approval hook, asked before each tool call (one at a time, in call
   * order; approved calls then run in parallel). `true`/`false` or a
   * {@link ToolPermission}. A refusal becomes an error result the model
   * sees; a throwing hook rejects the run.
   */
  canUseTool?: (call: ChatToolCall, context: CanUseToolContext) => boolean | ToolPermission | PromiseLike<boolean | ToolPermission>;
  /** Called after each step, tools included (awaited). */
  onStep?: (step: ToolLoopStep) => void | PromiseLike<void>;
  /** Streams the answer: called with each text piece as it arrives (turns on `stream`). */
  onTextDelta?: (text: string, info: { stepNumber: number }) => void;
  /**
   * Use `doStream` instead of `doGenerate`. Default: true when `onTextDelta`
   * is set. Streamed, each tool call starts as soon as the provider delivers
   * it, while the rest of the answer streams (its tools then get a signal
   * that also aborts if the answer fails).
   */
  stream?: boolean;
  /**
   * Receives `tool-loop:*`, `model:call-*` and `tool:call-*` events for
   * tracing and the usage ledger. Default: the bus of the run this loop runs
   * in (its event scope), else the fallback bus (`registerFallbackEventBus`;
   * `instrumentTroupe` registers the bus it instruments), if any.
   */
  eventBus?: EventBus;
}

/** What {@link runToolLoop} returns. */
export interface ToolLoopResult {
  /** Text of the last step (the final answer). */
  text: string;
  /** Every step, in order. */
  steps: ToolLoopStep[];
  /** Usage summed over the steps, with their total. */
  usage: ToolLoopUsage;
  /** Stop reason of the last step (`tool-calls` when the step cap cut the run). */
  stopReason: ChatStopReason;
  /** True when the run stopped at `maxSteps` while the model still wanted tools. */
  stepLimitReached: boolean;
  /** The whole conversation: the input messages, the prompt and every new message. */
  messages: ChatMessage[];
  /** Only the messages this run added (assistant turns and tool results). */
  responseMessages: ChatMessage[];
}
