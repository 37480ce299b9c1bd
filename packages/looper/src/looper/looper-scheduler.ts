import { InvalidStateError, withEventScope, type EventBus } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { type UsageBudget, type UsageBudgetLimits, type UsageLedger } from '@troupe/usage';
import { runJudgeStep, type LooperJudgeSetup } from './looper-judge-step';
import type { LooperIsolation } from './looper-isolation';
import type { LooperJournal } from './looper-journal';
import { looperUsageRun, startLooperBudget } from './looper-run-scope';
import type { LooperStepRunner } from './looper-step-runner';

/** What a {@link LooperScheduler} needs. @internal */
export interface LooperSchedulerOptions {
  journal: LooperJournal;
  steps: LooperStepRunner;
  judge: LooperJudgeSetup;
  bus: EventBus | undefined;
  /** The run's caps, checked; none: no budget. */
  budget: UsageBudgetLimits | undefined;
  ledger: UsageLedger | undefined;
  /** With `isolation: 'worktree'`: each run works in its own workspace. */
  isolation?: LooperIsolation | undefined;
}

/**
 * @internal The Looper's running branch: one background run at a time, in
 * its own event scope and budget, taking one step per pass in the order the
 * state says — Coder → Review → JUDGE, and JUDGE finishes the run or starts
 * the next iteration. Between steps it ends the run on an immediate stop or
 * a spent budget. The one place that decides what runs next.
 */
export class LooperScheduler {
  private loop: Promise<void> | undefined;
  private controller: AbortController | undefined;

  constructor(private readonly options: LooperSchedulerOptions) {}

  /** True while a run is in progress. */
  get running(): boolean {
    return this.loop !== undefined;
  }

  /** Resolves when no run is in progress (at once when none is). Never rejects. */
  whenIdle(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Ends the background run without finishing it (the state stays as last saved). */
  abort(): void {
    this.controller?.abort();
  }

  /** Starts run `runId` in the background, from the step the state is at. */
  launch(runId: string, resumed: boolean): void {
    const { journal, bus } = this.options;
    const controller = new AbortController();
    this.controller = controller;
    // The run's event scope: everything it does is charged to the run and traced under it.
    const usageRun = looperUsageRun(journal.looperId, runId);
    const started = journal.emit('looper:run-started', { runId, task: journal.snapshot.currentTask ?? '', resumed });
    const budget = startLooperBudget(this.options.budget, bus, this.options.ledger, usageRun);
    const { isolation } = this.options;
    const run = () => this.run(runId, controller.signal, budget);
    const loop = withEventScope({ event: started, bus, run: usageRun }, () => (isolation ? isolation.run(runId, controller.signal, run) : run()))
      .catch((error: unknown) => {
        if (!controller.signal.aborted && journal.snapshot.state === 'RUNNING' && journal.snapshot.runId === runId) {
          journal.finish('failed', journal.texts.reason.loopFailed(serializeError(error).message));
        }
      })
      .finally(() => {
        budget?.dispose();
        if (this.loop === loop) {
          this.loop = undefined;
          this.controller = undefined;
        }
      });
    this.loop = loop;
  }

  /** One step per pass, from whatever step the state says. */
  private async run(runId: string, signal: AbortSignal, budget: UsageBudget | undefined): Promise<void> {
    const { journal, steps } = this.options;
    const { texts } = journal;
    await Promise.resolve(); // the answering branch finishes first
    for (;;) {
      const s = journal.snapshot;
      if (signal.aborted || s.state !== 'RUNNING' || s.runId !== runId) return;
      // An immediate stop: the canceled step's result is not recorded.
      if (s.stopNow) return journal.finish('stopped', texts.reason.stoppedNow(s.iteration, s.step));
      // A spent budget ends the run between steps: the step that crossed it finished and was recorded.
      if (budget?.exceeded) return journal.finish('budget-exceeded', texts.reason.budgetExceeded(budget.reason ?? ''));
      const stepSignal = steps.beginStep();
      if (s.step === 'coder') {
        const result = await steps.runCoder(runId);
        if (signal.aborted) return;
        if (journal.snapshot.stopNow) continue;
        steps.recordCoder(result);
      } else if (s.step === 'review') {
        const result = await steps.runReview(runId);
        if (signal.aborted) return;
        if (journal.snapshot.stopNow) continue;
        steps.recordReview(result);
      } else if (s.step === 'judge') {
        // JUDGE finishes the run (a requested stop included) or starts the next iteration itself.
        await steps.inStep(runId, 'judge', () => runJudgeStep(journal, this.options.judge, runId, signal, stepSignal));
      } else {
        throw new InvalidStateError(`Looper "${journal.looperId}" is RUNNING without a step`);
      }
    }
  }
}
