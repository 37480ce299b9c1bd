import { AbortError, defineTool, InvalidArgumentError, type EventBus, type Tool } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import {
  DEFAULT_SUB_AGENT_STRATEGY,
  defineAgentStrategy,
  FORK_AGENTS_TOOL_NAME,
  forkAgentsParameters,
  formatForkResult,
  getAgentToolContext,
  type AgentOrchestrator,
  type ForkAgentsArgs,
  type SubAgentResult,
} from '@troupe/orchestrator';
import { z } from 'zod';
import type { QueueClient, SubmitOptions } from './queue-client';
import type { QueueJobHandler } from './queue-job';
import { QueueError } from './queue-error';
import { checkInsideRoots } from './queue-workspace-roots';

const QUEUE_HOST_STRATEGY = defineAgentStrategy({ type: 'queue-host', systemPrompt: 'Stands in for the parent agent on the origin; never runs.' });

/** The default queue of orchestrator sub-agents. */
export const SUB_AGENT_QUEUE = 'troupe-agents';

/** A sub-agent as a job: its task, strategy type and context (names and text only). */
export const subAgentJobSchema = z
  .object({
    task: z.string().min(1),
    strategy: z.string().min(1).optional(),
    parentId: z.string().optional(),
    workspaceRoot: z.string().optional(),
  })
  .strict();

/** A sub-agent as a job (see {@link subAgentJobSchema}). */
export type SubAgentJob = z.infer<typeof subAgentJobSchema>;

/** What a sub-agent job returns. */
export interface SubAgentJobResult {
  /** The agent's id in the worker's orchestrator. */
  agentId: string;
  text: string;
  iterations: number;
}

/**
 * `fork_agents` whose children run on workers: register it in place of the
 * orchestrator's own (`tools.registerTool(createQueuedForkAgentsTool(…),
 * 'main')` on a `ToolManager` without the default one). Same arguments and
 * same result text as the in-process tool; each sub-agent is a job, and
 * `maxConcurrency` is enforced **across the cluster** (BullMQ's global
 * concurrency: at most that many sub-agents run at once on all workers).
 *
 * @example
 * ```ts
 * const tools = new ToolManager();
 * tools.unregisterTool('fork_agents');
 * tools.registerTool(createQueuedForkAgentsTool({ client, maxConcurrency: 16 }), 'main');
 * const orchestrator = new AgentOrchestrator({ model, tools });
 * ```
 */
export function createQueuedForkAgentsTool(options: {
  client: QueueClient;
  /** Default `troupe-agents`. */
  queue?: string;
  /** Sub-agents running at once across every worker. Default: unlimited (each worker's concurrency). */
  maxConcurrency?: number;
  submit?: Omit<SubmitOptions, 'jobId' | 'signal'>;
}): Tool<ForkAgentsArgs> {
  if (!options?.client) throw new InvalidArgumentError('client', 'expected a QueueClient');
  const queue = options.queue ?? SUB_AGENT_QUEUE;
  const { maxConcurrency } = options;
  if (maxConcurrency !== undefined && !(Number.isInteger(maxConcurrency) && maxConcurrency > 0)) {
    throw new InvalidArgumentError('maxConcurrency', `expected a positive integer, got ${String(maxConcurrency)}`);
  }
  let limited: Promise<void> | undefined;
  return defineTool({
    name: FORK_AGENTS_TOOL_NAME,
    description:
      'Split work into independent tasks run by sub-agents in parallel (on worker machines). You wait until all of them finish, then get each result (or failure).',
    parameters: forkAgentsParameters,
    scope: 'main',
    async execute({ tasks }, context) {
      if (maxConcurrency !== undefined) limited ??= options.client.setGlobalConcurrency(queue, maxConcurrency);
      await limited;
      const parent = getAgentToolContext(context);
      const parentId = parent?.agentId;
      const workspaceRoot = context.workspaceRoot;
      const jobs = await Promise.all(
        tasks.map(({ task, strategy }) =>
          options.client.submit<SubAgentJobResult>(
            queue,
            'sub-agent',
            { task, ...(strategy !== undefined ? { strategy } : {}), ...(parentId !== undefined ? { parentId } : {}), ...(workspaceRoot !== undefined ? { workspaceRoot } : {}) } satisfies SubAgentJob,
            { ...options.submit, signal: context.abortSignal },
          ),
        ),
      );
      const settled = await Promise.allSettled(jobs.map((job) => job.result));
      const results: SubAgentResult[] = settled.map((outcome, index) => {
        const { task, strategy } = tasks[index] as ForkAgentsArgs['tasks'][number];
        const jobId = (jobs[index] as { id: string }).id;
        if (outcome.status === 'fulfilled') {
          return { task, strategyType: strategy ?? DEFAULT_SUB_AGENT_STRATEGY.type, status: 'completed', text: outcome.value.text, agentId: jobId, agentIds: [jobId], attempts: 1 };
        }
        const status = outcome.reason instanceof AbortError ? 'terminated' : 'error';
        return { task, strategyType: strategy ?? DEFAULT_SUB_AGENT_STRATEGY.type, status, error: serializeError(outcome.reason), agentId: jobId, agentIds: [jobId], attempts: 1 };
      });
      const succeeded = results.filter((result) => result.status === 'completed').length;
      return formatForkResult({ forkId: `queue-${jobs[0]?.id ?? 'fork'}`, parentId: parentId ?? 'unknown', results, succeeded, failed: results.length - succeeded });
    },
  });
}

/** What a worker's orchestrator factory gets. */
export interface SubAgentEnvironment {
  /** Events here (`orchestrator:*`, model usage…) reach the origin's bus: give it to the orchestrator. */
  eventBus: EventBus;
  jobId: string;
  job: SubAgentJob;
}

/**
 * The worker side of queued sub-agents: runs each with an orchestrator the
 * worker builds (its model and keys, its strategies and tools), as an agent
 * of that strategy, and returns its final text.
 *
 * @example
 * ```ts
 * createQueueWorker({ connection, handlers: { [SUB_AGENT_QUEUE]: createSubAgentJobHandler({ createOrchestrator: ({ eventBus }) => new AgentOrchestrator({ model, bus: eventBus }) }) } });
 * ```
 */
export function createSubAgentJobHandler(options: {
  createOrchestrator(environment: SubAgentEnvironment): AgentOrchestrator | Promise<AgentOrchestrator>;
  /**
   * The folders a job's `workspaceRoot` may be in (symlinks resolved): the
   * job names a folder on this worker, whose agents work there with the
   * worker's keys. Set it whenever others submit jobs; a job outside fails
   * without retry. Default: any folder.
   */
  allowedRoots?: readonly string[];
}): QueueJobHandler<SubAgentJob, SubAgentJobResult> {
  if (typeof options?.createOrchestrator !== 'function') throw new InvalidArgumentError('createOrchestrator', 'expected a function that builds an AgentOrchestrator');
  const allowedRoots = options.allowedRoots;
  if (allowedRoots !== undefined && (!Array.isArray(allowedRoots) || allowedRoots.some((root) => typeof root !== 'string' || root === ''))) {
    throw new InvalidArgumentError('allowedRoots', 'expected an array of folder paths');
  }
  return {
    kind: 'sub-agent',
    parse: (payload) => subAgentJobSchema.parse(payload),
    async run(requested, context) {
      const job = requested.workspaceRoot !== undefined && allowedRoots !== undefined ? { ...requested, workspaceRoot: await checkInsideRoots(requested.workspaceRoot, allowedRoots, 'workspaceRoot') } : requested;
      const orchestrator = await options.createOrchestrator({ eventBus: context.eventBus, jobId: context.jobId, job });
      try {
        const strategy = job.strategy === undefined ? DEFAULT_SUB_AGENT_STRATEGY : orchestrator.getStrategy(job.strategy);
        if (!strategy) throw new QueueError('QUEUE_STRATEGY_NOT_FOUND', { strategy: String(job.strategy) });
        // A local stand-in for the origin's parent (never run), so the agent is a sub-agent here too: `sub` tools, task_finish.
        const hostId = orchestrator.createAgent({ task: `queued sub-agents of ${job.parentId ?? 'the origin'}` }, QUEUE_HOST_STRATEGY);
        const agentId = orchestrator.createAgent(
          {
            task: job.task,
            parentId: hostId,
            ...(job.workspaceRoot !== undefined ? { workspaceRoot: job.workspaceRoot } : {}),
            data: { queueJobId: context.jobId, ...(job.parentId ? { originParentId: job.parentId } : {}) },
          },
          strategy,
        );
        const result = await orchestrator.runAgent(agentId, { signal: context.signal });
        return { agentId, text: result.text, iterations: result.iterations };
      } finally {
        await orchestrator.terminateAll('sub-agent job ended').catch(() => []);
      }
    },
  };
}
