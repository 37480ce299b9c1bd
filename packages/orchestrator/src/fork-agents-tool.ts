import { defineTool, ToolError, type Tool } from '@troupe/core';
import { z } from 'zod';
import { getAgentToolContext } from './agent-tool-context';
import { formatForkResult } from './agent-fork-format';

/** Name of the main-agent tool that forks sub-agents. */
export const FORK_AGENTS_TOOL_NAME = 'fork_agents';

/** Arguments schema of `fork_agents`, for tools that stand in for it (e.g. one that runs the sub-agents on other machines). */
export const forkAgentsParameters = z.object({
  tasks: z
    .array(
      z.object({
        task: z.string().min(1).describe('What the sub-agent must do: a complete, self-contained instruction'),
        strategy: z.string().optional().describe('Type of a registered sub-agent strategy; default: the general sub-agent'),
        schema: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('A JSON Schema the sub-agent must answer with (CLI sub-agent strategies only); you get the validated object back'),
      }),
    )
    .min(1)
    .describe('One entry per sub-agent; they run in parallel'),
});

/** Arguments of `fork_agents`. */
export type ForkAgentsArgs = z.output<typeof forkAgentsParameters>;

/**
 * `fork_agents` (scope `main`): the main agent hands independent tasks to
 * sub-agents that run in parallel (within the orchestrator's concurrency
 * limit) while it waits; their results, failures included, come back as this
 * tool's result. Outside an orchestrator it fails as a tool error.
 */
export function createForkAgentsTool(): Tool<ForkAgentsArgs> {
  return defineTool({
    name: FORK_AGENTS_TOOL_NAME,
    description:
      'Split work into independent tasks run by sub-agents in parallel. You wait until all of them finish, then get each result (or failure), and, when they work in isolated workspaces, each one\'s branch and diff.',
    parameters: forkAgentsParameters,
    scope: 'main',
    async execute({ tasks }, context) {
      const agent = getAgentToolContext(context);
      if (!agent?.fork) throw new ToolError('fork_agents needs an AgentOrchestrator: this agent cannot fork');
      const result = await agent.fork(
        tasks.map(({ task, strategy, schema }) => ({ task, ...(strategy !== undefined ? { strategy } : {}), ...(schema !== undefined ? { schema } : {}) })),
        { signal: context.abortSignal },
      );
      return formatForkResult(result);
    },
  });
}
