import type { EventBus } from '@troupe/core';
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
  return {
    text: (delta, info) => {
      bus.emit('orchestrator:text-delta', { agentId, text: delta, section: info.section });
      for (const sink of sinks) sink.text?.(delta, info);
    },
    thinking: (delta, info) => {
      bus.emit('orchestrator:text-delta', { agentId, text: delta, section: 'thinking' });
      for (const sink of sinks) sink.thinking?.(delta, info);
    },
    toolCall: (call) => {
      hooks.toolCall?.(call);
      for (const sink of sinks) sink.toolCall?.(call);
    },
    toolResult: (result) => {
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
      hooks.message?.(message);
      for (const sink of sinks) sink.message?.(message);
    },
    step: (step) => {
      hooks.step?.(step);
      for (const sink of sinks) sink.step?.(step);
    },
    state: (state) => {
      for (const sink of sinks) sink.state?.(state);
    },
  };
}
