import { query } from '@troupe/agents';
import { AbortError } from '@troupe/core/errors';
import type { EvalMode } from './eval-mode';

/**
 * The `single` mode: one turn of the agent with the task's prompt in the workspace, within the task's time limit.
 * Its tokens and cost go to the trial's ledger.
 */
export const singleMode: EvalMode = {
  name: 'single',
  async run(task, workspace, agent, signal, { trial, ledger }) {
    const run = query({
      ...agent.options,
      agent: typeof agent.agent === 'function' ? agent.agent(trial) : agent.agent,
      prompt: task.prompt,
      cwd: workspace.path,
      timeoutMs: task.timeLimitMs,
      signal,
    });
    const result = await run.result;
    if (result.status === 'canceled' && signal.aborted) throw new AbortError('The eval trial was aborted', { cause: result.error });
    if (result.usage !== undefined || result.costUsd !== undefined) {
      ledger.record({
        kind: 'agent-turn',
        source: result.agent,
        // The model the CLI says it ran (its `session` part), else the one asked for: unpriced otherwise.
        model: result.parts.find((part): part is Extract<typeof part, { type: 'session' }> => part.type === 'session' && part.model !== undefined)?.model ?? agent.options?.model,
        agentId: agent.id,
        inputTokens: result.usage?.inputTokens,
        outputTokens: result.usage?.outputTokens,
        cachedInputTokens: result.usage?.cachedInputTokens,
        reasoningTokens: result.usage?.reasoningTokens,
        reportedCostUsd: result.costUsd,
      });
    }
    return { turns: 1, agentStatus: result.status, ...(result.error ? { message: result.error.message } : {}) };
  },
};
