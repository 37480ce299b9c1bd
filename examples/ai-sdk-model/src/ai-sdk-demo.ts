import { createWorkspaceTools } from '@troupe/workspace-tools';
import { generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { type ChatModel } from '@troupe/core';
import { z } from 'zod';

/** The verdict the model gives on its own work (structured output, validated with zod). */
export const verdictSchema = z.object({
  done: z.boolean().describe('True when the file was written as asked'),
  file: z.string().describe('Path of the file written, relative to the workspace'),
  summary: z.string().describe('One sentence on what the file says'),
});

/** What {@link runAiSdkDemo} prints and returns. */
export interface AiSdkDemoResult {
  text: string;
  verdict: z.infer<typeof verdictSchema>;
  toolCalls: string[];
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/**
 * The demo: a streamed tool loop on `workspace` (read, write and list files,
 * no shell), then a structured verdict with `generateObject`. `model` is any
 * Troupe ChatModel — here an AI SDK model through `fromAISdk`.
 */
export async function runAiSdkDemo(model: ChatModel, workspace: string, write: (text: string) => void, signal?: AbortSignal): Promise<AiSdkDemoResult> {
  const toolCalls: string[] = [];
  write(`model: ${model.provider} ${model.modelId}\n\nassistant: `);
  const loop = await runToolLoop({
    model,
    system: 'You are a careful assistant working in a small project folder. Use the tools to do what you are asked.',
    prompt: 'Create notes.md with a title and one sentence saying this project shows an AI SDK model in Troupe, then say what you did.',
    tools: createWorkspaceTools({ root: workspace, shellExec: false }),
    maxSteps: 5,
    onTextDelta: (delta) => write(delta),
    onStep: (step) => {
      for (const result of step.toolResults) {
        const call = `${result.toolName}(${JSON.stringify(result.input)}) → ${result.result.success ? 'ok' : `error: ${result.result.error}`}`;
        toolCalls.push(call);
        write(`\n  [tool] ${call}\n`);
      }
    },
    ...(signal ? { signal } : {}),
  });
  const { object: verdict, usage } = await generateObject({
    model,
    schema: verdictSchema,
    schemaName: 'verdict',
    system: 'You check an assistant’s work and answer with a JSON verdict.',
    prompt: `The assistant said: ${loop.text}\nWas the file written? Which one, and what does it say?`,
    ...(signal ? { signal } : {}),
  });
  write(`\n\nverdict (generateObject): ${JSON.stringify(verdict)}\n`);
  const inputTokens = (loop.usage.inputTokens ?? 0) + (usage.inputTokens ?? 0);
  const outputTokens = (loop.usage.outputTokens ?? 0) + (usage.outputTokens ?? 0);
  write(`usage: ${inputTokens} input / ${outputTokens} output tokens over ${loop.steps.length + 1} model calls\n`);
  return { text: loop.text, verdict, toolCalls, inputTokens, outputTokens };
}
