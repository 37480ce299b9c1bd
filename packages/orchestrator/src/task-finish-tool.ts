import { defineTool, ToolError, type Tool } from '@troupe/core';
import { z } from 'zod';
import { getAgentToolContext } from './agent-tool-context';

/** Name of the sub-agent tool that ends the sub-agent with its result. */
export const TASK_FINISH_TOOL_NAME = 'task_finish';

const parameters = z.object({
  result: z.string().describe('Your final result for the parent agent: what you found or did, complete and self-contained'),
  success: z.boolean().optional().describe('false when you could not do the task (the parent may retry it). Default true'),
});

/** Arguments of `task_finish`. */
export type TaskFinishArgs = z.output<typeof parameters>;

/**
 * `task_finish` (scope `sub`, seed 004's sub-agent completion marker): ends the
 * sub-agent that calls it, after the current step, with `result` as the text
 * its parent receives. `success: false` ends it in `error` so the parent's
 * retry policy applies. Outside an agent runner it fails as a tool error.
 */
export function createTaskFinishTool(): Tool<TaskFinishArgs> {
  return defineTool({
    name: TASK_FINISH_TOOL_NAME,
    description:
      'Finish your task and hand your result to the parent agent. Call it exactly once, when you are done (or cannot go on: success false). Nothing runs after it.',
    parameters,
    scope: 'sub',
    execute({ result, success }, context) {
      const agent = getAgentToolContext(context);
      if (!agent) throw new ToolError('task_finish only works inside an agent runner');
      agent.finish({ result, success: success ?? true });
      return success === false ? 'Task reported as failed; stopping.' : 'Result recorded; stopping.';
    },
  });
}
