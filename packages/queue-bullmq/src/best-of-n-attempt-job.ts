// One attempt of a best-of-N run as a job: an agent's turn in a workspace of the worker's copy of the repository,
// its change handed back as a bundle or patch. The origin submits one job per attempt (attempts then spread over the
// workers), applies each change as a branch of its own repository (`applyBestOfNAttempt`) and tests or judges there.
import { ConfigError, InvalidArgumentError, type SerializedError } from '@troupe/core';
import { AGENT_ID_PATTERN } from '@troupe/core/agent-runtime';
import { AgentManager, type AdapterRegistry, type AgentDefinitionSource } from '@troupe/core/cli-turn';
import { serializeError } from '@troupe/core/util';
import { z } from 'zod';
import { applyJobResult, type AppliedJobResult } from './queue-apply-job-result';
import type { QueueClient, QueuedJob, SubmitOptions } from './queue-client';
import type { QueueJobContext, QueueJobHandler } from './queue-job';
import { jobBaseSchema, jobRepositoryPolicy, looperWorkspaceSchema, runInJobWorktree, withJobRepository, type JobRepositoryOptions } from './queue-job-repository';
import type { JobWorkspaceResult } from './queue-job-workspace';

/** The default queue of best-of-N attempts. */
export const BEST_OF_N_QUEUE = 'troupe-best-of-n';

/**
 * One best-of-N attempt as a job: names and text only (no env, no keys). `agent` names an agent of the **worker's**
 * registry or adapters (`claude`, `codex`, `gemini`); the worker runs it with its own keys.
 */
export const bestOfNAttemptJobSchema = z
  .object({
    /** The best-of-N run it belongs to (its branches at the origin are `troupe/best-of-n/<runId>/<attemptId>`). */
    runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit'),
    /** The attempt (`claude-1`): the agent's role id on the worker, the id the origin's scorecards and ledger use. */
    attemptId: z.string().regex(AGENT_ID_PATTERN, 'an agent id: letters, digits, ".", "_", ":" and "-"'),
    agent: z.string().min(1),
    /** The prompt of the agent's turn. */
    task: z.string().min(1),
    workspace: looperWorkspaceSchema,
    /** The commit to start from (the origin's `HEAD`); it must be in the worker's copy. Default: the copy's `HEAD`. */
    base: jobBaseSchema.optional(),
    /** The change comes back as a git `bundle` (default, its commits) or a `patch`. */
    changeFormat: z.enum(['bundle', 'patch']).optional(),
    /** Longest agent turn, in ms. Default: the worker's manager's (10 minutes). */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();

/** One best-of-N attempt as a job (see {@link bestOfNAttemptJobSchema}). */
export type BestOfNAttemptJob = z.infer<typeof bestOfNAttemptJobSchema>;

/** What a best-of-N attempt job returns: how the turn ended, its answer, and its change. */
export interface BestOfNAttemptJobResult {
  attemptId: string;
  agent: string;
  /** `completed`: the turn ended well; `error`: it failed (what it wrote is still in `workspace`). */
  status: 'completed' | 'error';
  /** The agent's answer text. */
  text: string;
  /** Why the turn failed. */
  error?: SerializedError;
  /** Its branch on the worker, diffstat and change, for {@link applyBestOfNAttempt} at the origin. */
  workspace: JobWorkspaceResult;
}

/** Options of {@link createBestOfNAttemptJobHandler}: the worker's agents, and its rules for the repositories jobs name. */
export interface BestOfNAttemptJobHandlerOptions extends JobRepositoryOptions {
  /** Adapter types the jobs' `agent` may name. Default: the process-wide registry (the adapter packages register into it). */
  adapters?: AdapterRegistry;
  /** Registry entries by name, when `agent` names one. */
  definitions?: AgentDefinitionSource;
}

/**
 * The worker side of best-of-N attempts on the queue: each job is one agent turn in a workspace (a git worktree on
 * its own branch) of the worker's copy of the repository, from the origin's `base`; what the agent did is committed
 * and sent back as a bundle or patch, like a Looper job with `isolation: 'worktree'`. The agent's `agent:*` events
 * (usage included) reach the origin's bus, so its usage ledger charges them.
 *
 * @example
 * ```ts
 * registerClaudeCodeAdapter();
 * createQueueWorker({ connection, handlers: { [BEST_OF_N_QUEUE]: createBestOfNAttemptJobHandler({ workRoot: '/srv/troupe' }) } });
 * ```
 */
export function createBestOfNAttemptJobHandler(options: BestOfNAttemptJobHandlerOptions = {}): QueueJobHandler<BestOfNAttemptJob, BestOfNAttemptJobResult> {
  const { policy, start } = jobRepositoryPolicy(options ?? {});
  return {
    kind: 'best-of-n-attempt',
    start,
    parse(payload) {
      const parsed = bestOfNAttemptJobSchema.safeParse(payload);
      if (!parsed.success) throw ConfigError.fromZod('best-of-N attempt job', parsed.error);
      return parsed.data;
    },
    async run(job, context) {
      return await withJobRepository(job.workspace, context, policy, ['queue', context.queue, context.jobId], async (repo) => {
        const { value, workspace } = await runInJobWorktree(repo, job, context, policy, (path) => runTurn(job, context, path, options));
        return { ...value, workspace };
      });
    },
  };
}

async function runTurn(job: BestOfNAttemptJob, context: QueueJobContext, workDir: string, options: BestOfNAttemptJobHandlerOptions): Promise<Omit<BestOfNAttemptJobResult, 'workspace'>> {
  const manager = new AgentManager({ eventBus: context.eventBus, ...(options.adapters ? { adapters: options.adapters } : {}), ...(options.definitions ? { definitions: options.definitions } : {}) });
  try {
    await manager.ensureAgentStarted(job.attemptId, job.agent, { workDir });
    const turn = await manager.send(job.attemptId, job.task, { signal: context.signal, ...(job.timeoutMs !== undefined ? { timeoutMs: job.timeoutMs } : {}) }).result;
    if (turn.outcome.status === 'canceled') throw turn.outcome.error;
    const failure = turn.outcome.status !== 'completed' ? turn.outcome.error : turn.agentError;
    const base = { attemptId: job.attemptId, agent: job.agent, text: turn.text };
    return failure ? { ...base, status: 'error', error: serializeError(failure) } : { ...base, status: 'completed' };
  } finally {
    // No agent process outlives its job.
    await manager.cleanup();
  }
}

/**
 * Submits one best-of-N attempt to the queue (default {@link BEST_OF_N_QUEUE}); the payload is checked first.
 *
 * @example
 * ```ts
 * const origin = await readOriginCheckout(process.cwd());
 * const jobs = await Promise.all(['claude-1', 'codex-1'].map((attemptId) =>
 *   submitBestOfNAttempt(client, { runId, attemptId, agent: attemptId.split('-')[0]!, task, workspace: { gitUrl }, base: origin!.head })));
 * ```
 */
export async function submitBestOfNAttempt(
  client: QueueClient,
  job: BestOfNAttemptJob,
  options: SubmitOptions & { queue?: string } = {},
): Promise<QueuedJob<BestOfNAttemptJobResult>> {
  const parsed = bestOfNAttemptJobSchema.safeParse(job);
  if (!parsed.success) throw new InvalidArgumentError('job', parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  const { queue = BEST_OF_N_QUEUE, ...submitOptions } = options;
  return client.submit<BestOfNAttemptJobResult>(queue, 'best-of-n-attempt', parsed.data, submitOptions);
}

/**
 * Brings an attempt's change into the origin repository as the branch `troupe/best-of-n/<runId>/<attemptId>` (a `:` in the id as `_`; or
 * `branch`), through {@link applyJobResult}: the checked-out branch, the index and the working tree are never
 * touched. Check out that branch in a worktree to test or judge the attempt at the origin.
 */
export async function applyBestOfNAttempt(
  runId: string,
  result: BestOfNAttemptJobResult,
  options: { repo: string; branch?: string; signal?: AbortSignal },
): Promise<AppliedJobResult> {
  if (result === null || typeof result !== 'object' || typeof result.attemptId !== 'string') throw new InvalidArgumentError('result', 'expected the result of a best-of-N attempt job');
  return await applyJobResult(result.workspace, { ...options, branch: options.branch ?? `troupe/best-of-n/${runId}/${result.attemptId.replace(/[^A-Za-z0-9._-]/g, '_')}` });
}
