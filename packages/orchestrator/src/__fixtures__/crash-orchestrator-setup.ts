// The agents of the crash test, shared by the process that is killed and the test that resumes its session.
import { defineTool, type ChatModel } from '@troupe/core';
import { z } from 'zod';
import { ToolManager, type AgentStrategy } from '../index';

/** The three sub-agent tasks: `alpha` ends at once, `beta` is killed after one tool step, `gamma` waits for a slot, then is killed at its first model call. */
export const TASKS = ['alpha', 'beta', 'gamma'] as const;

/** Tools of the test's agents: `echo`, and the orchestrator's own `task_finish`/`fork_agents`. */
export function crashTestTools(): ToolManager {
  const tools = new ToolManager({ workspaceTools: false });
  tools.registerTool(defineTool({ name: 'echo', description: 'Echoes its text', parameters: z.object({ text: z.string() }), execute: ({ text }) => `echo: ${text}` }));
  return tools;
}

/** The lead agent: forks the three tasks, then merges. */
export function leadStrategy(model: ChatModel): AgentStrategy {
  return { type: 'lead', systemPrompt: 'You lead. Tools: {{tools}}', model, maxIterations: 4 };
}
