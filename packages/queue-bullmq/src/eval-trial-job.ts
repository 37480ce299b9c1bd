// One trial of an eval (`@troupe/eval`) as a job: the task's starting commit travels as a git bundle, its hidden tests
// as file contents held in memory until grading; the worker runs the trial in a workspace of its own copy, grades it
// and returns the trial's record. The origin side (which submits a job per pending trial) is eval-trial-runner.ts.
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConfigError, InvalidArgumentError } from '@troupe/core';
import { builtInEvalModes, runEvalTrial, type EvalAgent, type EvalMode, type EvalTask, type EvalTrialRecord } from '@troupe/eval';
import { runGit } from '@troupe/worktree';
import { z } from 'zod';
import type { QueueClient, QueuedJob, SubmitOptions } from './queue-client';
import type { QueueJobHandler } from './queue-job';
import { jobFolderName } from './queue-job-folder';
import { recordJobProcesses, stopLeftoverJobProcesses } from './queue-job-processes';

/** The default queue of eval trials. */
export const EVAL_QUEUE = 'troupe-eval';

const commandSchema = z.array(z.string().min(1)).min(1);

/** A path inside the workspace: relative, `/`-separated, no `..` part (a hidden test can never land outside it). */
const relativeFileSchema = z
  .string()
  .min(1)
  .refine((path) => !isAbsolute(path) && !path.startsWith('/') && !path.split(/[\\/]/).some((part) => part === '..' || part === ''), 'a relative path inside the workspace, without ".." parts');

/**
 * One eval trial as a job: the task itself (prompt, commands, time limit), which agent, mode and trial, the starting
 * commit as a git bundle and the hidden tests' contents. Names and task text only: no env, no key. `agent` names an
 * agent of the **worker** (its `agents`, else a `query()` agent name such as `claude`), which runs with the worker's keys.
 */
export const evalTrialJobSchema = z
  .object({
    /** Which trial (its record's key at the origin). */
    trial: z.object({ task: z.string().min(1), agent: z.string().min(1), mode: z.string().min(1), trial: z.number().int().nonnegative() }).strict(),
    /** The `query()` agent to run when the worker has no agent of that id (`claude`, `codex`, `gemini`…). */
    agent: z.string().min(1).optional(),
    /** The model of that `query()` agent (the origin agent's `options.model`). */
    model: z.string().min(1).optional(),
    task: z
      .object({
        prompt: z.string().min(1),
        setupCommand: commandSchema.optional(),
        gradingCommand: commandSchema,
        timeLimitMs: z.number().int().positive(),
        tags: z.array(z.string()),
      })
      .strict(),
    /** The starting commit: a git bundle (base64) whose `main` branch is that commit. */
    bundle: z.string().min(1),
    /** The commit's id, checked against the bundle's. */
    base: z.string().regex(/^[0-9a-f]{40,64}$/, 'a full commit id'),
    /** The hidden tests: each file's path in the workspace and its content (base64), written only at grading time. */
    hidden: z.array(z.object({ path: relativeFileSchema, content: z.string(), executable: z.boolean().optional() }).strict()),
  })
  .strict();

/** One eval trial as a job (see {@link evalTrialJobSchema}). */
export type EvalTrialJob = z.infer<typeof evalTrialJobSchema>;

/** Options of {@link createEvalTrialJobHandler}: the worker's agents and modes, and where trials work. */
export interface EvalTrialJobHandlerOptions {
  /** Where each trial's copy of the task is made (removed when the trial ends). Default `<tmpdir>/troupe-worker`. */
  workRoot?: string;
  /**
   * This worker's agents by id: a job whose agent id is here runs it (an adapter, a scripted CLI, options with a
   * model). Other jobs run their `agent` name through `query()`; a job with neither fails without retry.
   */
  agents?: readonly EvalAgent[];
  /** Modes besides the built-in ones (`builtInEvalModes`), by name. A job naming a mode the worker lacks fails without retry. */
  modes?: readonly EvalMode[];
}

function byName<T>(items: readonly T[] | undefined, name: (item: T) => string, what: string): Map<string, T> {
  const found = new Map<string, T>();
  for (const [index, item] of (items ?? []).entries()) {
    if (item === null || typeof item !== 'object' || typeof name(item) !== 'string') throw new InvalidArgumentError(`${what}[${index}]`, 'expected an object with a name');
    found.set(name(item), item);
  }
  return found;
}

const inside = (root: string, path: string) => path === root || (path.startsWith(`${root}${sep}`) && !relative(root, path).startsWith('..'));

/**
 * Writes the hidden tests over the workspace. Each file's folder, symlinks resolved, must be inside it: a link the
 * agent left (`tests -> /home/me`) cannot send a hidden test elsewhere.
 */
async function writeHiddenTests(files: EvalTrialJob['hidden'], workDir: string): Promise<void> {
  const root = await realpath(workDir);
  for (const file of files) {
    const target = resolve(root, file.path);
    await mkdir(dirname(target), { recursive: true });
    if (!inside(root, await realpath(dirname(target)))) throw new InvalidArgumentError('hidden', `"${file.path}" leads outside the workspace (through a symlink)`);
    await rm(target, { force: true });
    await writeFile(target, Buffer.from(file.content, 'base64'), { mode: file.executable ? 0o755 : 0o644 });
  }
}

/**
 * The worker side of evals on the queue: each job is one trial. The task's starting commit is cloned from the job's
 * bundle into a folder of its own under `workRoot`, the trial runs in a workspace there (`runEvalTrial` of
 * `@troupe/eval`: setup command, the mode's attempt, the diff), and the hidden tests, held in memory until then, are
 * written in only at grading time: no file of them is on the worker's disk while the agent works. The job's result
 * is the trial's record. A retry (after a worker died mid-trial) stops the dead attempt's agent processes and runs
 * the trial again from a fresh copy.
 *
 * @example
 * ```ts
 * registerClaudeCodeAdapter();
 * createQueueWorker({ connection, handlers: { [EVAL_QUEUE]: createEvalTrialJobHandler({ workRoot: '/srv/troupe' }) } });
 * ```
 */
export function createEvalTrialJobHandler(options: EvalTrialJobHandlerOptions = {}): QueueJobHandler<EvalTrialJob, EvalTrialRecord> {
  const workRoot = resolve(options.workRoot ?? join(tmpdir(), 'troupe-worker'));
  const agents = byName(options.agents, (agent) => agent.id, 'agents');
  const modes = byName(options.modes, (mode) => mode.name, 'modes');
  const modeOf = (name: string) => modes.get(name) ?? builtInEvalModes[name];
  return {
    kind: 'eval-trial',
    parse(payload) {
      const parsed = evalTrialJobSchema.safeParse(payload);
      if (!parsed.success) throw ConfigError.fromZod('eval trial job', parsed.error);
      const job = parsed.data;
      if (!modeOf(job.trial.mode)) throw new InvalidArgumentError('trial.mode', `this worker has no mode "${job.trial.mode}" (it has: ${[...new Set([...Object.keys(builtInEvalModes), ...modes.keys()])].join(', ')})`);
      if (!agents.has(job.trial.agent) && job.agent === undefined) throw new InvalidArgumentError('trial.agent', `this worker has no agent "${job.trial.agent}", and the job names no query() agent to run`);
      return job;
    },
    async run(job, context) {
      const processes = ['queue', context.queue, context.jobId, 'processes'];
      await stopLeftoverJobProcesses(context.store, processes);
      await mkdir(workRoot, { recursive: true });
      // A real path: the process recorder matches it against the kernel's working folders.
      const folder = join(await realpath(workRoot), jobFolderName(context.jobId));
      await rm(folder, { recursive: true, force: true });
      await mkdir(folder);
      const recorder = recordJobProcesses(context.store, processes);
      recorder.claimFolder(folder);
      try {
        const repo = join(folder, 'repo');
        await writeFile(join(folder, 'task.bundle'), Buffer.from(job.bundle, 'base64'));
        await runGit(['clone', '--quiet', '--no-checkout', '--', join(folder, 'task.bundle'), repo], { cwd: folder, signal: context.signal });
        const head = (await runGit(['rev-parse', '--verify', 'refs/remotes/origin/main^{commit}'], { cwd: repo, signal: context.signal })).stdout.trim();
        if (head !== job.base) throw new InvalidArgumentError('bundle', `its main branch is ${head}, not the job's base ${job.base}`);
        const task: EvalTask = {
          id: job.trial.task,
          dir: folder,
          ...job.task,
          setupCommand: job.task.setupCommand,
          filesDir: undefined,
          repo: { path: repo, commit: job.base },
          hiddenDir: undefined,
          solutionDir: undefined,
        };
        const agent: EvalAgent = agents.get(job.trial.agent) ?? { id: job.trial.agent, agent: job.agent as EvalAgent['agent'], ...(job.model ? { options: { model: job.model } } : {}) };
        return await runEvalTrial({
          key: job.trial,
          task,
          repo: { repo, base: job.base, dispose: async () => {} },
          agent,
          mode: modeOf(job.trial.mode)!,
          keepWorkspaces: false,
          copyHiddenTests: (workDir) => writeHiddenTests(job.hidden, workDir),
          signal: context.signal,
        });
      } finally {
        await recorder.stop();
        await rm(folder, { recursive: true, force: true }).catch(() => {});
      }
    },
  };
}

/**
 * Submits one eval trial to the queue (default {@link EVAL_QUEUE}); the payload is checked first. Most callers use
 * `createQueuedEvalTrialRunner`, which builds the job from the task and submits every pending trial of `runEval`.
 */
export async function submitEvalTrial(client: QueueClient, job: EvalTrialJob, options: SubmitOptions & { queue?: string } = {}): Promise<QueuedJob<EvalTrialRecord>> {
  const parsed = evalTrialJobSchema.safeParse(job);
  if (!parsed.success) throw new InvalidArgumentError('job', parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  const { queue = EVAL_QUEUE, ...submitOptions } = options;
  return client.submit<EvalTrialRecord>(queue, 'eval-trial', parsed.data, submitOptions);
}
