import {
  InvalidArgumentError,
  type AgentContext,
  type AgentOutput,
  type AgentSinks,
  type ExecutionHandle,
  type RunnableAgent,
} from '@troupe/core';
import { englishLooperTexts, parseLooperCommand, type LooperCommand, type LooperTexts } from '@troupe/looper';
import type { QueueClient, QueuedJob, SubmitOptions } from './queue-client';
import { LOOPER_QUEUE, looperJobSpecSchema, looperJobStateStore, type LooperJobResult, type LooperJobSpec } from './looper-job';

/** Options for {@link QueuedLooper}. */
export interface QueuedLooperOptions {
  client: QueueClient;
  /** Everything of the job but the task (workspace, agents, limits). */
  spec: Omit<LooperJobSpec, 'task'>;
  /** Default `troupe-looper`. */
  queue?: string;
  /** Agent id. Default `looper`. */
  id?: string;
  /** Retries of each run's job. */
  submit?: Omit<SubmitOptions, 'jobId' | 'signal'>;
  /** The language of its replies. Default English. */
  texts?: LooperTexts;
}

/**
 * Submits a Looper run as a job: the whole Looper runs on a worker, its
 * events reach the client's bus in order. Resolves with the job handle.
 *
 * @example
 * ```ts
 * const job = await submitLooperJob(client, { task: 'Add tests', workspace: { gitUrl: 'https://github.com/acme/app.git' }, coder: 'claude' });
 * const { outcome } = await job.result;
 * ```
 */
export async function submitLooperJob(
  client: QueueClient,
  spec: LooperJobSpec,
  options: SubmitOptions & { queue?: string } = {},
): Promise<QueuedJob<LooperJobResult>> {
  const parsed = looperJobSpecSchema.safeParse(spec);
  if (!parsed.success) throw new InvalidArgumentError('spec', parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  const { queue = LOOPER_QUEUE, ...submitOptions } = options;
  return client.submit<LooperJobResult>(queue, 'looper', parsed.data, submitOptions);
}

/**
 * The Looper's command interface (`start`, `stop`, `status`, `add_pending`) in
 * front of a queue: use it where a `Looper` goes (DevHub's `send_to_looper`,
 * an executor). A `start` submits a job and answers at once; `stop`
 * (`now` included) and `add_pending` go to the worker running it; `status`
 * reads the job's checkpoint in Redis.
 *
 * @example
 * ```ts
 * const looper = new QueuedLooper({ client, spec: { workspace: { path: '/repos/app' }, coder: 'claude', reviewer: 'tests' } });
 * await looper.start('Add input validation').completion;
 * await looper.whenIdle();
 * ```
 */
export class QueuedLooper implements RunnableAgent {
  readonly id: string;
  readonly description = 'Runs Coder → Review → JUDGE iterations on a task on a worker. Input: plain text (start that task) or a Looper command as JSON.';
  private readonly queue: string;
  private readonly texts: LooperTexts;
  private job: QueuedJob<LooperJobResult> | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: QueuedLooperOptions) {
    if (!options?.client) throw new InvalidArgumentError('client', 'expected a QueueClient');
    this.id = options.id ?? 'looper';
    this.queue = options.queue ?? LOOPER_QUEUE;
    this.texts = options.texts ?? englishLooperTexts;
  }

  /** The job of the current (or last) run. */
  get currentJob(): QueuedJob<LooperJobResult> | undefined {
    return this.job;
  }

  start(input: string, context: AgentContext = {}, _sinks: AgentSinks = {}): ExecutionHandle {
    const completion: Promise<AgentOutput> = this.command(input, context).then((reply) => ({ text: reply.text, data: reply }));
    completion.catch(() => {});
    return { completion, cancel: () => void this.job?.cancel() };
  }

  /** Handles one command; see the class. */
  async command(input: string | LooperCommand, context: AgentContext = {}): Promise<{ ok: boolean; command: string; text: string; jobId?: string }> {
    const parsed = parseLooperCommand(typeof input === 'string' ? input : JSON.stringify(input), this.texts.command);
    if (!parsed.success) return { ok: false, command: 'invalid', text: `${this.texts.reply.invalid(parsed.error)} ${this.texts.command.usage}` };
    const command = parsed.command;
    if (command.type === 'start') {
      if (this.running) return { ok: false, command: 'start', text: `A run is in progress on the queue (job ${this.job?.id}); stop it first or add_pending.` };
      const spec = { ...this.options.spec, task: command.task };
      const job = await submitLooperJob(this.options.client, spec, { ...this.options.submit, queue: this.queue, ...(context.signal ? { signal: context.signal } : {}) });
      this.job = job;
      const running = job.result.then(
        () => undefined,
        () => undefined,
      );
      this.running = running.finally(() => {
        if (this.running === tracked) this.running = undefined;
      });
      const tracked = this.running;
      return { ok: true, command: 'start', text: `Queued "${command.task}" as job ${job.id} on ${this.queue}.`, jobId: job.id };
    }
    if (command.type === 'status') {
      const saved = this.job ? await looperJobStateStore(this.options.client.store, this.queue, this.job.id).load('looper') : undefined;
      if (!saved) return { ok: true, command: 'status', text: this.job ? `Job ${this.job.id}: ${await this.job.state()}` : 'No run submitted yet.' };
      return { ok: true, command: 'status', text: this.texts.status(saved), ...(this.job ? { jobId: this.job.id } : {}) };
    }
    if (!this.job || !this.running) return { ok: false, command: command.type, text: this.texts.reply.nothingToStop };
    await this.job.command(JSON.stringify(command));
    return { ok: true, command: command.type, text: `Sent ${command.type} to job ${this.job.id}.`, jobId: this.job.id };
  }

  /** Resolves when no run is in progress. Never rejects. */
  whenIdle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }
}
