import { hostSecretRedactor, type SecretStreamRedactor } from '@troupe/core/util';
import { type EventBus } from '@troupe/core';
import type { AgentRunnerSinks } from './agent-runner-types';

/**
 * @internal The sinks an orchestrated runner gets: each output goes to the
 * bus as an `orchestrator:*` event, then to the orchestrator's own `hooks`
 * (session persistence), then to the application's sinks.
 */
export function orchestratorSinks(
  bus: EventBus,
  agentId: string,
  sinks: readonly AgentRunnerSinks[],
  hooks: Pick<AgentRunnerSinks, 'message' | 'toolCall' | 'toolResult' | 'step'>,
): AgentRunnerSinks {
  type TextInfo = Parameters<NonNullable<AgentRunnerSinks['text']>>[1];
  type ThinkingInfo = Parameters<NonNullable<AgentRunnerSinks['thinking']>>[1];
  const emitText = (delta: string, info: TextInfo): void => {
    if (delta === '') return;
    bus.emit('orchestrator:text-delta', { agentId, text: delta, section: info.section });
    for (const sink of sinks) sink.text?.(delta, info);
  };
  const emitThinking = (delta: string, info: ThinkingInfo): void => {
    if (delta === '') return;
    bus.emit('orchestrator:text-delta', { agentId, text: delta, section: 'thinking' });
    for (const sink of sinks) sink.thinking?.(delta, info);
  };
  // A secret the model repeats is hidden also when it is cut over several deltas: each kind of text is one redacted
  // stream, whose held-back tail is released when its section changes, before a tool call, a tool result or a message, at the end of the step and when the run's state changes (a failed step included).
  const redactor = hostSecretRedactor();
  const text: { stream: SecretStreamRedactor; info: TextInfo | undefined } = { stream: redactor.stream(), info: undefined };
  const thinking: { stream: SecretStreamRedactor; info: ThinkingInfo | undefined } = { stream: redactor.stream(), info: undefined };
  const flush = (): void => {
    if (text.info !== undefined) emitText(text.stream.end(), text.info);
    if (thinking.info !== undefined) emitThinking(thinking.stream.end(), thinking.info);
    text.info = undefined;
    thinking.info = undefined;
  };
  return {
    text: (delta, info) => {
      if (text.info !== undefined && (text.info.section !== info.section || text.info.iteration !== info.iteration)) emitText(text.stream.end(), text.info);
      text.info = info;
      emitText(text.stream.write(delta), info);
    },
    thinking: (delta, info) => {
      if (thinking.info !== undefined && thinking.info.iteration !== info.iteration) emitThinking(thinking.stream.end(), thinking.info);
      thinking.info = info;
      emitThinking(thinking.stream.write(delta), info);
    },
    toolCall: (call) => {
      flush();
      hooks.toolCall?.(call);
      for (const sink of sinks) sink.toolCall?.(call);
    },
    toolResult: (result) => {
      flush();
      hooks.toolResult?.(result);
      bus.emit('orchestrator:tool-executed', {
        agentId,
        toolCallId: result.toolCallId,
        toolName: result.toolName,
        source: result.source,
        success: result.result.success,
        durationMs: result.durationMs,
      });
      for (const sink of sinks) sink.toolResult?.(result);
    },
    markupIssue: (issue) => {
      bus.emit('orchestrator:markup-malformed', { agentId, ...issue });
      for (const sink of sinks) sink.markupIssue?.(issue);
    },
    message: (message) => {
      flush();
      hooks.message?.(message);
      for (const sink of sinks) sink.message?.(message);
    },
    step: (step) => {
      flush();
      hooks.step?.(step);
      for (const sink of sinks) sink.step?.(step);
    },
    state: (state) => {
      flush();
      for (const sink of sinks) sink.state?.(state);
    },
  };
}
