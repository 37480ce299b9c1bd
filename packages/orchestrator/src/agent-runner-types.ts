import type { AnyTool, ChatMessage, ChatModel, ChatModelV1Response, ChatToolCall, ChatUsage, ToolAgentKind, ToolResult } from '@troupe/core';
import type { AgentFinishRequest, AgentToolControls } from './agent-tool-context';
import type { AgentMarkupIssueReason, AgentMarkupSection } from './agent-markup-parser';
import type { AgentRunnerStopReason } from './agent-runner-stop-reason';

export type { AgentRunnerStopReason } from './agent-runner-stop-reason';

/** Where the runner is. */
export type AgentRunnerState = 'idle' | 'running' | 'paused' | 'completed' | 'failed' | 'aborted';

/** A tool call the runner is about to execute. */
export interface AgentToolCallInfo extends ChatToolCall {
  /** `native`: the provider's tool call; `tag`: parsed from a `<tool_call>` tag in the text. */
  source: 'native' | 'tag';
  /** The model call (1-based) that made it. */
  iteration: number;
}

/** A tool call's outcome. */
export interface AgentToolResultInfo extends AgentToolCallInfo {
  result: ToolResult;
  durationMs: number;
}

/** Malformed markup in the streamed text (reported, never thrown). */
export interface AgentMarkupIssue {
  reason: AgentMarkupIssueReason;
  message: string;
  /** The offending text. */
  raw: string;
  iteration: number;
}

/** One model call and its tool calls. */
export interface AgentRunnerStep {
  /** 1-based. */
  iteration: number;
  /** The full text the model streamed (tags included). */
  rawText: string;
  /** The visible answer of this step: its `<response>` sections, or else its text outside any section. */
  text: string;
  /** Native and tag tool calls, in execution order. */
  toolCalls: AgentToolCallInfo[];
  toolResults: AgentToolResultInfo[];
  usage: ChatUsage;
  stopReason: ChatModelV1Response['stopReason'] | 'end-marker';
}

/**
 * Where a run's output goes as it happens (seed 004's `renderToUI`): a UI, a
 * log, a notebook cell. Every sink is optional. A throwing sink fails the run.
 */
export interface AgentRunnerSinks {
  /** Visible text (outside `<thinking>`, tool calls excluded), piece by piece as it streams. */
  text?(delta: string, info: { iteration: number; section: Exclude<AgentMarkupSection, 'thinking'> }): void;
  /** Text inside `<thinking>`, as it streams. */
  thinking?(delta: string, info: { iteration: number }): void;
  /** A tool call is about to run. */
  toolCall?(call: AgentToolCallInfo): void;
  /** A tool call finished (errors included: they are results). */
  toolResult?(result: AgentToolResultInfo): void;
  /** Malformed markup was found in the text. */
  markupIssue?(issue: AgentMarkupIssue): void;
  /**
   * A message joined the conversation: the model's answer, the results of
   * its tool calls, or messages injected while paused (not the messages the
   * run started from). With the conversation you started from, they are the
   * whole conversation — what the orchestrator stores to resume an agent.
   */
  message?(message: ChatMessage): void;
  /** A step (model call + its tools) ended. */
  step?(step: AgentRunnerStep): void;
  /** The runner paused or resumed between steps. */
  state?(state: AgentRunnerState): void;
}

/** Settings of an {@link AgentRunner}. */
export interface AgentRunnerOptions {
  /** The model to stream from. */
  model: ChatModel;
  /** System prompt (already rendered). */
  system?: string;
  /** Tools the agent may call (unique names). */
  tools?: readonly AnyTool[];
  /** `native` (default): tool schemas go to the provider; `tags`: tools are described in the system prompt. Tags are parsed in both. */
  toolCallFormat?: 'native' | 'tags';
  /** Given to tools as `context.agentKind`. Default `main`. */
  agentKind?: ToolAgentKind;
  /** Given to tools in the agent controls. */
  agentId?: string;
  /** Most model calls. Default 10. */
  maxIterations?: number;
  /** Text that ends the run when the model writes it. */
  endMarker?: string;
  /** Where output goes as it streams. */
  sinks?: AgentRunnerSinks;
  /** Given to tools as `context.workspaceRoot`. */
  workspaceRoot?: string;
  /** Given to tools as `context.data` (the agent controls are added under their own key). */
  toolData?: Readonly<Record<string, unknown>>;
  /** Lets tools fork sub-agents (`fork_agents`); the orchestrator sets it. */
  fork?: AgentToolControls['fork'];
  /** How long an abort waits for running tools to stop (kill their processes) before giving up on them. Default 5 000 ms. */
  abortGraceMs?: number;
  /** Per model call. */
  maxOutputTokens?: number;
  /** Per model call. */
  temperature?: number;
}

/** What a run resolves with. */
export interface AgentRunnerResult {
  /** The `task_finish` result, or the visible answer of the last step. */
  text: string;
  stopReason: AgentRunnerStopReason;
  /** Model calls made. */
  iterations: number;
  /** Usage summed over the model calls. */
  usage: ChatUsage;
  /** The whole conversation (input included). */
  messages: ChatMessage[];
  /** Every step. */
  steps: AgentRunnerStep[];
  /** What `task_finish` (or another tool) reported, when one ended the run. */
  finish?: Required<AgentFinishRequest>;
}

/** Options of {@link AgentRunner.run}. */
export interface AgentRunOptions {
  /** Aborts the run like `abort()`. */
  signal?: AbortSignal;
}
