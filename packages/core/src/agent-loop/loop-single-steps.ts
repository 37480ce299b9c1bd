import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { LoopStepOptions, LoopState } from './agent-loop-options';
import type { Action, ActResult } from '../loop/loop-action';
import type { LoopIterationRunner } from './loop-iteration';
import { newIteration, type LoopIteration } from './loop-iteration-record';
import type { Perception, PerceptionInput } from '../loop/loop-perception';
import type { LoopReporter } from './monitoring/loop-reporter';
import { NEVER_ABORTED } from './loop-run-session';
import type { LoopPhase } from '../loop/loop-stage';
import type { LoopStageLifecycle } from './loop-stage-lifecycle';
import type { ReflectResult } from './reflect-loop-result';
import { normalizeAction } from './run-loop-action';

function abortPromise(signal: AbortSignal, what: string): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    const fail = () => reject(new AbortError(`${what} was aborted`, { cause: signal.reason }));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  promise.catch(() => {});
  return promise;
}

/** What {@link LoopSingleSteps} needs from its loop. */
export interface LoopSingleStepDependencies {
  loopId: string;
  state(): LoopState;
  lifecycle: LoopStageLifecycle;
  reporter: LoopReporter;
  runner: LoopIterationRunner;
  now: () => number;
}

/**
 * The single steps of seed 002 (`step_sense`, `step_plan`, `step_act`,
 * `step_reflect`): one phase at a time, outside the loop, with its events
 * (`step: true`), for debugging and tests. Allowed while the loop is idle,
 * paused or stopped; stages are set up first when needed.
 */
export class LoopSingleSteps {
  private stepCount = 0;

  constructor(private readonly deps: LoopSingleStepDependencies) {}

  async sense(options: LoopStepOptions): Promise<Perception[]> {
    const info = await this.prepare('stepSense', options);
    return (await this.run('sense', null, info)) as Perception[];
  }

  async plan(perceptions: readonly (Perception | PerceptionInput)[], options: LoopStepOptions): Promise<Action | null> {
    if (!Array.isArray(perceptions)) throw new InvalidArgumentError('perceptions', 'expected an array of perceptions');
    const info = await this.prepare('stepPlan', options);
    const list = this.deps.runner.normalizeStepPerceptions(perceptions, 'stepPlan');
    return (await this.run('plan', list, info)) as Action | null;
  }

  async act(action: Action, options: LoopStepOptions): Promise<ActResult> {
    const info = await this.prepare('stepAct', options);
    const normalized = normalizeAction(action, info.iterationId);
    if (normalized === null) throw new InvalidArgumentError('action', 'expected an Action, got nothing');
    const result = (await this.run('act', normalized, info)) as ActResult;
    if (!result.ok) {
      const stage = result.results.find((call) => call.status === 'failed')?.tool;
      this.deps.reporter.reportError('act', result.error, { iterationId: info.iterationId, handling: 'continue', ...(stage === undefined ? {} : { stage }) });
    }
    return result;
  }

  async reflect(result: ActResult, options: LoopStepOptions): Promise<ReflectResult> {
    if (typeof result !== 'object' || result === null || typeof result.action?.task !== 'string' || !Array.isArray(result.results)) {
      throw new InvalidArgumentError('result', 'expected an ActResult ({ action, ok, results, durationMs })');
    }
    const info = await this.prepare('stepReflect', options);
    return (await this.run('reflect', result, info)) as ReflectResult;
  }

  private async prepare(method: string, options: LoopStepOptions): Promise<LoopIteration> {
    const { loopId, lifecycle, reporter } = this.deps;
    const state = this.deps.state();
    if (state !== 'idle' && state !== 'paused' && state !== 'stopped') {
      throw new InvalidStateError(`Cannot ${method}() on loop "${loopId}" while it is ${state}; pause or stop it first`);
    }
    const signal = options.signal ?? NEVER_ABORTED;
    AbortError.throwIfAborted(signal, `${method}()`);
    if (!lifecycle.active || lifecycle.hasPending) await lifecycle.setup(true);
    reporter.refreshListening();
    const now = this.deps.now();
    reporter.anchorWallClock(now, true);
    return newIteration(`${loopId}#step-${++this.stepCount}`, 0, undefined, signal, options.signal ? abortPromise(signal, `${method}()`) : undefined, now);
  }

  private async run(phase: LoopPhase, input: unknown, info: LoopIteration): Promise<unknown> {
    try {
      const output = this.deps.runner.runPhase(phase, input, info);
      return output instanceof Promise ? await output : output;
    } catch (error) {
      if (!info.signal.aborted) this.deps.reporter.reportError(phase, error, { iterationId: info.iterationId, handling: 'rethrow' });
      throw error;
    }
  }
}
