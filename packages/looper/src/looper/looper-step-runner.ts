import { withEventScope, type AgentContext, type EventBus, type RunnableAgent } from '@troupe/core';
import { waitForCompletion, type TaskManager } from '../tasks/task-manager';
import type { LooperJournal } from './looper-journal';
import type { LooperOptions, LooperStepTimeouts } from './looper-options';
import { buildReviewPrompt, parseReviewReport, reviewReportSchema, type ReviewPromptInput } from './looper-review-report';
import { recordCoderResult, recordReviewResult } from './looper-state';
import { failedStep, truncateText, type LooperStepResult, type ReviewStepResult } from './looper-step-result';

/** What a {@link LooperStepRunner} needs. @internal */
export interface LooperStepRunnerOptions extends Pick<LooperOptions, 'coderPrompt' | 'reviewPrompt'> {
  journal: LooperJournal;
  bus: EventBus | undefined;
  tasks: TaskManager;
  coder: RunnableAgent;
  review: RunnableAgent;
  timeouts: Required<LooperStepTimeouts>;
  maxOutputChars: number;
  /** The members' work directory (`context.workspacePath`), read at each step. */
  workspacePath: () => string | undefined;
}

/**
 * @internal Runs the Looper's Coder and Review steps: builds the step's
 * input, runs the member as a background task with the step's timeout (the
 * task hands it to the member's CLI turn), and records the result (state,
 * `[AUTO]` message, `looper:step-completed`). It also keeps what an
 * immediate stop or a dispose cancels: the task and the step's signal.
 */
export class LooperStepRunner {
  /** Aborts the step in progress on an immediate stop. */
  private stepController: AbortController | undefined;
  private currentTaskId: string | undefined;

  constructor(private readonly options: LooperStepRunnerOptions) {}

  /** A new cancellation scope for the next step; its signal aborts on {@link abortStep}. */
  beginStep(): AbortSignal {
    this.stepController = new AbortController();
    return this.stepController.signal;
  }

  /** Aborts the step in progress (JUDGE's model call included). */
  abortStep(reason: unknown): void {
    this.stepController?.abort(reason);
  }

  /** Cancels the Coder or Review task in progress, if any. */
  cancelTask(reason: string): void {
    if (this.currentTaskId) this.options.tasks.cancel(this.currentTaskId, reason);
  }

  /**
   * Runs `work` in the step's own event scope (after `looper:step-started`):
   * its agent turns and model calls are charged to `<looperId>-<step>`.
   */
  inStep<T>(runId: string, step: 'coder' | 'review' | 'judge', work: () => Promise<T>): Promise<T> {
    const { journal, bus } = this.options;
    const started = journal.emit('looper:step-started', { runId, iteration: journal.snapshot.iteration, step });
    return withEventScope({ event: started, bus, agentId: `${journal.looperId}-${step}` }, work);
  }

  /** Runs the Coder on the run's task (or `coderPrompt`'s input) and returns its result, not yet recorded. */
  runCoder(runId: string): Promise<LooperStepResult> {
    const { journal, coderPrompt } = this.options;
    const s = journal.snapshot;
    const task = s.currentTask ?? '';
    journal.postAuto('iteration-started', journal.texts.auto.iterationStarted(s.iteration, s.maxIterations, task));
    journal.emit('looper:iteration-started', { runId, iteration: s.iteration, maxIterations: s.maxIterations, task });
    const input = coderPrompt?.({ task, iteration: s.iteration, maxIterations: s.maxIterations }) ?? task;
    return this.inStep(runId, 'coder', () => this.runStep('coder', this.options.coder, input, this.options.timeouts.coder));
  }

  /** Runs the Review on the Coder's result and returns its result with the report, not yet recorded. */
  runReview(runId: string): Promise<ReviewStepResult> {
    const { journal, maxOutputChars } = this.options;
    const s = journal.snapshot;
    const coder = s.current.coder as LooperStepResult;
    const promptInput: ReviewPromptInput = {
      task: s.currentTask ?? '',
      iteration: s.iteration,
      coderStatus: coder.status,
      coderOutput: truncateText(coder.output.trim(), maxOutputChars),
    };
    const input = (this.options.reviewPrompt ?? buildReviewPrompt)(promptInput);
    return this.inStep(runId, 'review', () => this.reviewStep(input));
  }

  /** Records the Coder's result: the state moves on to Review. */
  recordCoder(result: LooperStepResult): void {
    const { journal } = this.options;
    journal.update(recordCoderResult(journal.snapshot, result, journal.now()), { kind: 'coder', data: result });
    journal.postAuto('coder', journal.texts.auto.coder(result));
    journal.emitStep('coder', result);
  }

  /** Records the Review's result: the state moves on to JUDGE. */
  recordReview(result: ReviewStepResult): void {
    const { journal } = this.options;
    journal.update(recordReviewResult(journal.snapshot, result, journal.now()), { kind: 'review', data: result });
    journal.postAuto('review', journal.texts.auto.review(result));
    journal.emitStep('review', result);
  }

  private async runStep(step: 'coder' | 'review', agent: RunnableAgent, input: string, timeoutMs: number): Promise<LooperStepResult & { data?: unknown }> {
    const { journal, tasks } = this.options;
    const started = journal.now();
    const workspacePath = this.options.workspacePath();
    const context: AgentContext = {
      channelId: journal.channelId,
      sourceChannelId: journal.channelId,
      ...(workspacePath !== undefined ? { workspacePath } : {}),
      data: { looperId: journal.looperId, step, iteration: journal.snapshot.iteration },
    };
    const { task, emitter } = tasks.startBackground(agent, input, context, { timeoutMs });
    this.currentTaskId = task.id;
    try {
      const output = await waitForCompletion(emitter);
      const text = output.text || task.output;
      return { status: 'SUCCESS', output: text, durationMs: journal.now() - started, timedOut: false, ...(output.data !== undefined ? { data: output.data } : {}) };
    } catch (error) {
      return failedStep(error, task.output, journal.now() - started);
    } finally {
      this.currentTaskId = undefined;
    }
  }

  private async reviewStep(input: string): Promise<ReviewStepResult> {
    const { data, ...result } = await this.runStep('review', this.options.review, input, this.options.timeouts.review);
    if (result.status === 'FAILED') return result;
    const structured = reviewReportSchema.safeParse(data);
    if (structured.success) return { ...result, report: structured.data, reportSource: 'parsed' };
    const parsed = parseReviewReport(result.output);
    return { ...result, report: parsed.report, reportSource: parsed.source };
  }
}
