import { describeChatModelProblem, generateObject, runToolLoop } from '@troupe/core/model-runtime';
import { InvalidArgumentError, type AnyTool, type ChatModelV1, type ChatStopReason, type ChatUsage } from '@troupe/core';
import { z } from 'zod';
import { defaultTaskPrompt } from './pipeline-agent-adapters';
import type { ExecuteTaskContext, PipelineExecutor, PipelinePlanner, PlanBatchContext } from './pipeline-types';

/** Options of {@link plannerFromModel}. */
export interface ModelPlannerOptions<TTask = string> {
  model: ChatModelV1;
  system?: string;
  /** The user message for a batch. */
  prompt: (context: PlanBatchContext) => string;
  /** zod schema of one task. Default `z.string()`. */
  taskSchema?: z.ZodType<TTask>;
  /** How many times the model may fix an invalid answer. Default 1. */
  maxRepairs?: number;
  temperature?: number;
  maxOutputTokens?: number;
}

function checkModel(model: unknown): void {
  const problem = describeChatModelProblem(model);
  if (problem !== undefined) throw new InvalidArgumentError('options.model', problem);
}

/**
 * A prompt agent as the planner: one `generateObject` call per batch with
 * the schema `{ tasks: Task[], last: boolean }` (native structured output
 * where the provider has it, validated and repaired otherwise).
 *
 * @example
 * ```ts
 * const planner = plannerFromModel({
 *   model,
 *   system: 'You plan API tests. Five tests per batch; set last when every tool is covered.',
 *   prompt: ({ batchIndex }) => `Plan batch ${batchIndex} for: ${JSON.stringify(tools)}`,
 * });
 * ```
 */
export function plannerFromModel<TTask = string>(options: ModelPlannerOptions<TTask>): PipelinePlanner<TTask> {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { model, prompt }');
  checkModel(options.model);
  if (typeof options.prompt !== 'function') throw new InvalidArgumentError('options.prompt', 'expected a function (context) => string');
  const schema = z.object({
    tasks: z.array((options.taskSchema ?? z.string()) as z.ZodType<TTask>).describe('The tasks of this batch, in execution order'),
    last: z.boolean().describe('True when no batch follows this one'),
  });
  return {
    async planBatch(context) {
      const { object } = await generateObject({
        model: options.model,
        schema,
        schemaName: 'batch',
        schemaDescription: `Batch ${context.batchIndex} of the plan`,
        prompt: options.prompt(context),
        signal: context.signal,
        ...(options.system !== undefined ? { system: options.system } : {}),
        ...(options.maxRepairs !== undefined ? { maxRepairs: options.maxRepairs } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      });
      return { tasks: object.tasks as TTask[], last: object.last };
    },
  };
}

/** Options of {@link executorFromModel}. */
export interface ModelExecutorOptions<TTask = unknown> {
  model: ChatModelV1;
  system?: string;
  /** The user message for a task. Default: a string task as is, anything else as indented JSON. */
  prompt?: (task: TTask, context: ExecuteTaskContext) => string;
  /** Tools the model may call while doing the task (e.g. `createWorkspaceTools()`). */
  tools?: readonly AnyTool[];
  /** Most model calls per task. Default 10. */
  maxSteps?: number;
  /** Root for the workspace tools. */
  workspaceRoot?: string;
  temperature?: number;
  maxOutputTokens?: number;
}

/** What a model-run task stores. */
export interface ModelTaskResult {
  /** The model's final answer. */
  text: string;
  /** Model calls made. */
  steps: number;
  stopReason: ChatStopReason;
  usage: ChatUsage;
}

/**
 * A prompt agent as the executor: one `runToolLoop` per task (the model may
 * call `tools`); the stored result is the final text with steps, stop
 * reason and usage.
 *
 * @example
 * ```ts
 * const executor = executorFromModel({ model, system: 'You run API tests with the http tool.', tools: [httpTool] });
 * ```
 */
export function executorFromModel<TTask = unknown>(options: ModelExecutorOptions<TTask>): PipelineExecutor<TTask, ModelTaskResult> {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { model }');
  checkModel(options.model);
  const prompt = options.prompt ?? ((task: TTask) => defaultTaskPrompt(task));
  return {
    async executeTask(task, context) {
      const result = await runToolLoop({
        model: options.model,
        prompt: prompt(task, context),
        signal: context.signal,
        ...(options.system !== undefined ? { system: options.system } : {}),
        ...(options.tools !== undefined ? { tools: options.tools } : {}),
        ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      });
      return { text: result.text, steps: result.steps.length, stopReason: result.stopReason, usage: result.usage };
    },
  };
}
