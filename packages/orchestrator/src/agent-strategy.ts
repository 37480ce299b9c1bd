import { ConfigError, InvalidArgumentError, type ChatModel } from '@troupe/core';
import { describeChatModelProblem } from '@troupe/core/model-runtime';
import { z } from 'zod';
import type { CliAgentSpec } from './cli-agent-spec';

/**
 * What happens when a sub-agent ends in `error` (a model failure, a timeout,
 * `task_finish` with `success: false`): it is run again — as a new agent in
 * the tree, same task and strategy — up to `maxRetries` times; after that
 * the failure is reported to its parent. `terminated` sub-agents are never
 * retried.
 */
export interface AgentRetryPolicy {
  /** Extra attempts after the first. 0 = no retry. */
  maxRetries: number;
  /** Wait before each retry, in ms. Default 0. */
  delayMs?: number;
}

/** The variables a system prompt template can use (the context's `variables` come on top). */
export interface AgentPromptVariables {
  readonly [name: string]: string;
}

/**
 * How to build and run one kind of agent (seed 004's `AgentStrategy`: type,
 * system prompt template, maximum iterations, tool whitelist), plus the
 * retry policy its sub-agents follow, and optional per-strategy model and
 * limits.
 *
 * Built-in template variables: `{{task}}`, `{{agentId}}`, `{{parentId}}`,
 * `{{kind}}` (`main`/`sub`), `{{strategy}}` (this type), `{{tools}}` (the
 * agent's tool names) and `{{strategies}}` (registered strategy types); the
 * context's `variables` add more. An unknown `{{name}}` throws when the agent
 * is created.
 *
 * @example
 * ```ts
 * const researcher = defineAgentStrategy({
 *   type: 'researcher',
 *   description: 'Reads files and reports facts',
 *   systemPrompt: 'You are a researcher. Task: {{task}}. Call task_finish with your findings.',
 *   maxIterations: 6,
 *   tools: ['read_file', 'list_files', 'task_finish'],
 *   retry: { maxRetries: 2, delayMs: 500 },
 * });
 * ```
 */
export interface AgentStrategy {
  /** Name of this kind of agent (`main`, `researcher`); `fork_agents` refers to strategies by it. 1-64 of `A-Za-z0-9_.-`. */
  type: string;
  /** What agents of this kind are for (listed to the main agent in `{{strategies}}`). */
  description?: string;
  /** The system prompt: a `{{variable}}` template, or a function of the variables. */
  systemPrompt: string | ((variables: AgentPromptVariables) => string);
  /** Most model calls per run. Default 10. */
  maxIterations?: number;
  /** Names of the tools this agent may use (a whitelist within its scope). Default: every tool of its scope. */
  tools?: readonly string[];
  /** The model for this kind of agent. Default: the orchestrator's model. */
  model?: ChatModel;
  /**
   * `native` (default): tools are sent as the provider's tool schemas.
   * `tags`: tools are described in the system prompt and called with
   * `<tool_call>` tags (for models without native tools). Tags are parsed in
   * both modes.
   */
  toolCallFormat?: 'native' | 'tags';
  /** Text that ends the agent's turn when the model writes it (e.g. `[[DONE]]`). Default: none. */
  endMarker?: string;
  /** What happens when a sub-agent of this strategy fails. Default: no retry. */
  retry?: AgentRetryPolicy;
  /**
   * After an answer that did not end the task (`task_finish`), wait for the
   * user's next message (status `waiting`; see `sendMessage`) instead of
   * completing: seed 004's "wait for user input". Default false. Ignored for
   * sub-agents run by a fork.
   */
  waitForInput?: boolean;
  /**
   * Time limit of one run, in ms; a run past it ends in `error`. A CLI
   * agent's turn gets it as its `timeoutMs`, so the `AgentManager`'s
   * `defaultTimeoutMs` (10 minutes) never cuts a longer run short.
   * Default: none (the CLI turn then has the manager's default).
   */
  timeoutMs?: number;
  /** Per model call. */
  maxOutputTokens?: number;
  /** Per model call. */
  temperature?: number;
  /**
   * Run agents of this strategy as an agent CLI (Claude Code, Codex, Gemini,
   * an ACP agent) through an `AgentManager` instead of on a chat model: the
   * CLI gets `fork_agents`/`task_finish` over MCP, its forks become its
   * children, `task_finish` ends it with its result, and terminating it
   * cancels the CLI's turn. `model`, `maxIterations`, `toolCallFormat`,
   * `endMarker` and the sampling settings do not apply; `tools` whitelists
   * the orchestrator tools served to the CLI (default: `fork_agents` for a
   * main agent, and `task_finish`); the rendered `systemPrompt` (may be
   * empty) becomes the CLI's system instruction. See `AgentOrchestrator.runCliAgent`.
   */
  cli?: CliAgentSpec;
}

/** Default of {@link AgentStrategy.maxIterations}. */
export const DEFAULT_MAX_ITERATIONS = 10;

const STRATEGY_TYPE = /^[A-Za-z0-9_.-]{1,64}$/;

const positiveInt = z.number().int().positive();
const retrySchema = z
  .object({
    maxRetries: z.number().int().min(0),
    delayMs: z.number().int().min(0).optional(),
  })
  .strict();
const strategySchema = z.object({
  type: z.string().regex(STRATEGY_TYPE, 'expected 1-64 characters of A-Za-z0-9_.-'),
  description: z.string().optional(),
  systemPrompt: z.union([z.string(), z.custom<(variables: AgentPromptVariables) => string>((value) => typeof value === 'function', 'expected a string or a function')]),
  maxIterations: positiveInt.optional(),
  tools: z.array(z.string().min(1)).optional(),
  model: z
    .custom<ChatModel>()
    .superRefine((value, context) => {
      const problem = describeChatModelProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  toolCallFormat: z.enum(['native', 'tags']).optional(),
  endMarker: z.string().min(1).optional(),
  retry: retrySchema.optional(),
  waitForInput: z.boolean().optional(),
  timeoutMs: positiveInt.optional(),
  maxOutputTokens: positiveInt.optional(),
  temperature: z.number().min(0).optional(),
  cli: z
    .object({
      manager: z.custom<CliAgentSpec['manager']>(
        (value) => value !== null && typeof value === 'object' && ['ensureAgentStarted', 'send', 'stopAgent', 'isRunning'].every((name) => typeof (value as unknown as Record<string, unknown>)[name] === 'function'),
        'expected an AgentManager',
      ),
      configId: z.string().min(1, 'expected an adapter type or registry config id'),
      roleId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'expected an agent id (letters, digits, ., _, :, -)').optional(),
      member: z.custom<NonNullable<CliAgentSpec['member']>>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'expected a member config object').optional(),
      schema: z.custom<NonNullable<CliAgentSpec['schema']>>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'expected a zod schema or a JSON Schema object').optional(),
    })
    .strict()
    .optional(),
});

/** @internal Throws `ConfigError` unless `retry` is a valid {@link AgentRetryPolicy}. */
export function assertRetryPolicy(retry: unknown, source: string): asserts retry is AgentRetryPolicy {
  const parsed = retrySchema.safeParse(retry);
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
}

/**
 * Validates a strategy (every bad field named in one `ConfigError`) and
 * returns it frozen. The orchestrator calls it on every strategy it is given;
 * call it yourself to fail early.
 */
export function defineAgentStrategy<T extends AgentStrategy>(strategy: T): Readonly<T> {
  if (strategy === null || typeof strategy !== 'object') throw new InvalidArgumentError('strategy', 'expected an AgentStrategy object');
  const parsed = strategySchema.safeParse(strategy);
  if (!parsed.success) {
    const name = typeof strategy.type === 'string' ? `agent strategy "${strategy.type}"` : 'agent strategy';
    throw ConfigError.fromZod(name, parsed.error);
  }
  return Object.isFrozen(strategy) ? strategy : Object.freeze({ ...strategy, ...(strategy.tools ? { tools: Object.freeze([...strategy.tools]) } : {}) });
}

/**
 * The general sub-agent strategy `fork_agents` uses when a task names none:
 * do the task with the common tools, then call `task_finish`.
 */
export const DEFAULT_SUB_AGENT_STRATEGY: Readonly<AgentStrategy> = Object.freeze({
  type: 'sub-agent',
  description: 'General sub-agent: does one self-contained task and reports back',
  systemPrompt:
    'You are a sub-agent working on one task for a parent agent.\nTask: {{task}}\n' +
    'Work with the tools you have ({{tools}}). When you are done, call task_finish with a complete, self-contained result ' +
    '(or success false if you cannot do the task).',
  maxIterations: DEFAULT_MAX_ITERATIONS,
});

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Fills a strategy's system prompt. Throws `InvalidArgumentError` naming any
 * `{{variable}}` that has no value.
 */
export function renderSystemPrompt(strategy: AgentStrategy, variables: AgentPromptVariables): string {
  if (typeof strategy.systemPrompt === 'function') {
    const text = strategy.systemPrompt(variables);
    if (typeof text !== 'string') throw new InvalidArgumentError('strategy.systemPrompt', `the function of strategy "${strategy.type}" must return a string`);
    return text;
  }
  const missing = new Set<string>();
  const text = strategy.systemPrompt.replace(PLACEHOLDER, (match, name: string) => {
    const value = variables[name];
    if (value === undefined) {
      missing.add(name);
      return match;
    }
    return value;
  });
  if (missing.size > 0) {
    throw new InvalidArgumentError(
      'strategy.systemPrompt',
      `strategy "${strategy.type}" uses ${[...missing].map((name) => `{{${name}}}`).join(', ')} but no value was given; known: ${Object.keys(variables).sort().join(', ')}`,
    );
  }
  return text;
}
