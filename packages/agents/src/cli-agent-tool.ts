import { defineTool, ToolError, type Tool } from '@troupe/core';
import { z } from 'zod';
import type { CliAgent, CliAgentToolInput, CliAgentToolOptions } from './cli-agent-types';

const toolInput = z.object({
  prompt: z.string().min(1).describe('The task or question for the agent, with everything it needs to know: it sees nothing else.'),
});

/**
 * The tool of `agent.asTool()`: one turn of the agent per call. A turn that does not complete (failed, canceled,
 * timed out, could not start) is a `ToolError` with its reason, which the caller reads as an error result.
 */
export function cliAgentTool(agent: CliAgent, options: CliAgentToolOptions = {}): Tool<CliAgentToolInput> {
  const name = options.name ?? agent.name;
  return defineTool({
    name,
    description: options.description ?? agent.description,
    parameters: toolInput,
    execute: async ({ prompt }, { abortSignal }) => {
      const result = await agent.run(prompt, { signal: abortSignal }).catch((error: unknown) => {
        throw new ToolError(`The agent "${agent.name}" could not start: ${error instanceof Error ? error.message : String(error)}`, { toolName: name, cause: error });
      });
      if (result.status !== 'completed') {
        throw new ToolError(`The agent "${agent.name}" did not complete its turn (${result.status}): ${result.error?.message ?? 'no reason given'}`, { toolName: name, cause: result.error });
      }
      return result.text;
    },
  });
}
