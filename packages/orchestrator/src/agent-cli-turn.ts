import {
  InvalidStateError,
  type AgentStreamPart,
  type AgentUsage,
  type ChatMessage,
  type ChatUsage,
  type MemberAgentConfig,
} from '@troupe/core';
import { outputOrThrow, type AgentOutputSchema } from '@troupe/core/cli-turn';
import type { AgentRecord } from './agent-record';
import type { CliAgentSpec } from './cli-agent-spec';
import type { AgentRunnerResult, AgentRunnerSinks, AgentToolCallInfo } from './agent-runner-types';
import { AGENT_TOOL_CONTEXT_KEY, type AgentFinishRequest, type AgentToolControls } from './agent-tool-context';
import type { ToolManager } from './tool-manager';

/** @internal What a CLI turn needs from the executor. */
export interface CliTurnHost {
  readonly tools: ToolManager;
  /** The agent's sinks (bus events first, then the application's). */
  readonly sinks: AgentRunnerSinks;
  /** Forks sub-agents of this agent (the same path `fork_agents` takes for a model agent). */
  readonly fork: NonNullable<AgentToolControls['fork']>;
  /** Where the CLI runs: its member's `workDir`, else the agent's workspace root; inside its workspace when it is isolated. */
  readonly workDir: string | undefined;
}

/** @internal What one CLI turn ended with (the executor's turn outcome). */
export type CliTurnOutcome = Pick<AgentRunnerResult, 'text' | 'stopReason' | 'iterations' | 'usage' | 'messages' | 'finish'> & {
  /** The validated object of a typed turn (`cli.schema`). */
  object?: unknown;
};

/**
 * @internal Runs one turn of a CLI agent: starts its member (its tools
 * served with the agent's controls), sends its task, streams the turn's
 * parts to the sinks, and stops the member when the turn ends. Terminating
 * the agent (its controller) stops the member, which cancels the turn.
 */
export async function runCliTurn(host: CliTurnHost, record: AgentRecord, messages: readonly ChatMessage[]): Promise<CliTurnOutcome> {
  const cli = record.strategy.cli as CliAgentSpec;
  const { manager } = cli;
  const roleId = cli.roleId ?? record.id;
  if (manager.isRunning(roleId)) {
    throw new InvalidStateError(`Role "${roleId}" is already started in the AgentManager; CLI agent "${record.id}" needs a role of its own (stop it, or set cli.roleId)`);
  }
  let finish: AgentFinishRequest | undefined;
  const controls: AgentToolControls = {
    agentId: record.id,
    agentKind: record.kind,
    finish: (request) => {
      finish = { result: request.result, success: request.success ?? true };
    },
    fork: host.fork,
  };
  const member = cliMember(cli.member ?? {}, record, host, controls);
  const signal = record.controller.signal;
  const stop = () => void manager.stopAgent(roleId).catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    signal.throwIfAborted();
    await manager.ensureAgentStarted(roleId, cli.configId, member);
    signal.throwIfAborted();
    // The strategy's limit is the turn's: the manager's default applies only when the strategy sets none.
    const { timeoutMs } = record.strategy;
    const options = { signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    // With a schema, a typed turn: its result carries the object, or rejects with a StructuredOutputError.
    const turn = manager.send<AgentOutputSchema>(roleId, cliMessage(record, messages), cli.schema === undefined ? options : { ...options, schema: cli.schema });
    const calls = new Map<string, { call: AgentToolCallInfo; startedAt: number }>();
    for await (const part of turn) streamPart(host.sinks, part, calls);
    const result = await turn.result;
    signal.throwIfAborted();
    outputOrThrow(result.outcome);
    if (result.agentError) throw result.agentError;
    record.iterations++;
    const answer: ChatMessage = { role: 'assistant', content: result.text };
    host.sinks.message?.(answer);
    const done = finish as AgentFinishRequest | undefined;
    return {
      text: done ? done.result : result.text,
      stopReason: done ? 'task-finish' : 'turn-end',
      iterations: 1,
      usage: chatUsage(result.usage),
      messages: [...messages, answer],
      ...(done ? { finish: { result: done.result, success: done.success ?? true } } : {}),
      ...(cli.schema !== undefined ? { object: result.object } : {}),
    };
  } finally {
    signal.removeEventListener('abort', stop);
    await manager.stopAgent(roleId).catch(() => undefined);
  }
}

/** The member config the CLI runs with: the user's, plus the agent's tools and controls. */
function cliMember(base: MemberAgentConfig, record: AgentRecord, host: CliTurnHost, controls: AgentToolControls): MemberAgentConfig {
  const served = host.tools.getToolsForCliAgent(record.kind, record.strategy.tools);
  const own = new Set((base.tools ?? []).map((tool) => tool.name));
  const { workDir } = host;
  return {
    ...base,
    ...(base.systemInstruction === undefined && record.systemPrompt.trim() !== '' ? { systemInstruction: record.systemPrompt } : {}),
    ...(workDir !== undefined ? { workDir } : {}),
    tools: [...(base.tools ?? []), ...served.filter((tool) => !own.has(tool.name))],
    toolData: { ...base.toolData, ...record.context.data, [AGENT_TOOL_CONTEXT_KEY]: controls },
  };
}

/** What the CLI is sent: the agent's task, or else its last user message. */
function cliMessage(record: AgentRecord, messages: readonly ChatMessage[]): string {
  if (record.context.task !== undefined) return record.context.task;
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return last?.role === 'user' ? last.content : '';
}

/** Sends one stream part of the CLI to the sinks (as a model agent's text and tool calls are). */
function streamPart(sinks: AgentRunnerSinks, part: AgentStreamPart, calls: Map<string, { call: AgentToolCallInfo; startedAt: number }>): void {
  if (part.type === 'text-delta') sinks.text?.(part.text, { iteration: 1, section: 'none' });
  else if (part.type === 'tool-call') {
    const call: AgentToolCallInfo = { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, source: 'native', iteration: 1 };
    calls.set(part.toolCallId, { call, startedAt: performance.now() });
    sinks.toolCall?.(call);
  } else if (part.type === 'tool-result') {
    const started = calls.get(part.toolCallId);
    const call = started?.call ?? { toolCallId: part.toolCallId, toolName: part.toolName ?? 'unknown', input: undefined, source: 'native' as const, iteration: 1 };
    const content = typeof part.output === 'string' ? part.output : JSON.stringify(part.output) ?? '';
    sinks.toolResult?.({
      ...call,
      result: part.isError ? { success: false, content, error: content } : { success: true, content },
      durationMs: started ? performance.now() - started.startedAt : 0,
    });
  }
}

function chatUsage(usage: AgentUsage | undefined): ChatUsage {
  return {
    inputTokens: usage?.inputTokens,
    outputTokens: usage?.outputTokens,
    ...(usage?.cachedInputTokens !== undefined ? { cachedInputTokens: usage.cachedInputTokens } : {}),
    ...(usage?.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
  };
}
