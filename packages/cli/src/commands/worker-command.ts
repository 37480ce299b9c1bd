import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Looper } from '@troupe/looper';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { executorFromAgentMember } from '@troupe/pipeline';
import {
  createBestOfNAttemptJobHandler,
  createLooperJobHandler,
  createPipelineTaskJobHandler,
  createEvalTrialJobHandler,
  createQueueWorker,
  createSubAgentJobHandler,
  LOOPER_QUEUE,
  redactUrl,
  type LooperJobEnvironment,
  type JobRepositoryOptions,
  type QueueJobHandler,
} from '@troupe/queue-bullmq';
import { WORKER_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs, positiveIntegerOption, repeatedOption } from '../args/parse-cli-args';
import { queuesOption, redisOption } from '../args/queue-options';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { chooseModel, createChatModel } from '../looper/cli-model';
import { createCliAdapterRegistry, createCliAgentManager } from '../looper/create-cli-looper';
import { createTestRunReview } from '../looper/test-run-review';
import { loadCliRegistry, registryDefinitions, resolveAgentChoice, type CliRegistry } from '../registry/cli-registry';

/**
 * The Looper of one job on this worker: agents from this machine's registry
 * and env (the job names them; keys never travel), JUDGE on a model only when
 * the job asks for one and this worker has its key.
 */
async function workerLooper(environment: LooperJobEnvironment, setup: { registry: CliRegistry | undefined; autoAllow: boolean; testCommand: readonly string[]; io: CliIo }): Promise<Looper> {
  const { spec } = environment;
  const m = catalogueOf(setup.io).cli;
  const coder = resolveAgentChoice(spec.coder ?? 'claude', 'coder', setup.registry, m, 'worker');
  const reviewerName = spec.reviewer ?? coder.name;
  const review =
    reviewerName === 'tests'
      ? createTestRunReview({ command: setup.testCommand })
      : { configId: resolveAgentChoice(reviewerName, 'reviewer', setup.registry, m, 'worker', ['tests']).name, roleId: 'looper-review' };
  const judgeChoice = spec.judge !== undefined && spec.judge !== 'rules' ? chooseModel(spec.judge === 'model' ? undefined : spec.judge, setup.io.env, 'worker', m) : undefined;
  const judgeModel = judgeChoice ? await createChatModel(judgeChoice) : undefined;
  return new Looper({
    coder: { configId: coder.name, roleId: 'looper-coder' },
    review,
    ...(judgeModel ? { model: judgeModel } : {}),
    eventBus: environment.eventBus,
    messages: environment.messages,
    stateStore: environment.stateStore,
    agentManager: createCliAgentManager({ autoAllow: setup.autoAllow, registry: setup.registry, bus: environment.eventBus }),
    workspacePath: environment.workspacePath,
    ...(spec.maxIterations !== undefined ? { maxIterations: spec.maxIterations } : {}),
    ...(spec.stepTimeoutMs !== undefined ? { stepTimeoutMs: spec.stepTimeoutMs } : {}),
  });
}

/** Pipeline tasks (queues named `…-pipeline`): each task is a turn of the `--coder` agent CLI in `--workspace`. */
function pipelineHandler(options: Record<string, string | boolean | undefined>, setup: { registry: CliRegistry | undefined; autoAllow: boolean; io: CliIo }): QueueJobHandler<any, any> {
  const m = catalogueOf(setup.io).cli;
  const coder = resolveAgentChoice(typeof options.coder === 'string' ? options.coder : 'claude', 'coder', setup.registry, m, 'worker');
  const workDir = typeof options.workspace === 'string' ? options.workspace : setup.io.cwd;
  return createPipelineTaskJobHandler({
    createExecutor: ({ eventBus, jobId }) => {
      const manager = createCliAgentManager({ autoAllow: setup.autoAllow, registry: setup.registry, bus: eventBus });
      const executor = executorFromAgentMember({ manager, roleId: `pipeline-${jobId}`, configId: coder.name, member: { workDir } });
      return {
        async executeTask(task, context) {
          try {
            return await executor.executeTask(task, context);
          } finally {
            await manager.cleanup();
          }
        },
      };
    },
  });
}

/** Orchestrator sub-agents (queues named `…-agents`): each runs on this worker's model (`--model`, or the first API key set). */
/** Best-of-N attempts (`troupe best-of-n --queue`): each job one agent turn of this worker's agents, in a workspace of its copy. */
function bestOfNHandler(setup: { registry: CliRegistry | undefined; autoAllow: boolean }, repositoryOptions: JobRepositoryOptions): QueueJobHandler<any, any> {
  return createBestOfNAttemptJobHandler({ adapters: createCliAdapterRegistry(setup.autoAllow, setup.registry), definitions: registryDefinitions(setup.registry), ...repositoryOptions });
}

async function subAgentHandler(options: Record<string, string | boolean | undefined>, io: CliIo, allowedRoots: readonly string[]): Promise<QueueJobHandler<any, any>> {
  const m = catalogueOf(io).cli;
  const choice = chooseModel(typeof options.model === 'string' ? options.model : undefined, io.env, 'worker', m);
  if (!choice) throw new CliUsageError(m.queue.subAgentsNeedModel, { command: 'worker' });
  const model = await createChatModel(choice);
  return createSubAgentJobHandler({
    allowedRoots,
    createOrchestrator: ({ eventBus, job }) => new AgentOrchestrator({ model, bus: eventBus, ...(job.workspaceRoot !== undefined ? { workspaceRoot: job.workspaceRoot } : {}) }),
  });
}

/**
 * `troupe worker --redis URL [--concurrency N] [--queues A,B]`: takes Looper
 * jobs from the queues and runs them here until interrupted (Ctrl-C or
 * SIGTERM: finishes the jobs in progress; a second one cancels them, and
 * they are retried elsewhere from their checkpoints). Jobs name folders on
 * this machine, so they may only use the `--allow-root` folders (default:
 * the work dir) and clone only https/ssh repositories.
 */
export async function runWorkerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, WORKER_OPTIONS, 'worker', m);
  if (options.help) {
    io.stdout.write(`${helpText('worker', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'worker' });
  const url = redisOption(options.redis, 'redis', 'worker', m);
  const concurrency = positiveIntegerOption(options.concurrency, 'concurrency', 'worker', m) ?? 1;
  const queues = queuesOption(options.queues, [LOOPER_QUEUE], 'worker', m);
  const registry = await loadCliRegistry(
    { option: typeof options.registry === 'string' ? options.registry : undefined, env: io.env, cwd: io.cwd },
    m,
    (warning) => io.stderr.write(`troupe: ${warning}\n`),
  );
  const testCommand = typeof options['test-command'] === 'string' ? options['test-command'].split(/\s+/).filter(Boolean) : ['node', '--test'];
  const setup = { registry, autoAllow: options['auto-allow'] === true, testCommand, io };
  const workRoot = resolve(io.cwd, typeof options['work-dir'] === 'string' ? options['work-dir'] : join(tmpdir(), 'troupe-worker'));
  const allowedRoots = repeatedOption(options['allow-root']).map((dir) => resolve(io.cwd, dir));
  for (const dir of allowedRoots) if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliUsageError(m.queue.allowRootNotFolder(dir), { command: 'worker' });
  const cloneTimeout = positiveIntegerOption(options['clone-timeout'], 'clone-timeout', 'worker', m);
  const repositoryOptions: JobRepositoryOptions = {
    workRoot,
    ...(allowedRoots.length > 0 ? { allowedRoots } : {}),
    allowLocalGitUrls: options['allow-local-git'] === true,
    ...(cloneTimeout !== undefined ? { cloneTimeoutMs: cloneTimeout * 1000 } : {}),
    // What a killed worker left in its job clones: said at start-up (kept ones hold work: review or remove them).
    onWorkspaceGc: (report) => {
      for (const kept of report.kept) if (kept.reason !== 'host-running') io.stderr.write(`${m.queue.worktree.kept(kept.path, kept.branch, kept.reason, kept.hostPid)}\n`);
      if (report.removed.length > 0) io.stderr.write(`${m.queue.worktree.removed(report.removed.length, report.repo)}\n`);
    },
  };
  const looperHandler = createLooperJobHandler({ createLooper: (environment) => workerLooper(environment, setup), ...repositoryOptions });
  const handlers: Record<string, QueueJobHandler<any, any>> = {};
  for (const queue of queues) {
    if (queue.endsWith('-pipeline')) handlers[queue] = pipelineHandler(options, setup);
    else if (queue.endsWith('-best-of-n')) handlers[queue] = bestOfNHandler(setup, repositoryOptions);
    else if (queue.endsWith('-agents')) handlers[queue] = await subAgentHandler(options, io, allowedRoots.length > 0 ? allowedRoots : [workRoot]);
    // Eval trials (`troupe eval --queue`): each names its agent (claude, codex, gemini…), run with this machine's keys.
    else if (queue.endsWith('-eval')) handlers[queue] = createEvalTrialJobHandler({ workRoot });
    else handlers[queue] = looperHandler;
  }
  const worker = createQueueWorker({ connection: url, concurrency, handlers, env: io.env });
  await new Promise<void>((resolve) => {
    let interrupts = 0;
    const onSignal = () => {
      interrupts++;
      if (interrupts === 1) {
        io.stdout.write(`${m.queue.finishing(worker.activeJobs())}\n`);
        void worker.close().finally(resolve);
      } else void worker.close({ force: true }).finally(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Said once the signals are handled: a supervisor that stops the worker as soon as it reads this line gets a graceful stop.
    io.stdout.write(`${m.queue.serving(worker.id, queues, redactUrl(url), concurrency)}\n`);
  });
  return EXIT_CODES.ok;
}
