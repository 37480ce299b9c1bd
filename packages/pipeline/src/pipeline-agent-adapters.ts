import { createAdapterAgent, type AgentManager } from '@troupe/core/cli-turn';
import {
  formatIssuePath,
  InvalidArgumentError,
  ModelOutputError,
  type AgentContext,
  type AgentOutput,
  type AgentSinks,
  type MemberAgentConfig,
  type RunnableAgent,
} from '@troupe/core';
import { parseJsonText } from '@troupe/core/model-runtime';
import { z } from 'zod';
import type { ExecuteTaskContext, PipelineExecutor, PipelinePlanner, PlanBatchContext, PlanBatchResult } from './pipeline-types';

/** What an agent's JSON answer must look like to be a batch (`{ "done": true }` or `null` ends planning). */
export const plannedBatchAnswerSchema = z.union([
  z.null(),
  z.object({ done: z.literal(true) }),
  z.object({
    tasks: z.array(z.unknown()),
    last: z.boolean().optional(),
    totalBatches: z.number().int().positive().optional(),
  }),
]);

/**
 * Reads a planned batch out of an agent's answer: a JSON object
 * `{ "tasks": [...], "last": bool, "totalBatches": n }`, or `null` /
 * `{ "done": true }` when there is no further batch. Prose or a ```json
 * fence around the JSON is tolerated.
 *
 * @throws ModelOutputError naming what was wrong with the answer.
 */
export function parsePlannedBatch<TTask = unknown>(text: string): PlanBatchResult<TTask> {
  const json = parseJsonText(text);
  if (!json.success) throw new ModelOutputError(`The planner's answer is not a batch: ${json.message}`, { text, issues: [{ path: '(root)', message: json.message }], attempts: 1 });
  const parsed = plannedBatchAnswerSchema.safeParse(json.value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
    throw new ModelOutputError(
      `The planner's answer is not a batch (expected {"tasks": [...], "last": true|false} or {"done": true}): ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      { text, issues, attempts: 1 },
    );
  }
  const value = parsed.data;
  if (value === null || 'done' in value) return null;
  return value as PlanBatchResult<TTask>;
}

/** Options of {@link plannerFromAgent}. */
export interface AgentPlannerOptions<TTask = unknown> {
  /** The agent's input for a batch. */
  prompt: (context: PlanBatchContext) => string;
  /** Reads the batch out of the agent's output. Default: {@link parsePlannedBatch} on `output.text`. */
  parse?: (output: AgentOutput, context: PlanBatchContext) => PlanBatchResult<TTask> | PromiseLike<PlanBatchResult<TTask>>;
  /** Passed to every run (workspace path, channel, data); the run's signal is added. */
  context?: Omit<AgentContext, 'signal'>;
  /** Where the agent streams while it plans. */
  sinks?: AgentSinks;
}

/** Options of {@link executorFromAgent}. */
export interface AgentExecutorOptions<TTask = unknown, TResult = unknown> {
  /** The agent's input for a task. Default: a string task as is, anything else as indented JSON. */
  prompt?: (task: TTask, context: ExecuteTaskContext) => string;
  /** The stored result. Default `{ text, data? }` of the agent's output. */
  result?: (output: AgentOutput, task: TTask, context: ExecuteTaskContext) => TResult | PromiseLike<TResult>;
  /** Passed to every run (workspace path, channel, data); the run's signal is added. */
  context?: Omit<AgentContext, 'signal'>;
  /** Where the agent streams while it works. */
  sinks?: AgentSinks;
}

/** The default result of an agent-run task. */
export interface AgentTaskResult {
  text: string;
  data?: unknown;
}

function checkAgent(agent: RunnableAgent): void {
  if (!agent || typeof agent !== 'object' || typeof agent.start !== 'function') {
    throw new InvalidArgumentError('agent', 'expected a RunnableAgent (defineAgent(), createAdapterAgent(), a Looper…)');
  }
}

/** The default task prompt: a string as is, anything else as indented JSON. */
export function defaultTaskPrompt(task: unknown): string {
  return typeof task === 'string' ? task : JSON.stringify(task, null, 2);
}

/**
 * Makes any {@link RunnableAgent} the planner: one agent run per batch,
 * with `prompt(context)` as input; the answer is parsed as a batch.
 *
 * @example
 * ```ts
 * const planner = plannerFromAgent(planAgent, {
 *   prompt: ({ batchIndex }) => `Plan test batch ${batchIndex} for tools ${JSON.stringify(toolsOf(batchIndex))}. Answer {"tasks": [...], "last": bool}.`,
 * });
 * ```
 */
export function plannerFromAgent<TTask = unknown>(agent: RunnableAgent, options: AgentPlannerOptions<TTask>): PipelinePlanner<TTask> {
  checkAgent(agent);
  if (!options || typeof options.prompt !== 'function') throw new InvalidArgumentError('options.prompt', 'expected a function (context) => string');
  const parse = options.parse ?? ((output: AgentOutput) => parsePlannedBatch<TTask>(output.text));
  return {
    async planBatch(context) {
      const output = await agent.start(options.prompt(context), { ...options.context, signal: context.signal }, options.sinks ?? {}).completion;
      return parse(output, context);
    },
  };
}

/**
 * Makes any {@link RunnableAgent} the executor: one agent run per task. A
 * failed run fails the task.
 *
 * @example
 * ```ts
 * const executor = executorFromAgent(testAgent, { prompt: (task) => `Run this test and report: ${task}` });
 * ```
 */
export function executorFromAgent<TTask = unknown, TResult = AgentTaskResult>(agent: RunnableAgent, options: AgentExecutorOptions<TTask, TResult> = {}): PipelineExecutor<TTask, TResult> {
  checkAgent(agent);
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { prompt?, result?, context?, sinks? }');
  const prompt = options.prompt ?? ((task: TTask) => defaultTaskPrompt(task));
  const result =
    options.result ?? ((output: AgentOutput) => ({ text: output.text, ...(output.data !== undefined ? { data: output.data } : {}) }) as unknown as TResult);
  return {
    async executeTask(task, context) {
      const output = await agent.start(prompt(task, context), { ...options.context, signal: context.signal }, options.sinks ?? {}).completion;
      return result(output, task, context);
    },
  };
}

/** The CLI member that plays a role, through core's {@link AgentManager}. */
export interface AgentMemberOptions {
  manager: AgentManager;
  /** The member's role id (one CLI session per role). */
  roleId: string;
  /** Adapter type or registry entry (`claude`, `codex`, `gemini`…). */
  configId: string;
  /** System prompt, extra args, env, work directory. */
  member?: MemberAgentConfig;
  /** Total timeout per turn in ms. */
  timeoutMs?: number;
}

function memberAgent(options: AgentMemberOptions): RunnableAgent {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { manager, roleId, configId }');
  return createAdapterAgent({
    manager: options.manager,
    roleId: options.roleId,
    configId: options.configId,
    ...(options.member !== undefined ? { member: options.member } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/**
 * A CLI member (Claude Code, Codex, Gemini… via `AgentManager`) as the
 * planner: one CLI turn per batch, the session resumed across batches when
 * the adapter can.
 *
 * @example
 * ```ts
 * registerClaudeCodeAdapter();
 * const planner = plannerFromAgentMember({ manager, roleId: 'planner', configId: 'claude', prompt: ({ batchIndex }) => `Plan batch ${batchIndex}…` });
 * ```
 */
export function plannerFromAgentMember<TTask = unknown>(options: AgentMemberOptions & AgentPlannerOptions<TTask>): PipelinePlanner<TTask> {
  return plannerFromAgent(memberAgent(options), options);
}

/**
 * A CLI member as the executor: one CLI turn per task. Tasks of a member
 * run one at a time (keep `batchConcurrency` at 1, or give each executor
 * its own role).
 */
export function executorFromAgentMember<TTask = unknown, TResult = AgentTaskResult>(
  options: AgentMemberOptions & AgentExecutorOptions<TTask, TResult>,
): PipelineExecutor<TTask, TResult> {
  return executorFromAgent(memberAgent(options), options);
}
