import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { raceAbort } from '../util/race-abort';
import type { AgentContext, AgentOutput, AgentSinks, ExecutionHandle, RunnableAgent } from '../agents/runnable-agent';

/** What a {@link RunnableAgentDefinition.run} function receives besides the input. */
export interface AgentRunContext {
  context: AgentContext;
  sinks: AgentSinks;
  /** Aborted on `cancel()` or when the context's signal aborts; pass it to anything long-running. */
  signal: AbortSignal;
}

/** What {@link defineAgent} takes. */
export interface RunnableAgentDefinition {
  /** Unique id: letters, digits, `.`, `_`, `:` or `-`. */
  id: string;
  description: string;
  /** Does the work. Return the answer text or an {@link AgentOutput}; throw to fail. */
  run(input: string, run: AgentRunContext): string | AgentOutput | PromiseLike<string | AgentOutput>;
}

/** Agent ids: what the registry and channel metadata accept. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** @internal Checks an agent id, naming what was wrong. */
export function assertAgentId(id: unknown, what = 'agent.id'): asserts id is string {
  if (typeof id !== 'string' || !AGENT_ID_PATTERN.test(id)) {
    throw new InvalidArgumentError(what, `${JSON.stringify(id)} is not a valid agent id; use letters, digits, ".", "_", ":" or "-"`);
  }
}

/** @internal Normalizes what a run returned into an {@link AgentOutput}. */
export function toAgentOutput(value: unknown, agentId: string): AgentOutput {
  if (typeof value === 'string') return { text: value };
  if (value !== null && typeof value === 'object' && typeof (value as AgentOutput).text === 'string') return value as AgentOutput;
  if (value === undefined) return { text: '' };
  throw new InvalidArgumentError('output', `agent "${agentId}" returned ${typeof value}; expected a string or { text }`);
}

/**
 * Runs `work` as an {@link ExecutionHandle}: merges the context's signal with
 * `cancel()`, rejects with `AbortError` as soon as either fires (even if the
 * work ignores its signal), and marks the completion as handled.
 *
 * @example
 * ```ts
 * start(input, context, sinks) {
 *   return startExecution(context, (signal) => doTheWork(input, signal));
 * }
 * ```
 */
export function startExecution(context: AgentContext, work: (signal: AbortSignal) => PromiseLike<AgentOutput> | AgentOutput, what = 'The agent run'): ExecutionHandle {
  const controller = new AbortController();
  const signal = context.signal ? AbortSignal.any([context.signal, controller.signal]) : controller.signal;
  const completion = raceAbort(() => work(signal), signal, (reason) => new AbortError(`${what} was canceled`, { cause: reason }));
  completion.catch(() => {});
  return {
    completion,
    cancel: (reason?: unknown) => controller.abort(reason ?? new AbortError(`${what} was canceled`)),
  };
}

/**
 * Builds a {@link RunnableAgent} from a function: the cancellation plumbing
 * (signal, `cancel()`, handled rejection) is done for you.
 *
 * @throws InvalidArgumentError for a bad id, an empty description or a missing `run`.
 *
 * @example
 * ```ts
 * const reviewer = defineAgent({
 *   id: 'review',
 *   description: 'Reviews the workspace and reports its health',
 *   run: async (input, { signal, sinks }) => {
 *     sinks.status?.('reviewing');
 *     return await callMyReviewer(input, signal);
 *   },
 * });
 * ```
 */
export function defineAgent(definition: RunnableAgentDefinition): RunnableAgent {
  if (definition === null || typeof definition !== 'object') throw new InvalidArgumentError('agent', 'expected { id, description, run }');
  const { id, description, run } = definition;
  assertAgentId(id);
  if (typeof description !== 'string' || description.trim() === '') {
    throw new InvalidArgumentError('agent.description', `agent "${id}" needs a non-empty description`);
  }
  if (typeof run !== 'function') throw new InvalidArgumentError('agent.run', `agent "${id}" needs a run function`);
  return Object.freeze({
    id,
    description,
    start(input: string, context: AgentContext = {}, sinks: AgentSinks = {}): ExecutionHandle {
      return startExecution(
        context,
        async (signal) => toAgentOutput(await run(input, { context, sinks, signal }), id),
        `Agent "${id}"`,
      );
    },
  });
}
