import type { EventBus } from '@troupe/core';
import type { AgentRunnerSinks } from './agent-runner-types';

/**
 * @internal The sinks an orchestrated runner gets: each output goes to the
 * bus as an `orchestrator:*` event, then to the application's sinks, and
 * `onStep` keeps the agent's iteration count current.
 */
export function orchestratorSinks(
  bus: EventBus,
  agentId: string,
  sinks: readonly AgentRunnerSinks[],
  onStep: (iteration: number) => void,
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
      for (const sink of sinks) sink.toolCall?.(call);
    },
    toolResult: (result) => {
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
    step: (step) => {
      onStep(step.iteration);
      for (const sink of sinks) sink.step?.(step);
    },
    state: (state) => {
      for (const sink of sinks) sink.state?.(state);
    },
  };
}
