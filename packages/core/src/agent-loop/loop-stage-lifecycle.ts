import type { EventBus } from '../events/event-bus';
import type { LoopLogger } from '../loop/loop-logger';
import { tagStage } from './loop-phases';
import type { LoopStage, LoopStageSetupContext } from '../loop/loop-stage';
import type { LoopStageSet } from './loop-stage-set';

/**
 * Calls the stages' `setup` and `teardown` hooks: every stage at `start()`
 * (or before a single step), stages registered later before their first
 * iteration, a stage unregistered while set up right away, and all of them
 * (in reverse order) at `stop()`.
 */
export class LoopStageLifecycle {
  private controller: AbortController | undefined;
  private readonly setUp = new Set<LoopStage>();
  private readonly failed = new Set<LoopStage>();
  private pending = false;

  constructor(
    private readonly stageSet: () => LoopStageSet,
    private readonly context: { loopId: string; logger: LoopLogger; bus: EventBus },
    private readonly report: (phase: 'setup' | 'teardown', error: unknown) => void,
  ) {}

  /** True between a set-up pass and the teardown. */
  get active(): boolean {
    return this.controller !== undefined;
  }

  /** True when stages were registered since the last set-up pass. */
  get hasPending(): boolean {
    return this.pending;
  }

  /** A stage was registered. */
  added(): void {
    if (this.controller) this.pending = true;
  }

  /** A stage was unregistered: tear it down if it was set up. */
  removed(stage: LoopStage): void {
    this.failed.delete(stage);
    if (this.setUp.delete(stage)) void this.teardownOne(stage);
  }

  /**
   * Sets up every stage that is not yet. With `rethrow`, the first failure
   * rejects (start, steps); otherwise it is reported and that stage is not
   * retried until the next teardown.
   */
  async setup(rethrow: boolean): Promise<void> {
    this.pending = false;
    this.controller ??= new AbortController();
    const context: LoopStageSetupContext = { ...this.context, signal: this.controller.signal };
    for (const stage of this.stageSet().all()) {
      if (this.setUp.has(stage) || this.failed.has(stage)) continue;
      try {
        await stage.setup?.(context);
        this.setUp.add(stage);
      } catch (error) {
        tagStage(error, stage.name);
        if (rethrow) throw error;
        this.failed.add(stage);
        this.report('setup', error);
      }
    }
  }

  /** Tears every set-up stage down, last set up first. */
  async teardown(): Promise<void> {
    this.controller?.abort();
    this.controller = undefined;
    this.pending = false;
    this.failed.clear();
    const stages = [...this.setUp].reverse();
    this.setUp.clear();
    for (const stage of stages) await this.teardownOne(stage);
  }

  private async teardownOne(stage: LoopStage): Promise<void> {
    try {
      await stage.teardown?.();
    } catch (error) {
      this.report('teardown', tagStage(error, stage.name));
    }
  }
}
